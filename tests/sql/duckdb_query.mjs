// Prints DuckDB's answer to one query, one JSON array per row, for the CLI
// cases that check files basalt writes: node duckdb_query.mjs "SQL".
import { DuckDBInstance } from '@duckdb/node-api';

const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
const reader = await conn.runAndReadAll(process.argv[2]);
for (const row of reader.getRowsJson()) console.log(JSON.stringify(row));
