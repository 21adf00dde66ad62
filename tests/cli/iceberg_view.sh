#!/usr/bin/env bash
# basalt iceberg view: create, show, list, replace, rename, drop in a SQLite
# catalog (rows and metadata files read back with sqlite3 and python3, not
# with basalt), tables and views kept apart; then the same verbs against a
# minimal REST catalog written from the OpenAPI document
# (tests/catalog/mini_rest_server.py) and against `basalt catalog serve`.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
# json FILE EXPR: a value of a JSON document, EXPR applied to `d`.
json() { "$py" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --------------------------------------------------------------- SQLite
db=$tmp/cat.db
cat="--catalog sqlite:$db"
expect 0 "$basalt" iceberg view --help && check "the group lists its verbs" grep -q '^  replace' "$tmp/out"
expect 2 "$basalt" iceberg view create db.v --sql 'SELECT 1' $cat
check "--schema is required, one line" one_line_stderr
expect 2 "$basalt" iceberg view create db.v --sql 'SELECT 1' --schema 'x int' --property novalue $cat
expect 0 "$basalt" iceberg create db.t --schema 'id long, name string' $cat
expect 0 "$basalt" iceberg view create db.v --sql 'SELECT id, name FROM db.t' \
  --schema 'id long, name string' --property owner=ann $cat &&
  check "created at version 1" grep -q "created db.v: version 1 at $tmp/db/v/metadata/00000-" "$tmp/out"
meta1=$(ls "$tmp"/db/v/metadata/00000-*.metadata.json)
check "the row is a VIEW row" test "$(sqlite3 "$db" "SELECT iceberg_type FROM iceberg_tables WHERE table_name = 'v'")" = VIEW
check "pointing at the file" test "$(sqlite3 "$db" "SELECT metadata_location FROM iceberg_tables WHERE table_name = 'v'")" = "$meta1"
check "the table row stays a table" test "$(sqlite3 "$db" "SELECT coalesce(iceberg_type, 'NULL') FROM iceberg_tables WHERE table_name = 't'")" = NULL
check "the file: the SQL" test "$(json "$meta1" 'd["versions"][0]["representations"][0]["sql"]')" = 'SELECT id, name FROM db.t'
check "the file: dialect spark" test "$(json "$meta1" 'd["versions"][0]["representations"][0]["dialect"]')" = spark
check "the file: default namespace db" test "$(json "$meta1" 'd["versions"][0]["default-namespace"]')" = "['db']"
check "the file: the property" test "$(json "$meta1" 'd["properties"]["owner"]')" = ann
expect 0 "$basalt" iceberg view show db.v $cat &&
  check "show: the SQL" grep -q 'SELECT id, name FROM db.t' "$tmp/out" &&
  check "show: the columns" grep -qE '^  2 +name +string' "$tmp/out"
expect 0 "$basalt" iceberg view list $cat && check "list: only the view" test "$(cat "$tmp/out")" = db.v
expect 0 "$basalt" iceberg tables $cat && check "tables: only the table" test "$(cat "$tmp/out")" = db.t
expect 1 "$basalt" iceberg view create db.t --sql 'SELECT 1' --schema 'x int' $cat &&
  check "a table's name: CONFLICT" grep -q CONFLICT "$tmp/err" && check "one line" one_line_stderr
expect 1 "$basalt" iceberg create db.v --schema 'x int' $cat &&
  check "a view's name for a table: CONFLICT" grep -q CONFLICT "$tmp/err"
expect 1 "$basalt" iceberg describe db.v $cat
expect 1 "$basalt" iceberg view show db.t $cat && check "a table is no view: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"

expect 0 "$basalt" iceberg view replace db.v --sql 'SELECT id FROM db.t' --schema 'id long' \
  --dialect trino $cat && check "replaced: version 2" grep -q 'replaced db.v: version 2' "$tmp/out"
meta2=$(sqlite3 "$db" "SELECT metadata_location FROM iceberg_tables WHERE table_name = 'v'")
check "the second file" grep -q '/metadata/00001-' <<<"$meta2"
check "previous_metadata_location is the first" test "$(sqlite3 "$db" "SELECT previous_metadata_location FROM iceberg_tables WHERE table_name = 'v'")" = "$meta1"
check "two versions, two schemas" test "$(json "$meta2" 'len(d["versions"]), len(d["schemas"])')" = "(2, 2)"
check "the log: 1 then 2" test "$(json "$meta2" '[e["version-id"] for e in d["version-log"]]')" = "[1, 2]"
check "current: 2, trino" test "$(json "$meta2" 'd["current-version-id"], d["versions"][1]["representations"][0]["dialect"]')" = "(2, 'trino')"
expect 1 "$basalt" iceberg view replace db.nothing --sql 'SELECT 1' --schema 'x int' $cat

expect 0 "$basalt" iceberg namespaces $cat
expect 1 "$basalt" iceberg view rename db.v nowhere.v $cat
expect 1 "$basalt" iceberg view rename db.v db.t $cat && check "onto a table: CONFLICT" grep -q CONFLICT "$tmp/err"
expect 0 "$basalt" iceberg view rename db.v db.w $cat
expect 0 "$basalt" iceberg view list db $cat && check "renamed" test "$(cat "$tmp/out")" = db.w
expect 0 "$basalt" iceberg view show db.w --format json $cat
check "show --format json is the metadata" "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["metadata"]["current-version-id"] == 2' "$tmp/out"
expect 0 "$basalt" iceberg view drop db.w $cat
expect 1 "$basalt" iceberg view drop db.w $cat && check "dropped twice: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"
check "the files are kept" test -f "$meta2"
expect 1 "$basalt" iceberg view drop db.t $cat
expect 0 "$basalt" iceberg tables $cat && check "the table is still there" test "$(cat "$tmp/out")" = db.t

# ---------------------------------------------------------- REST catalogs
# The same verbs through a REST catalog: the minimal one written from the
# spec, then basalt's own server on a SQLite catalog.
rest_flow() { # NAME CATALOG-ARGS...
  local name=$1; shift
  expect 0 "$basalt" iceberg view create db.v --sql 'SELECT 1 AS id' --schema 'id long' "$@" &&
    check "$name: created" grep -q 'created db.v: version 1 at .*/db/v/metadata/00000-' "$tmp/out"
  expect 1 "$basalt" iceberg view create db.v --sql 'SELECT 1 AS id' --schema 'id long' "$@" &&
    check "$name: twice is CONFLICT (409)" grep -q 'CONFLICT.*409' "$tmp/err"
  expect 0 "$basalt" iceberg view replace db.v --sql 'SELECT 2 AS id' --schema 'id long' "$@" &&
    check "$name: replaced" grep -q 'replaced db.v: version 2' "$tmp/out"
  expect 0 "$basalt" iceberg view show db.v "$@" &&
    check "$name: the new SQL" grep -q 'SELECT 2 AS id' "$tmp/out" &&
    check "$name: the log" grep -qE '^version-log +1 2$' "$tmp/out"
  expect 0 "$basalt" iceberg view list db "$@" && check "$name: list" test "$(cat "$tmp/out")" = db.v
  expect 0 "$basalt" iceberg view rename db.v db.w "$@"
  expect 1 "$basalt" iceberg view show db.v "$@" && check "$name: renamed away" grep -q NOT_FOUND "$tmp/err"
  expect 0 "$basalt" iceberg view drop db.w "$@"
  expect 0 "$basalt" iceberg view list db "$@" && check "$name: none left" test ! -s "$tmp/out"
}
wh=$tmp/mini
mkdir -p "$wh"
if check "the minimal REST catalog starts" start_mini_rest --warehouse "$wh" --prefix p1; then
  mini="--catalog rest+http://127.0.0.1:$MINI_REST_PORT"
  expect 0 "$basalt" iceberg create db.t --schema 'id long' $mini
  rest_flow mini $mini
  check "mini: replaces went to the view route" \
    grep -q '"POST /v1/p1/namespaces/db/views/v HTTP' "$MINI_REST_LOG"
  check "mini: the server wrote the view's second file" \
    test -n "$(ls "$wh"/db/v/metadata/00001-*.metadata.json 2>/dev/null)"
fi
sdb=$tmp/served/catalog.db
if check "basalt catalog serve starts" start_basalt_catalog "$basalt" --catalog "sqlite:$sdb"; then
  served="--catalog rest+http://127.0.0.1:$BASALT_CATALOG_PORT"
  expect 0 "$basalt" iceberg create db.t --schema 'id long' $served
  rest_flow served $served
  expect 0 "$basalt" iceberg view create db.x --sql 'SELECT 3 AS id' --schema 'id long' $served
  expect 0 "$basalt" iceberg view list --catalog "sqlite:$sdb" &&
    check "served: the view is in the SQLite file" test "$(cat "$tmp/out")" = db.x
fi
finish
