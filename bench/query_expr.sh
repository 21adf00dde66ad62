#!/usr/bin/env bash
# The seed's expression workloads side by side: basalt (bench_query.c, one
# thread) and DuckDB / Polars timed in-process by bench/peers/query_expr_leg.mjs,
# in one run.  Usage: bash bench/query_expr.sh [build dir] [threads]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rel}
threads=${2:-1}
"$build/bench/basalt-bench" --only query/ --time 2
cd "$root" && POLARS_MAX_THREADS=$threads node bench/peers/query_expr_leg.mjs "$threads" 30
