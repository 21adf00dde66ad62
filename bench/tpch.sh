#!/usr/bin/env bash
# TPC-H side by side: basalt and DuckDB over the same Parquet files from
# basalt-tpchgen, 1 and 2 threads, warm-up + REPS timed runs per query
# (bench/peers/tpch_leg.mjs), p50 / p90 and basalt/DuckDB ratios.
# Usage: bash bench/tpch.sh SF [build dir] [reps] [qNN ...]
#   BASALT_TPCH_DATA       data directory (default /tmp/basalt-tpch-sf<SF>; the
#                          tables are generated there when missing)
#   BASALT_TPCH_THREADS    thread counts (default 1,2)
#   BASALT_TPCH_TIMEOUT    seconds a basalt run may take (default 300)
#   BASALT_TPCH_MEMORY_KB  address space a basalt run may take (default 4000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sf=${1:?usage: bash bench/tpch.sh SF [build dir] [reps] [qNN ...]}
build=${2:-$root/build-rel}
reps=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
data=${BASALT_TPCH_DATA:-/tmp/basalt-tpch-sf$sf}
if [ ! -f "$data/lineitem.parquet" ]; then
  "$build/bench/tpchgen/basalt-tpchgen" --scale "$sf" --out "$data" --threads 2
fi
cd "$root"
node bench/peers/tpch_leg.mjs "$build/tools/basalt/basalt" "$data" "$reps" \
  "${BASALT_TPCH_THREADS:-1,2}" "$@"
