// Writes a Parquet file with Polars whose columns are Arrays (fixed-size
// lists) alone and nested, with nulls at every level, for the fixed-size
// list tests (tests/cli/parquet_fixed_lists.sh):
//
//   node tests/parquet/polars_arrays.mjs OUT.parquet
//   node tests/parquet/polars_arrays.mjs --dtypes FILE.parquet
//       (prints the dtypes Polars reads FILE's columns as, as JSON)
//
// Columns (8 rows; every third array null, every fifth item null):
//   id   Int32
//   a    Array(Int32, 3)
//   s    Array(String, 2)
//   aa   Array(Array(Int64, 2), 2)
//   st   Array(Struct({x: Int32, y: String}), 2)
//   la   List(Array(Float64, 2))
// Polars keeps the sizes in the file's ARROW:schema; the Parquet schema has
// plain LISTs. The values reach Polars as an Arrow IPC file built with
// apache-arrow.
import pl from 'nodejs-polars';
import * as A from 'apache-arrow';

const [out, file] = process.argv.slice(2);
if (!out || (out === '--dtypes' && !file)) {
  console.error('usage: node polars_arrays.mjs OUT.parquet | --dtypes FILE.parquet');
  process.exit(2);
}
if (out === '--dtypes') {
  console.log(JSON.stringify(pl.readParquet(file).schema));
  process.exit(0);
}
const n = 8;
const fixed = (size, item) => new A.FixedSizeList(size, new A.Field('item', item, true));
const types = {
  id: new A.Int32(),
  a: fixed(3, new A.Int32()),
  s: fixed(2, new A.Utf8()),
  aa: fixed(2, fixed(2, new A.Int64())),
  st: fixed(2, new A.Struct([new A.Field('x', new A.Int32(), true), new A.Field('y', new A.Utf8(), true)])),
  la: new A.List(new A.Field('item', fixed(2, new A.Float64()), true)),
};
let k = 0;
const item = (v) => (k++ % 5 === 4 ? null : v);
const arr = (r, f) => (r % 3 === 1 ? null : f());
const values = {
  id: Array.from({ length: n }, (_, r) => r),
  a: Array.from({ length: n }, (_, r) => arr(r, () => [item(r), item(r * 10), item(-r)])),
  s: Array.from({ length: n }, (_, r) => arr(r, () => [item(`s${r}`), item('')])),
  aa: Array.from({ length: n }, (_, r) => arr(r, () => [
    item([BigInt(r), BigInt(-r)]), item([BigInt(r * 1000), null])])),
  st: Array.from({ length: n }, (_, r) => arr(r, () => [
    item({ x: r, y: `y${r}` }), item({ x: null, y: null })])),
  la: Array.from({ length: n }, (_, r) => (r % 4 === 3 ? null
    : Array.from({ length: r % 3 }, (_, j) => item([r + j / 4, -j])))),
};
const vectors = {};
for (const [name, type] of Object.entries(types)) vectors[name] = A.vectorFromArray(values[name], type);
const df = pl.readIPC(Buffer.from(A.tableToIPC(new A.Table(vectors), 'file')));
await df.lazy().sinkParquet(out, {}).collect();
console.log(JSON.stringify(df.schema));
