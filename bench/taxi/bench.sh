#!/usr/bin/env bash
# make bench-taxi: taxibench at SCALE rows, basalt against DuckDB and Polars.
# The 24 monthly files are generated once into DATA/yellow-SCALE and loaded
# once into the Iceberg table taxi.trips of DATA/yellow-SCALE/warehouse
# (SQLite catalog); later runs reuse both. Then bench_taxi.mjs runs every
# (engine, threads, query) leg in its own process, interleaved, and diffs the
# answers (exit 1 on any disagreement). Results: DATA/results/.
#
#   bash bench/taxi/bench.sh BUILD SCALE DATA [bench_taxi.mjs options]
set -euo pipefail
build=$(cd "${1:?usage: bench.sh BUILD SCALE DATA [options]}" && pwd)
scale=${2:?scale}
data=${3:?data folder}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
dir=$data/yellow-$scale
catalog=sqlite:$dir/warehouse/catalog.db
mkdir -p "$dir" "$data/results"
if [ ! -f "$dir/manifest.json" ]; then
  "$build/bench/taxigen/basalt-taxigen" --scale "$scale" --out "$dir/source"
  mv "$dir/source/manifest.json" "$dir/manifest.json"
fi
if ! "$build/tools/basalt/basalt" iceberg describe taxi.trips --catalog "$catalog" >/dev/null 2>&1; then
  mkdir -p "$dir/warehouse"
  bash "$here/load.sh" "$dir/source" --catalog "$catalog" --basalt "$build/tools/basalt/basalt"
fi
out=$data/results/taxi-$scale-$(date +%Y%m%d-%H%M%S).json
node "$here/bench_taxi.mjs" --build "$build" --catalog "$catalog" --out "$out" "$@"
echo "records: $out"
