// Writes a seeded table of every flat type DuckDB has to a Parquet file, as
// input to `basalt parquet rewrite` in tests/cli/parquet_rewrite.sh:
//
//   node tests/parquet/writer_gen.mjs OUT ROWS SEED
//
// Values are functions of the row number and the seed (hash), with NULLs
// in every nullable column, repeats (for dictionaries) and extremes.
import { DuckDBInstance } from '@duckdb/node-api';

const [out, rowsArg, seedArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node writer_gen.mjs OUT ROWS SEED');
  process.exit(2);
}
const rows = Number(rowsArg ?? 5000);
const seed = Number(seedArg ?? 1);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const h = (k) => `hash(i * 7919 + ${seed} * 104729 + ${k})::HUGEINT`;
const nul = (k, expr) => `CASE WHEN ${h(k)} % 9 = 0 THEN NULL ELSE ${expr} END`;
const cols = [
  `${nul(1, `(${h(2)} % 2 = 0)`)} AS b`,
  `${nul(3, `(${h(4)} % 256 - 128)::TINYINT`)} AS i8`,
  `(${h(5)} % 256)::UTINYINT AS u8`,
  `${nul(6, `(${h(7)} % 65536 - 32768)::SMALLINT`)} AS i16`,
  `${nul(8, `(${h(9)} % 65536)::USMALLINT`)} AS u16`,
  `${nul(10, `(${h(11)} % 4294967296 - 2147483648)::INTEGER`)} AS i32`,
  `${nul(12, `(${h(13)} % 4294967296)::UINTEGER`)} AS u32`,
  `(${h(14)}::HUGEINT - 9223372036854775808)::BIGINT AS i64`,
  `${nul(15, `${h(16)}::UBIGINT`)} AS u64`,
  `${nul(17, `((${h(18)} % 2000000)::DOUBLE / 64 - 15625)::FLOAT`)} AS f32`,
  `${nul(19, `CASE WHEN ${h(20)} % 50 = 0 THEN 'NaN'::DOUBLE ELSE (${h(21)} % 100000000)::DOUBLE / 1000 - 50000 END`)} AS f64`,
  `${nul(22, `(((${h(23)} % 1999999999) - 999999999)::DECIMAL(38,0) / 100)::DECIMAL(9,2)`)} AS dec9`,
  `${nul(24, `(((${h(25)} % 1999999999999999999) - 999999999999999999)::DECIMAL(38,0) / 1000)::DECIMAL(18,3)`)} AS dec18`,
  `${nul(26, `(${h(27)}::HUGEINT * 1000 - 9223372036854775808000)::DECIMAL(38,0)`)} AS dec38`,
  `${nul(28, `DATE '1970-01-01' + ((${h(29)} % 100000)::INTEGER - 50000)`)} AS d`,
  `${nul(30, `TIME '00:00:00' + to_microseconds((${h(31)} % 86400000000)::BIGINT)`)} AS t`,
  `${nul(32, `make_timestamp((${h(33)} % 4000000000000000)::BIGINT - 2000000000000000)`)} AS ts`,
  `${nul(34, `make_timestamp((${h(35)} % 4000000000000000)::BIGINT)::TIMESTAMPTZ`)} AS tstz`,
  `${nul(36, `['', 'a', 'basalt', 'lake', 'é☃', 'x'][(${h(37)} % 6 + 1)::BIGINT] || (${h(38)} % 40)::VARCHAR`)} AS s`,
  `${nul(39, `(${h(40)} % 1000)::VARCHAR::BLOB`)} AS bl`,
  `${nul(41, `(lpad(to_hex(${h(42)}), 16, '0') || lpad(to_hex(${h(43)}), 16, '0'))::UUID`)} AS id`,
  `'constant' AS k`,
];
const sql = `COPY (SELECT ${cols.join(',\n  ')} FROM range(${rows}) t(i) ORDER BY i)
  TO '${out.replaceAll("'", "''")}' (FORMAT PARQUET, ROW_GROUP_SIZE 3000)`;
await conn.run(sql);
