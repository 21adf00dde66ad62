#!/usr/bin/env bash
# Fixed-size lists restored from ARROW:schema:
#   - Polars writes Array columns (tests/parquet/polars_arrays.mjs: alone,
#     of strings, of Arrays, of structs, inside a List; null arrays and null
#     items) as Parquet LISTs with their sizes in ARROW:schema; basalt reads
#     each as fixed_size_list[n] and prints what Polars reads
#     (tests/parquet/polars_json.mjs);
#   - basalt's rewrite keeps them fixed-size lists: Polars reads it back with
#     the same dtypes and values, and so does basalt;
#   - DuckDB stores no ARROW:schema: its ARRAY (INTEGER[3]) is a plain LIST in
#     the file, which basalt reads as a list, as DuckDB itself reads it back.
# Lists whose length is not the fixed size are CORRUPT (parquet_schema.h);
# tests/unit/parquet/assemble_test.c covers them.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null ||
   ! (cd "$pq" && node -e "Promise.all(['nodejs-polars', 'apache-arrow', '@duckdb/node-api'].map((m) => import(m)))" 2>/dev/null); then
  echo "skipped: node, nodejs-polars, apache-arrow or @duckdb/node-api is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi

f=$tmp/arrays.parquet
checks=$((checks + 1))
if ! node "$pq/polars_arrays.mjs" "$f" >"$tmp/dtypes" 2>"$tmp/gen.err"; then
  echo "FAIL: Polars could not write the table: $(head -1 "$tmp/gen.err")"
  failures=$((failures + 1))
  finish
  exit
fi
expect 0 "$basalt" parquet schema "$f" &&
  check "schema: a as fixed_size_list[3]" grep -q '^  a: fixed_size_list\[3\]<element: int32>$' "$tmp/out" &&
  check "schema: Arrays of Arrays" \
    grep -q '^  aa: fixed_size_list\[2\]<element: fixed_size_list\[2\]<element: int64>>$' "$tmp/out" &&
  check "schema: Arrays of structs" grep -q '^  st: fixed_size_list\[2\]<element: struct<' "$tmp/out" &&
  check "schema: Arrays in a List" grep -q '^  la: large_list<element: fixed_size_list\[2\]<element: double>>$' "$tmp/out" &&
  check "schema: the file has plain LISTs" grep -q 'optional group a (LIST)' "$tmp/out"
node "$pq/polars_json.mjs" "$f" >"$tmp/polars.json"
expect 0 "$basalt" parquet cat "$f" --format json &&
  check "values: Polars's rows" cmp -s "$tmp/out" "$tmp/polars.json" &&
  check "null arrays read as null" grep -q '^{"id":1,"a":null,"s":null,"aa":null,"st":null,' "$tmp/out"
expect 0 "$basalt" parquet cat "$f" --format json --columns a,st.element.y &&
  check "projection inside fixed-size lists" \
    grep -q '^{"a":\[0,0,0\],"st":\[{"y":"y0"},{"y":null}\]}$' "$tmp/out"

# basalt's rewrite: Arrays stay Arrays for Polars and for basalt
expect 0 "$basalt" parquet rewrite "$f" "$tmp/rw.parquet" &&
  check "rewrite: Polars reads the same dtypes" \
    cmp -s <(node "$pq/polars_arrays.mjs" --dtypes "$tmp/rw.parquet") "$tmp/dtypes" &&
  check "rewrite: Polars reads the same rows" \
    cmp -s <(node "$pq/polars_json.mjs" "$tmp/rw.parquet") "$tmp/polars.json"
expect 0 "$basalt" parquet cat "$tmp/rw.parquet" --format json &&
  check "rewrite: basalt reads the same rows" cmp -s "$tmp/out" "$tmp/polars.json"
expect 0 "$basalt" parquet schema "$tmp/rw.parquet" &&
  check "rewrite: still fixed_size_list[3]" grep -q '^  a: fixed_size_list\[3\]<element: int32>$' "$tmp/out"

# DuckDB's ARRAY: no ARROW:schema, a list for DuckDB and basalt alike
d=$tmp/duck.parquet
node "$pq/duckdb_query.mjs" - "COPY (SELECT i AS id,
    (CASE WHEN i % 3 = 1 THEN NULL ELSE [i, i + 1, NULL] END)::INTEGER[3] AS a
  FROM range(5) t(i)) TO '$d'" >/dev/null
check "DuckDB reads its ARRAY back as a list" \
  [ "$(node "$pq/duckdb_query.mjs" "$d" "SELECT column_type FROM (DESCRIBE SELECT * FROM f) WHERE column_name = 'a'")" = "INTEGER[]" ]
expect 0 "$basalt" parquet schema "$d" &&
  check "basalt reads DuckDB's ARRAY as a list" grep -q '^  a: list<element: int32>$' "$tmp/out"
expect 0 "$basalt" parquet cat "$d" --format json &&
  check "DuckDB's ARRAY values" cmp -s "$tmp/out" <(node "$pq/duckdb_json.mjs" "$d")

finish
