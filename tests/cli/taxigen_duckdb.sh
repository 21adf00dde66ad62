#!/usr/bin/env bash
# The taxi generator against DuckDB: basalt-taxigen writes the 24 monthly
# files at BASALT_TAXI_ROWS rows (default 200k) with 2 threads, and
# tests/sql/taxigen_check.mjs checks them with DuckDB (schema and field ids,
# rows per month against manifest.json and the TLC split, pickups inside
# their month, row order, the flex rows' NULLs, whole cents and totals, the
# README's marginals). The same table from 1 thread must be byte-identical,
# and so must one month generated alone with --months, and a month of
# several chunks and row groups from 1 and 2 threads. Bad arguments exit 2.
#   BASALT_TAXI_ROWS  rows over the 24 months (default 200000)
#   BASALT_TAXIGEN    the generator (default: next to the build's basalt)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
rows=${BASALT_TAXI_ROWS:-200000}
gen=${BASALT_TAXIGEN:-$(cd "$(dirname "$basalt")/../.." && pwd)/bench/taxigen/basalt-taxigen}
checks=$((checks + 1))
if [ ! -x "$gen" ]; then
  echo "FAIL: the generator $gen is missing (build the basalt-taxigen target)"
  failures=$((failures + 1))
  finish
  exit
fi
generate() { # DIR THREADS ARGS...
  local dir=$1 threads=$2; shift 2
  if ! "$gen" --scale "$rows" --out "$dir" --threads "$threads" "$@" >"$tmp/gen.log" 2>&1; then
    echo "FAIL: basalt-taxigen --scale $rows $* --threads $threads failed"; sed 's/^/  /' "$tmp/gen.log"
    failures=$((failures + 1))
    return 1
  fi
}
if ! generate "$tmp/t2" 2; then
  finish
  exit
fi
# One line per file, then the summary.
check "one output line per month" [ "$(grep -c 'yellow_tripdata_20..-..\.parquet: ' "$tmp/gen.log")" = 24 ]

checks=$((checks + 1))
if ! node "$here/sql/taxigen_check.mjs" "$tmp/t2" "$rows" >"$tmp/check.log" 2>&1; then
  failures=$((failures + 1))
fi
cat "$tmp/check.log"

# Determinism: 1 thread, 2 threads and a month alone give the same bytes.
checks=$((checks + 1))
if generate "$tmp/t1" 1 && generate "$tmp/june" 2 --months 2024-06; then
  for f in "$tmp"/t2/*.parquet "$tmp/t2/manifest.json"; do
    if ! cmp -s "$f" "$tmp/t1/${f##*/}"; then
      echo "FAIL: ${f##*/} differs between 1 and 2 generator threads"
      failures=$((failures + 1))
      break
    fi
  done
  if ! cmp -s "$tmp/t2/yellow_tripdata_2024-06.parquet" "$tmp/june/yellow_tripdata_2024-06.parquet"; then
    echo "FAIL: --months 2024-06 differs from the same month of the full run"
    failures=$((failures + 1))
  fi
  check "--months writes only that month" [ "$(ls "$tmp/june"/*.parquet | wc -l)" = 1 ]
fi
# At the scale above a month is one chunk of rows, made by one thread; a
# month of several chunks (the generator's 65536 rows) in several row groups
# makes the threads share the work.
checks=$((checks + 1))
big=(--scale 4M --months 2024-06 --row-group 50000)
if ! "$gen" "${big[@]}" --threads 1 --out "$tmp/big1" >"$tmp/gen.log" 2>&1 ||
   ! "$gen" "${big[@]}" --threads 2 --out "$tmp/big2" >>"$tmp/gen.log" 2>&1; then
  echo "FAIL: basalt-taxigen ${big[*]} failed"; sed 's/^/  /' "$tmp/gen.log"
  failures=$((failures + 1))
elif ! cmp -s "$tmp/big1/yellow_tripdata_2024-06.parquet" "$tmp/big2/yellow_tripdata_2024-06.parquet"; then
  echo "FAIL: ${big[*]}: the file differs between 1 and 2 generator threads"
  failures=$((failures + 1))
fi

# Usage errors: one line on stderr, exit 2, nothing written.
for args in "--scale 10" "--scale 1.5M7" "--months 2025-01" "--threads 0" "--zstd-level 99" "--frobnicate 1"; do
  # shellcheck disable=SC2086
  if expect 2 "$gen" $args --out "$tmp/bad"; then
    check "'$args': one error line" [ "$(wc -l <"$tmp/err")" -eq 1 ]
  fi
done
check "usage errors write nothing" [ ! -e "$tmp/bad" ]
expect 0 "$gen" --help && check "--help names every option" \
  grep -q -- '--scale.*--out.*--months.*--threads.*--row-group.*--zstd-level' <(tr '\n' ' ' <"$tmp/out")
finish
