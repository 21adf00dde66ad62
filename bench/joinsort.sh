#!/usr/bin/env bash
# The join and sort legs side by side: basalt (bench/bench_joinsort.c) and
# DuckDB (bench/peers/joinsort_leg.mjs, the same rows from the same formulas)
# alternate per workload and thread count in one run, so that load on the
# machine falls on both. Usage:
#   bash bench/joinsort.sh [build dir] [H2O x rows] [workload substring] [seconds] [DuckDB reps]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rel}
rows=${2:-10000000}
filter=${3:-}
secs=${4:-2}
reps=${5:-10}
export BASALT_BENCH_H2O_ROWS=$rows
for w in 1m_x_500k 1m_x_500k_wide h2o_q1_small h2o_q2_medium h2o_q3_medium_left \
         h2o_q4_medium_string h2o_q5_big 1m_int_string top10_of_10m; do
  [[ -n $filter && $w != *"$filter"* ]] && continue
  for t in 1 2; do
    "$build/bench/basalt-bench" --only "/$w/${t}t" --time "$secs" 2>/dev/null | grep "^query/" || true
    (cd "$root" && node bench/peers/joinsort_leg.mjs "$t" "$reps" "$rows" "$w")
  done
done
