#!/usr/bin/env bash
# Window functions side by side: basalt (bench_window.c, 1 and 2 threads) and
# DuckDB (bench/peers/query_window_leg.mjs) in one run.
# Usage: bash bench/query_window.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rel}
"$build/bench/basalt-bench" --only query/window/ --time 2
cd "$root" && node bench/peers/query_window_leg.mjs 1 5 && node bench/peers/query_window_leg.mjs 2 5
