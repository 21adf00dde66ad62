#!/usr/bin/env bash
# H2O db-benchmark side by side: basalt, DuckDB and Polars over the same
# Parquet files from basalt-h2ogen (the group-by table G1_<rows>_<K>_<NAS>_0
# and the join tables x, small, medium, big), 1 and 2 threads, warm-up + REPS
# timed runs per query (bench/peers/h2o_leg.mjs), p50 / p90, basalt's peak RSS,
# ratios per query and the geometric mean per suite.
# Usage: bash bench/h2o.sh [rows] [build dir] [reps] [name ...]
#   rows                   default 1e7
#   BASALT_H2O_DATA        data directory (default /tmp/basalt-h2o-<rows>; the
#                          tables are generated there when missing)
#   BASALT_H2O_K           groups K (default 100); BASALT_H2O_NAS NA % (default 0)
#   BASALT_H2O_THREADS     thread counts (default 1,2)
#   BASALT_H2O_TIMEOUT     seconds a basalt run may take (default 600)
#   BASALT_H2O_MEMORY_KB   address space a basalt run may take (default 8000000)
#   BASALT_H2O_BIG=1       afterwards, the group-by queries at 1e8 rows through
#                          basalt alone with --memory-limit 2GB, one run each at
#                          2 threads, peak RSS reported (data in
#                          BASALT_H2O_BIG_DATA, default /tmp/basalt-h2o-1e8, about
#                          1.2 GB; address space capped at BASALT_H2O_BIG_MEMORY_KB,
#                          default 6000000, so a query that ignores the limit fails
#                          instead of taking the machine)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rows=${1:-1e7}
build=${2:-$root/build-rel}
reps=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
gen=$build/bench/h2ogen/basalt-h2ogen
k=${BASALT_H2O_K:-100}
nas=${BASALT_H2O_NAS:-0}
data=${BASALT_H2O_DATA:-/tmp/basalt-h2o-$rows}
if [ ! -f "$data/groupby/x.parquet" ]; then
  "$gen" --rows "$rows" --k "$k" --nas "$nas" --out "$data/groupby" --threads 2
fi
if [ ! -f "$data/join/big.parquet" ]; then
  "$gen" --join --rows "$rows" --out "$data/join" --threads 2
fi
cd "$root"
node --expose-gc bench/peers/h2o_leg.mjs "$build/tools/basalt/basalt" "$data/groupby" "$data/join" "$reps" \
  "${BASALT_H2O_THREADS:-1,2}" "$@"
if [ "${BASALT_H2O_BIG:-0}" = 1 ]; then
  big=${BASALT_H2O_BIG_DATA:-/tmp/basalt-h2o-1e8}
  if [ ! -f "$big/groupby/x.parquet" ]; then
    "$gen" --rows 1e8 --k "$k" --nas "$nas" --out "$big/groupby" --threads 2
  fi
  echo
  BASALT_H2O_PEERS=0 BASALT_H2O_BASALT_ARGS="--memory-limit 2GB" \
    BASALT_H2O_MEMORY_KB=${BASALT_H2O_BIG_MEMORY_KB:-6000000} \
    node --expose-gc bench/peers/h2o_leg.mjs "$build/tools/basalt/basalt" "$big/groupby" "$big/groupby" 0 2 \
    groupby_q1 groupby_q2 groupby_q3 groupby_q4 groupby_q5 groupby_q6 groupby_q7 groupby_q8 groupby_q9 groupby_q10
fi
