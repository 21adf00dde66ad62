#!/usr/bin/env bash
# H2O db-benchmark answers against DuckDB and Polars: basalt-h2ogen writes the
# group-by table (BASALT_H2O_ROWS rows, default 1e5, K=100, 5% NAs) and the
# join tables at the same size, whose shapes tests/sql/h2ogen_check.mjs checks
# against the R generators' rules with DuckDB (plus a --sort 1 table at a
# tenth of the rows: the same rows, ordered), and which must be
# byte-identical from 1 and 2 generator threads; then
# tests/sql/h2o_differential.mjs runs the 15 queries of
# tests/sql/queries/h2o (groupby_q1..q10, join_q1..q5) through
# `basalt sql -f` (1 and 2 threads, byte-identical), DuckDB and Polars
# (tests/sql/h2o_polars.mjs) over the same files and compares the rows
# (as Parquet files, inside DuckDB: tests/sql/parquet_compare.mjs, itself
# checked first by tests/sql/parquet_compare_check.mjs). One
# line per query: OK, MISMATCH, ERROR (basalt failed), EMPTY, PEER (DuckDB
# and Polars disagree), or KNOWN for the queries listed below, failing on the
# engine's account; a listed query that passes fails the case until it is
# taken off the list.
#   BASALT_H2O_ROWS        rows of x and big (default 1e5)
#   BASALT_H2O_KNOWN_FAIL  queries expected to fail (default: none; list
#                          engine gaps here with their exact errors)
#   BASALT_H2OGEN          the generator (default: next to the build's basalt)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
export BASALT_H2O_KNOWN_FAIL=${BASALT_H2O_KNOWN_FAIL-}
# Polars' thread count is fixed when it loads; the machines are shared.
export POLARS_MAX_THREADS=${POLARS_MAX_THREADS:-2}
rows=${BASALT_H2O_ROWS:-1e5}
sorted_rows=$(node -e "console.log(Math.max(10, Math.floor(Number('$rows') / 10)))")
gen=${BASALT_H2OGEN:-$(cd "$(dirname "$basalt")/../.." && pwd)/bench/h2ogen/basalt-h2ogen}
checks=$((checks + 1))
if [ ! -x "$gen" ]; then
  echo "FAIL: the generator $gen is missing (build the basalt-h2ogen target)"
  failures=$((failures + 1))
  finish
  exit
fi
generate() { # DIR THREADS ARGS...
  local dir=$1 threads=$2; shift 2
  if ! "$gen" "$@" --out "$dir" --threads "$threads" >"$tmp/gen.log" 2>&1; then
    echo "FAIL: basalt-h2ogen $* --threads $threads failed"; sed 's/^/  /' "$tmp/gen.log"
    failures=$((failures + 1))
    return 1
  fi
}
if ! generate "$tmp/groupby" 2 --rows "$rows" --k 100 --nas 5 ||
   ! generate "$tmp/join" 2 --join --rows "$rows" ||
   ! generate "$tmp/sorted" 2 --rows "$sorted_rows" --k 100 --nas 5 --sort 1; then
  finish
  exit
fi
# The generator: the R scripts' shapes, and the same bytes from one thread as
# from two (the sorted table too: its order is drawn before the rows).
checks=$((checks + 1))
if ! generate "$tmp/unsorted" 2 --rows "$sorted_rows" --k 100 --nas 5; then
  :
elif ! { node "$here/sql/h2ogen_check.mjs" groupby "$tmp/groupby" "$rows" 100 5 &&
         node "$here/sql/h2ogen_check.mjs" groupby "$tmp/unsorted" "$sorted_rows" 100 5 "$tmp/sorted" &&
         node "$here/sql/h2ogen_check.mjs" join "$tmp/join" "$rows"; } >"$tmp/check.log" 2>&1; then
  failures=$((failures + 1))
fi
cat "$tmp/check.log" 2>/dev/null
checks=$((checks + 1))
if generate "$tmp/groupby1" 1 --rows "$rows" --k 100 --nas 5 &&
   generate "$tmp/join1" 1 --join --rows "$rows" &&
   generate "$tmp/sorted1" 1 --rows "$sorted_rows" --k 100 --nas 5 --sort 1; then
  for f in groupby/x join/x join/small join/medium join/big sorted/x; do
    if ! cmp -s "$tmp/$f.parquet" "$tmp/${f%/*}1/${f#*/}.parquet"; then
      echo "FAIL: $f.parquet differs between 1 and 2 generator threads"
      failures=$((failures + 1))
      break
    fi
  done
fi
# The file comparison the differential relies on, on files made to agree
# and to differ.
checks=$((checks + 1))
if ! node "$here/sql/parquet_compare_check.mjs" "$tmp/compare" >"$tmp/compare.log" 2>&1; then
  failures=$((failures + 1))
  cat "$tmp/compare.log"
fi
checks=$((checks + 1))
if ! node "$here/sql/h2o_differential.mjs" "$basalt" "$tmp/groupby" "$tmp/join" "$tmp/work" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
cut -c1-300 "$tmp/log"
finish
