#!/usr/bin/env bash
# Iceberg data files beyond Parquet with field ids, in tables written at test
# time by tests/iceberg/make_table.py (python3-avro manifests) around files
# written by DuckDB (tests/iceberg/make_parquet.mjs) and python3-avro:
#   - Parquet files without field ids: read through the table's name mapping
#     (columns it does not name read as null, whatever their name), else by
#     position, as Java reads them;
#   - Avro data files (python3-avro, field ids on the fields): the same rows
#     as a Parquet file read through the same scans (projection, evolution,
#     deletes, filters) give the same output;
#   - Avro files without field ids: through the name mapping, else by the
#     schema's names;
#   - ORC data files: UNSUPPORTED, naming the file.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/../iceberg" && pwd)
py=/usr/bin/python3

if ! "$py" -c 'import avro' 2>/dev/null || ! command -v node >/dev/null ||
  ! (cd "$here" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: python3-avro, node or @duckdb/node-api is missing"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "python3-avro and DuckDB available" false
  finish
  exit $?
fi

# spec JSON for make_table.py: SCHEMA_JSON PROPERTIES_JSON FILES_JSON
table() {
  printf '{"format-version": 2, "schema": %s, "properties": %s, "files": %s}\n' "$2" "$3" "$4" >"$tmp/spec.json"
  "$py" "$here/make_table.py" spec "$tmp/spec.json" "$1"
}
lines() { printf '%s\n' "$@"; }

# ------------------------------------------------------------------ no field ids
(cd "$here" && node make_parquet.mjs plain "$tmp/plain.parquet")
expect 0 "$basalt" parquet schema "$tmp/plain.parquet" &&
  check "plain.parquet has no field ids" [ "$(grep -c ' = [0-9]*;' "$tmp/out")" = 0 ]
plain_schema='{"type": "struct", "schema-id": 0, "fields": [
  {"id": 2, "name": "b", "required": false, "type": "string"},
  {"id": 1, "name": "first", "required": false, "type": "long"},
  {"id": 3, "name": "s", "required": false, "type": {"type": "struct", "fields": [
    {"id": 4, "name": "x", "required": false, "type": "long"},
    {"id": 5, "name": "y", "required": false, "type": "string"}]}},
  {"id": 6, "name": "extra", "required": false, "type": "string"}]}'
plain_files="[{\"src\": \"$tmp/plain.parquet\", \"rows\": 3}]"

# Without a mapping: top-level column i is field id i + 1 (Java's fallback
# ids), whatever the names; nested fields have no ids and read as null.
table "$tmp/bypos" "$plain_schema" '{}' "$plain_files"
expect 0 "$basalt" iceberg scan "$tmp/bypos" --format json &&
  check "no ids, no mapping: columns by position" [ "$(cat "$tmp/out")" = "$(lines \
    '{"b":"p","first":10,"s":{"x":null,"y":null},"extra":null}' \
    '{"b":"r","first":20,"s":{"x":null,"y":null},"extra":null}' \
    '{"b":null,"first":30,"s":null,"extra":null}')" ]
expect 0 "$basalt" iceberg count "$tmp/bypos" --where "first >= 20" &&
  check "no ids, no mapping: filter on a column read by position" [ "$(cat "$tmp/out")" = 2 ]
expect 0 "$basalt" iceberg scan "$tmp/bypos" --format csv --columns first,_pos --where "b = 'r'" &&
  check "no ids, no mapping: projection and filter" [ "$(tail -n +2 "$tmp/out")" = "20,1" ]

# With a mapping: only what it names has an id. "b" is not named, so it reads
# as null although the table calls its field b too; s.y is not named either.
mapping='[{"field-id": 1, "names": ["a"]}, {"field-id": 3, "names": ["s"], "fields": [{"field-id": 4, "names": ["x"]}]}]'
props=$("$py" -c 'import json,sys; print(json.dumps({"schema.name-mapping.default": sys.argv[1]}))' "$mapping")
table "$tmp/mapped" "$plain_schema" "$props" "$plain_files"
expect 0 "$basalt" iceberg scan "$tmp/mapped" --format json &&
  check "no ids, a mapping: mapped columns by id, the others null" [ "$(cat "$tmp/out")" = "$(lines \
    '{"b":null,"first":10,"s":{"x":1,"y":null},"extra":null}' \
    '{"b":null,"first":20,"s":{"x":2,"y":null},"extra":null}' \
    '{"b":null,"first":30,"s":null,"extra":null}')" ]
