import {DuckDBInstance} from '@duckdb/node-api';
const c = await (await DuckDBInstance.create(':memory:')).connect();
for (const q of process.argv.slice(2)) { try { console.log(JSON.stringify((await c.runAndReadAll(q)).getRowsJson())); } catch (e) { console.log('ERR', e.message); } }
