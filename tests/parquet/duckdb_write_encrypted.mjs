// Writes the rows of a plaintext Parquet file again with DuckDB's own
// Parquet encryption (footer key only, AES-GCM; DuckDB 1.x writes no AAD),
// for basalt to read in tests/cli/parquet_encryption.sh:
//
//   node tests/parquet/duckdb_write_encrypted.mjs IN OUT KEY [ROW_GROUP_SIZE [PLAIN]]
//
// With PLAIN, the same rows go there unencrypted too (DuckDB cannot read the
// schema of an encrypted file: duckdb_json.mjs --units-from takes this).
// KEY as PRAGMA add_parquet_key takes it (16, 24 or 32 characters). DuckDB
// writes encrypted files only with its OpenSSL-backed crypto (httpfs) or
// with force_mbedtls_unsafe, which this uses: the file is for tests.
import { DuckDBInstance } from '@duckdb/node-api';

const [input, out, key, rowGroup, plain] = process.argv.slice(2);
if (!input || !out || !key) {
  console.error('usage: node duckdb_write_encrypted.mjs IN OUT KEY [ROW_GROUP_SIZE [PLAIN]]');
  process.exit(2);
}
const quote = (x) => `'${x.replaceAll("'", "''")}'`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run(`SET force_mbedtls_unsafe = 'true'`);
await conn.run(`PRAGMA add_parquet_key('basalt_footer', ${quote(key)})`);
const groups = rowGroup ? `, ROW_GROUP_SIZE ${Number(rowGroup)}` : '';
await conn.run(`COPY (SELECT * FROM read_parquet(${quote(input)})) TO ${quote(out)} ` +
               `(ENCRYPTION_CONFIG {footer_key: 'basalt_footer'}${groups})`);
if (plain)
  await conn.run(`COPY (SELECT * FROM read_parquet(${quote(input)})) TO ${quote(plain)} ` +
                 `(FORMAT parquet${groups})`);