expect 0 "$basalt" iceberg count "$tmp/mapped" --where "b IS NULL AND s.x >= 2" &&
  check "no ids, a mapping: filter" [ "$(cat "$tmp/out")" = 1 ]

# ------------------------------------------------------------------ Avro data files
mk=$here/make_avro_data.py
pq=$(cd "$(dirname "$0")/../parquet" && pwd)
"$py" "$mk" data "$tmp/data.avro"
node "$pq/duckdb_query.mjs" - "$("$py" "$mk" duckdb "$tmp/data.parquet")" >/dev/null
check "DuckDB wrote the same rows to Parquet" test -s "$tmp/data.parquet"
schema=$("$py" "$mk" schema)
evolved=$("$py" "$mk" evolved)
loc=s3a://hyperparam-iceberg/java/bunnies/data
avro_file() { printf '{"src": "%s", "format": "AVRO", "rows": %s%s}' "$1" "$2" "${3:-}"; }
table "$tmp/ta" "$schema" '{}' "[$(avro_file "$tmp/data.avro" 8)]"
table "$tmp/tp" "$schema" '{}' "[{\"src\": \"$tmp/data.parquet\", \"rows\": 8}]"
table "$tmp/ea" "$evolved" '{}' "[$(avro_file "$tmp/data.avro" 8)]"
table "$tmp/ep" "$evolved" '{}' "[{\"src\": \"$tmp/data.parquet\", \"rows\": 8}]"
# deletes: positions 1 and 4 of the data file, then id = 6 (Avro delete files)
"$py" "$mk" posdel "$loc/data.avro" "$tmp/pos-a.avro" 1 4
"$py" "$mk" posdel "$loc/data.parquet" "$tmp/pos-p.avro" 1 4
"$py" "$mk" eqdel "$tmp/eq.avro" 6
deletes() {
  printf '%s, %s' "$(avro_file "$1" 2 ', "content": 1')" \
    "$(avro_file "$tmp/eq.avro" 1 ', "content": 2, "equality_ids": [1]')"
}
table "$tmp/da" "$schema" '{}' "[$(avro_file "$tmp/data.avro" 8), $(deletes "$tmp/pos-a.avro")]"
table "$tmp/dp" "$schema" '{}' "[{\"src\": \"$tmp/data.parquet\", \"rows\": 8}, $(deletes "$tmp/pos-p.avro")]"

# same_scan NAME A B ARGS...: the scans of tables A and B print the same
same_scan() {
  local what=$1 a=$2 b=$3; shift 3
  expect 0 "$basalt" iceberg scan "$b" "$@" && cp "$tmp/out" "$tmp/want.out"
  expect 0 "$basalt" iceberg scan "$a" "$@" &&
    check "$what" cmp -s "$tmp/out" "$tmp/want.out" || diff "$tmp/out" "$tmp/want.out" | head -6
}
expect 0 "$basalt" iceberg scan "$tmp/ta" --format json &&
  check "Avro data file: 8 rows" [ "$(wc -l <"$tmp/out")" = 8 ] &&
  check "Avro data file: typed values" grep -qF \
    '{"id":0,"name":"alpha","price":"12.34","day":"2024-02-29","ts":"2024-01-02T03:04:05.678901","tstz":"1969-12-31T23:59:59.999999Z",' "$tmp/out"
