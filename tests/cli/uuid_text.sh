#!/usr/bin/env bash
# UUIDs print as their canonical lowercase 8-4-4-4-12 text in every output
# format (table, csv, json) of every command that prints rows through the
# shared printer (tools/basalt/format_value.c: the arrow.uuid extension
# type, which the Parquet reader gives UUID columns and the Iceberg scan
# gives uuid fields), compared with DuckDB's text of the same values:
#   - basalt parquet cat / head on the corpus's iceberg-encodings UUID files
#     (PLAIN; the BYTE_STREAM_SPLIT twins, which DuckDB does not read, must
#     print what PLAIN prints),
#   - UUIDs nested in a list and a struct, in a file DuckDB writes,
#   - basalt iceberg scan of a table with a uuid column around a file DuckDB
#     writes (tests/iceberg/make_parquet.mjs uuid, make_table.py uuid).
# basalt avro cat prints Avro values through its own JSON (a uuid is an
# Avro string there already), not through this printer.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null || ! (cd "$pq" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
query() { node "$pq/duckdb_query.mjs" "$@"; }
canonical='^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'

enc=$testdata/parquet-extra/iceberg-encodings
for name in uuid uuid_with_nulls; do
  f=$enc/PLAIN/$name.parquet
  # json: DuckDB's rows in basalt's form (duckdb_json.mjs prints UUIDs as text)
  node "$pq/duckdb_json.mjs" "$f" >"$tmp/$name.duckdb.json"
  expect 0 "$basalt" parquet cat "$f" --format json &&
    check "$name: cat --format json is DuckDB's rows" cmp -s "$tmp/out" "$tmp/$name.duckdb.json"
  check "$name: some rows compared" [ "$(wc -l <"$tmp/$name.duckdb.json")" -ge 100 ]
  # csv: DuckDB's VARCHAR cast of each value, an empty field for null
  query "$f" "SELECT COALESCE(CAST(data AS VARCHAR), '') FROM f" >"$tmp/$name.duckdb.txt"
  expect 0 "$basalt" parquet cat "$f" --format csv &&
    check "$name: cat --format csv is DuckDB's text" \
      cmp -s <(tail -n +2 "$tmp/out") "$tmp/$name.duckdb.txt"
  check "$name: every non-null value canonical" \
    [ "$(grep -cEv "$canonical|^\$" "$tmp/$name.duckdb.txt")" = 0 ]
  # table: the same text right after the header, NULL for null
  expect 0 "$basalt" parquet head "$f" -n 50 &&
    check "$name: head (table) is DuckDB's text" \
      cmp -s <(tail -n +3 "$tmp/out" | sed 's/ *$//; s/^NULL$//') <(head -n 50 "$tmp/$name.duckdb.txt")
  # BYTE_STREAM_SPLIT holds the same values as PLAIN
  expect 0 "$basalt" parquet cat "$enc/BYTE_STREAM_SPLIT/$name.parquet" --format json &&
    check "$name: BYTE_STREAM_SPLIT prints what PLAIN prints" cmp -s "$tmp/out" "$tmp/$name.duckdb.json"
done

# nested: a list of UUIDs and a struct holding one
nested=$tmp/nested.parquet
query - "COPY (SELECT i AS id,
    CASE WHEN i = 1 THEN NULL ELSE [md5(i::VARCHAR)::UUID, NULL, '0123abcd-0000-7fff-8000-fedcba987654'::UUID] END AS l,
    {'u': CASE WHEN i = 2 THEN NULL ELSE 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::UUID END} AS s
  FROM range(4) t(i)) TO '$nested'" >/dev/null
node "$pq/duckdb_json.mjs" "$nested" >"$tmp/nested.duckdb.json"
expect 0 "$basalt" parquet cat "$nested" --format json &&
  check "nested UUIDs: cat --format json is DuckDB's rows" cmp -s "$tmp/out" "$tmp/nested.duckdb.json"
expect 0 "$basalt" parquet cat "$nested" --format csv --columns s &&
  check "nested UUIDs: a struct cell in csv" \
    grep -qF '"{""u"":""a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11""}"' "$tmp/out"

# Iceberg: a uuid column scanned through the table
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import avro' 2>/dev/null; then
  (cd "$here/../iceberg" && node make_parquet.mjs uuid "$tmp/u.parquet")
  /usr/bin/python3 "$here/../iceberg/make_table.py" uuid "$tmp/u.parquet" "$tmp/ut"
  node "$pq/duckdb_json.mjs" "$tmp/u.parquet" >"$tmp/u.duckdb.json"
  expect 0 "$basalt" iceberg scan "$tmp/ut" --format json &&
    check "iceberg scan --format json: uuid values as DuckDB prints them" cmp -s "$tmp/out" "$tmp/u.duckdb.json"
  query "$tmp/u.parquet" "SELECT id || ',' || COALESCE(CAST(u AS VARCHAR), '') FROM f" >"$tmp/u.duckdb.csv"
  expect 0 "$basalt" iceberg scan "$tmp/ut" --format csv &&
    check "iceberg scan --format csv: uuid text" cmp -s <(tail -n +2 "$tmp/out") "$tmp/u.duckdb.csv"
  expect 0 "$basalt" iceberg scan "$tmp/ut" &&
    check "iceberg scan (table): uuid text" grep -q '^ 5  a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11$' "$tmp/out" &&
    check "iceberg scan (table): null uuid" grep -q '^ 3  NULL$' "$tmp/out"
else
  echo "skipped the Iceberg scan: python3-avro is needed to write its table"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && failures=$((failures + 1))
fi

finish
