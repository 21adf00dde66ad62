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

finish