for opts in "" "--batch-size 3" "--batch-size 2 --threads 3"; do
  # shellcheck disable=SC2086
  same_scan "Avro = Parquet: every column ($opts)" "$tmp/ta" "$tmp/tp" --format json $opts
  # shellcheck disable=SC2086
  same_scan "Avro = Parquet: projection, sub-fields, _pos ($opts)" "$tmp/ta" "$tmp/tp" --format json \
    --columns "loc.lat,im,_pos,name,tags,attrs,uid,t" $opts
  # shellcheck disable=SC2086
  same_scan "Avro = Parquet: filter ($opts)" "$tmp/ta" "$tmp/tp" --format json \
    --where "qty > 3 AND name IS NOT NULL" --columns id,qty,name,_pos $opts
  # shellcheck disable=SC2086
  same_scan "Avro = Parquet: evolved schema ($opts)" "$tmp/ea" "$tmp/ep" --format json $opts
  # shellcheck disable=SC2086
  same_scan "Avro = Parquet: deletes ($opts)" "$tmp/da" "$tmp/dp" --format json --columns id,_pos,name $opts
done
expect 0 "$basalt" iceberg scan "$tmp/ea" --format json --columns qty,label,price,ratio,loc,extra --where "id = 0" &&
  check "evolved: promoted, renamed and added columns" [ "$(cat "$tmp/out")" = \
    '{"qty":3,"label":"alpha","price":"12.34","ratio":0.5,"loc":{"lon":-2.25,"latitude":1.5,"alt":null},"extra":null}' ]
expect 0 "$basalt" iceberg scan "$tmp/da" --format csv --columns id,_pos &&
  check "deletes on an Avro data file: positions 1, 4 and id 6 gone" \
    [ "$(tail -n +2 "$tmp/out" | tr '\n' ' ')" = "0,0 2,2 3,3 5,5 7,7 " ]
for t in ta tp da; do
  expect 0 "$basalt" iceberg count "$tmp/$t" --where "day >= '2000-01-01'" && cp "$tmp/out" "$tmp/count.$t"
done
check "count with a filter: Avro = Parquet" cmp -s "$tmp/count.ta" "$tmp/count.tp"
check "count with a filter: 3 rows" [ "$(cat "$tmp/count.ta")" = 3 ]
check "count with a filter and deletes: 1 row" [ "$(cat "$tmp/count.da")" = 1 ]
expect 0 "$basalt" iceberg count "$tmp/ta" && check "count: 8" [ "$(cat "$tmp/out")" = 8 ]

# an Avro file without field ids: through the mapping, else by the names of
# the table schema (as Java reads Avro files)
"$py" "$mk" noids "$tmp/noids.avro"
ab_schema='{"type": "struct", "schema-id": 0, "fields": [
  {"id": 1, "name": "a", "required": false, "type": "long"},
  {"id": 2, "name": "bee", "required": false, "type": "string"}]}'
table "$tmp/na" "$ab_schema" '{}' "[$(avro_file "$tmp/noids.avro" 2)]"
expect 0 "$basalt" iceberg scan "$tmp/na" --format json &&
  check "Avro without ids, no mapping: by name" [ "$(cat "$tmp/out")" = "$(lines '{"a":10,"bee":null}' '{"a":20,"bee":null}')" ]
props=$("$py" -c 'import json; print(json.dumps({"schema.name-mapping.default": json.dumps([{"field-id": 2, "names": ["b"]}])}))')
table "$tmp/nm" "$ab_schema" "$props" "[$(avro_file "$tmp/noids.avro" 2)]"
expect 0 "$basalt" iceberg scan "$tmp/nm" --format json &&
  check "Avro without ids, a mapping: only what it names" [ "$(cat "$tmp/out")" = "$(lines '{"a":null,"bee":"p"}' '{"a":null,"bee":null}')" ]

# ------------------------------------------------------------------ ORC
table "$tmp/orc" "$plain_schema" '{}' "[{\"src\": \"$tmp/plain.parquet\", \"format\": \"ORC\", \"rows\": 3}]"
expect 1 "$basalt" iceberg scan "$tmp/orc" && check "ORC: one line on stderr" one_line_stderr &&
  check "ORC: UNSUPPORTED, naming the file" grep -q "UNSUPPORTED: .*data/plain.parquet: ORC data files cannot be read" "$tmp/err"

finish
