#!/usr/bin/env bash
# Hash aggregation side by side: basalt (bench_agg.c, 1 and 2 threads) and
# DuckDB (bench/peers/query_agg_leg.mjs) in one run.
# Usage: bash bench/query_agg.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rel}
"$build/bench/basalt-bench" --only query/agg/ --time 2
cd "$root" && node bench/peers/query_agg_leg.mjs 1 10 && node bench/peers/query_agg_leg.mjs 2 10
