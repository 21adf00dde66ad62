#!/usr/bin/env bash
# Arrow IPC file reads: basalt mapped (zero-copy) and copied, against
# apache-arrow (JS) and Polars reading the same file, side by side.
#
#   bench/ipc_read.sh [BUILD] [ROWS] [ROUNDS]
#     BUILD   an optimised build directory (default build-release)
#     ROWS    rows of the one double column (default 8000000: 64 MB)
#     ROUNDS  timed runs of each peer leg (default 15)
#
# The file is written by Polars (bench/peers/ipc_read_leg.mjs gen), kept in
# /dev/shm for the run. Every leg reads the whole file and sums
# the column:
#   ipc/read/mapped[-open]  basalt-bench, 1 thread: mmap, buffers point into
#                           the mapping (-open: the reader and mapping kept)
#   ipc/read/copied[-open]  basalt-bench, 1 thread: pread into owned memory
#   apache-arrow     tableFromIPC(readFileSync(file)), then a JS loop, 1 thread
#   polars           readIPC(file) then sum, Polars' own thread pool
# basalt's legs are timed by the harness (p50/p90 over calibrated samples),
# the peers in-process over ROUNDS runs after one warm-up (p50/p90).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-release}
rows=${2:-8000000}
rounds=${3:-15}
work=$(mktemp -d /dev/shm/basalt-ipc-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
file=$work/x.arrow
node "$root/bench/peers/ipc_read_leg.mjs" gen "$file" "$rows"
echo "fixture: $file ($(stat -c %s "$file") bytes, $rows doubles, written by Polars)"
BASALT_BENCH_IPC_FILE=$file "$build/bench/basalt-bench" --only ipc/read
for leg in arrow polars; do
  node "$root/bench/peers/ipc_read_leg.mjs" $leg "$file" "$rounds"
done
