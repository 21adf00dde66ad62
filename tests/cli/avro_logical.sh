#!/usr/bin/env bash
# basalt avro cat prints Avro logical types (decimal on bytes and fixed, uuid,
# date, time-millis/micros, timestamp-millis/micros/nanos, local-timestamp-*,
# Iceberg's "adjust-to-utc": false, duration) as basalt parquet cat prints the
# same values, in every format
# and through --fields; --raw keeps the Avro JSON encoding. The file is
# written by python3-avro (tests/avro/pyavro_logical.py), which also gives the
# expected text from its own decoded values; DuckDB writes some of the same
# values to Parquet for basalt parquet cat.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/../avro" && pwd)
py=/usr/bin/python3

if ! "$py" -c 'import avro' 2>/dev/null; then
  echo "skipped: python3-avro is missing"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "python3-avro available" false
  finish
  exit $?
fi
canon() { "$py" "$here/canon_json.py"; }
same_lines() { cmp -s "$1" "$2" || { diff "$1" "$2" | head -5; return 1; }; }

f=$tmp/logical.avro
"$py" "$here/pyavro_logical.py" write "$f"
"$py" "$here/pyavro_logical.py" expect "$f" >"$tmp/want"
check "python3-avro reads its file ($(wc -l <"$tmp/want") records)" [ "$(wc -l <"$tmp/want")" = 203 ]

expect 0 "$basalt" avro cat --format json "$f" && canon <"$tmp/out" >"$tmp/ours" &&
  check "json: logical types as python3-avro decodes them, in parquet cat's forms" same_lines "$tmp/ours" "$tmp/want"

# --fields goes through the compiled plan (slots, and the raw datum of the
# union of several types)
fields=id,d,dec,fdec,wide,tm,tu,tsm,tsu,tsn,its,ltm,ltu,ltn,su,fu,dur,dates,prices,rec,multi,raw
expect 0 "$basalt" avro cat --format json --fields "$fields" "$f" && canon <"$tmp/out" >"$tmp/ours" &&
  check "--fields json: the same" same_lines "$tmp/ours" "$tmp/want"
expect 0 "$basalt" avro cat --format json --fields rec.at,multi --limit 20 "$f" && canon <"$tmp/out" >"$tmp/ours"
"$py" -c 'import json,sys
for l in sys.stdin.readlines()[:20]:
    r = json.loads(l); print(json.dumps({"rec.at": r["rec"] and r["rec"]["at"], "multi": r["multi"]}))' \
  <"$tmp/want" | canon >"$tmp/cut"
check "--fields: a nested timestamp and a union with logical branches" same_lines "$tmp/ours" "$tmp/cut"

# table cells: the text without JSON quotes
expect 0 "$basalt" avro cat --limit 3 "$f" &&
  check "table: header" grep -qE '^id +d +dec +fdec ' "$tmp/out" &&
  check "table: a date, a decimal, a UTC and a local timestamp" \
    grep -qE '^0 +2024-02-29 +-12\.30 .* 2024-01-02T03:04:05\.678901Z .* 2024-01-02T03:04:05\.678901 ' "$tmp/out" &&
  check "table: year 1" grep -qE '^2 +0001-01-01 +9999999\.99 ' "$tmp/out"
expect 0 "$basalt" avro cat --limit 3 --fields dec,tsu "$f" &&
  check "--fields table" [ "$(sed -n 2p "$tmp/out" | tr -s ' ')" = "-12.30 2024-01-02T03:04:05.678901Z" ]

# --raw: the Avro JSON encoding, as python3-avro reads the file without its
# logical types
expect 0 "$basalt" avro cat --format json --raw "$f" && canon <"$tmp/out" >"$tmp/ours"
"$py" "$here/pyavro_dump.py" "$f" >"$tmp/python" 2>"$tmp/python_err"  # warns of the types it lacks
check "--raw: the underlying values" same_lines "$tmp/ours" "$tmp/python"
expect 0 "$basalt" avro cat --format json --raw --fields "$fields" "$f" && canon <"$tmp/out" >"$tmp/ours"
check "--raw --fields: the same" same_lines "$tmp/ours" "$tmp/python"
expect 0 "$basalt" avro cat --help && check "--help names --raw" grep -q -- '--raw' "$tmp/out"

# the same values in Parquet (DuckDB): basalt parquet cat prints them alike
pq=$(cd "$(dirname "$0")/../parquet" && pwd)
if command -v node >/dev/null && (cd "$pq" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  query=$("$py" "$here/pyavro_logical.py" duckdb)
  node "$pq/duckdb_query.mjs" - "SET TimeZone = 'UTC'; COPY ($query) TO '$tmp/same.parquet' (FORMAT parquet)" >/dev/null
  expect 0 "$basalt" parquet cat --format json "$tmp/same.parquet" && cp "$tmp/out" "$tmp/pq"
  expect 0 "$basalt" avro cat --format json --fields d,dec,tsu,ltu,tu --limit 3 "$f" &&
    check "avro cat and parquet cat print the same values alike" same_lines "$tmp/out" "$tmp/pq"
else
  echo "skipped the Parquet comparison: node or @duckdb/node-api is missing"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "DuckDB available" false
fi
finish
