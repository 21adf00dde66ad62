#!/usr/bin/env bash
# Randomised differential test of the Parquet reader: DuckDB writes seeded
# random tables (tests/parquet/random_tables.mjs: every type it writes, nested
# to depth 3, nulls, random codec, row group size, page version, dictionary on
# or off), and `basalt parquet cat --format json` must print each exactly as
# tests/parquet/duckdb_json.mjs prints DuckDB's reading of it.
#   BASALT_RANDOM_SEED   seed (default 1); a failure prints the seed and file
#   BASALT_RANDOM_TABLES tables per run (default 200)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../parquet/random_tables.mjs
script=$here/../parquet/duckdb_json.mjs
if ! command -v node >/dev/null || ! (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  # make test installs the peers: there a missing peer is a failure.
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi

seed=${BASALT_RANDOM_SEED:-1}
count=${BASALT_RANDOM_TABLES:-200}
mkdir -p "$tmp/tables"
checks=$((checks + 1))
if ! node "$gen" "$seed" "$count" "$tmp/tables" >"$tmp/tables.txt" 2>"$tmp/gen.err"; then
  echo "FAIL: seed $seed: DuckDB could not write the tables: $(grep -m1 Error "$tmp/gen.err")"
  failures=$((failures + 1))
  finish
  exit
fi

# DuckDB reads every table in one process (FILE.duckdb.json or .err each):
# a process per table was most of the test's time.
files=()
for ((i = 0; i < count; i++)); do files+=("$tmp/tables/t$i.parquet"); done
node "$script" --each "${files[@]}" 2>"$tmp/duckdb_each.err" ||
  echo "FAIL: duckdb_json.mjs --each: $(head -1 "$tmp/duckdb_each.err")"

compared=0
for ((i = 0; i < count; i++)); do
  f=$tmp/tables/t$i.parquet
  what="seed $seed table t$i.parquet ($(grep -m1 "^t$i.parquet " "$tmp/tables.txt" | cut -d' ' -f2-))"
  checks=$((checks + 1))
  if [ ! -f "$f.duckdb.json" ]; then
    echo "FAIL: $what: DuckDB could not read it: $(head -1 "$f.duckdb.err" 2>/dev/null)"
    failures=$((failures + 1)); continue
  fi
  if ! "$basalt" parquet cat "$f" --format json >"$tmp/basalt.json" 2>"$tmp/basalt.err"; then
    echo "FAIL: $what: $(cat "$tmp/basalt.err")"
    failures=$((failures + 1)); continue
  fi
  if ! cmp -s "$f.duckdb.json" "$tmp/basalt.json"; then
    echo "FAIL: $what differs from DuckDB:"
    diff "$f.duckdb.json" "$tmp/basalt.json" | head -6 | cut -c1-300 | sed 's/^/  /'
    failures=$((failures + 1)); continue
  fi
  compared=$((compared + 1))
done
echo "seed $seed: $compared of $count tables identical to DuckDB"
finish
