#!/usr/bin/env bash
# Randomised differential test of the Parquet reader against Polars's writer:
# nodejs-polars writes seeded random tables (tests/parquet/random_tables_polars.mjs:
# every type it writes, lists, arrays and structs nested to depth 3, nulls at
# every level, random codec and level, row group size, data page size,
# statistics on or off, dictionary or plain by cardinality), and
# `basalt parquet cat --format json` must print each exactly as
# tests/parquet/polars_json.mjs prints Polars's own reading of it.
# Every column is compared with Polars itself: for every type Polars writes,
# basalt and Polars agree on the values and on their text (no column needs
# DuckDB or hyparquet as the reference instead).
#   BASALT_RANDOM_SEED   seed (default 1); a failure prints the seed and file
#   BASALT_RANDOM_TABLES tables per run (default 200)
# A failing table is rebuilt alone by
#   node tests/parquet/random_tables_polars.mjs SEED N+1 DIR   (file DIR/tN.parquet)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../parquet/random_tables_polars.mjs
script=$here/../parquet/polars_json.mjs
if ! command -v node >/dev/null ||
   ! (cd "$here/../parquet" && node -e "import('nodejs-polars').then(() => import('apache-arrow'))" 2>/dev/null); then
  echo "skipped: node, nodejs-polars or apache-arrow is not installed"
  # make test installs the peers: there a missing peer is a failure.
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi

seed=${BASALT_RANDOM_SEED:-1}
count=${BASALT_RANDOM_TABLES:-200}
mkdir -p "$tmp/tables"
checks=$((checks + 1))
if ! node "$gen" "$seed" "$count" "$tmp/tables" >"$tmp/tables.txt" 2>"$tmp/gen.err"; then
  echo "FAIL: seed $seed: Polars could not write the tables: $(grep -m1 Error "$tmp/gen.err")"
  failures=$((failures + 1))
  finish
  exit
fi

files=()
for ((i = 0; i < count; i++)); do files+=("$tmp/tables/t$i.parquet"); done
# One Polars process reads them all: t<i>.parquet.polars.json, or
# t<i>.parquet.polars.err with its error.
[ "$count" -gt 0 ] && node "$script" --each "${files[@]}" 2>"$tmp/polars.err"

compared=0
for ((i = 0; i < count; i++)); do
  f=$tmp/tables/t$i.parquet
  what="seed $seed table t$i.parquet ($(grep -m1 "^t$i.parquet " "$tmp/tables.txt" | cut -d' ' -f2- | cut -c1-400))"
  checks=$((checks + 1))
  if [ ! -f "$f.polars.json" ]; then
    echo "FAIL: $what: Polars could not read it: $(cat "$f.polars.err" 2>/dev/null || head -1 "$tmp/polars.err")"
    failures=$((failures + 1)); continue
  fi
  if ! "$basalt" parquet cat "$f" --format json >"$tmp/basalt.json" 2>"$tmp/basalt.err"; then
    echo "FAIL: $what: $(cat "$tmp/basalt.err")"
    failures=$((failures + 1)); continue
  fi
  if ! cmp -s "$f.polars.json" "$tmp/basalt.json"; then
    echo "FAIL: $what differs from Polars:"
    diff "$f.polars.json" "$tmp/basalt.json" | head -6 | cut -c1-300 | sed 's/^/  /'
    failures=$((failures + 1)); continue
  fi
  compared=$((compared + 1))
done
echo "seed $seed: $compared of $count tables identical to Polars"
finish
