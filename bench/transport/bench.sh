#!/usr/bin/env bash
# One column of an Iceberg table read fully by a consumer process, through
# each transport, legs interleaved pass by pass (docs/PERFORMANCE.md,
# "Tables to other processes"):
#   inproc      the control: the scan's C stream in the consumer, one thread
#   flight      `basalt flight serve` (pinned to CPU 0) to a client on CPU 1:
#               GetFlightInfo, then DoGet of every endpoint in order
#   shm         the same server's shared-memory socket (--shm-socket): the
#               endpoints' tickets, each split's segment mapped read-only
#   ipc-mapped  an IPC file of the column, mapped (zero copy)
#   ipc-copied  the same file read into memory
# Every leg prints the column's sum, which must agree across legs.
#
#   bash bench/transport/bench.sh BUILD CATALOG_URI [TABLE] [COLUMN] [--passes N]
set -euo pipefail
build=${1:?usage: bench.sh BUILD CATALOG_URI [TABLE] [COLUMN] [--passes N]}
catalog=${2:?catalog URI}
table=${3:-taxi.trips}
column=${4:-fare_amount}
passes=5
[ "${5:-}" = --passes ] && passes=${6:-5}
basalt=$build/tools/basalt/basalt
tb=$build/bench/transport/basalt-transportbench
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

taskset -c 0 "$basalt" flight serve --catalog "$catalog" --port 0 --shm-socket "$tmp/shm.sock" \
  >"$tmp/flight.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$tmp/flight.out" 2>/dev/null && break; sleep 0.1; done
uri=$(sed -n 's/^listening on \(grpc:.*\)$/\1/p' "$tmp/flight.out")
"$tb" write-ipc --catalog "$catalog" --table "$table" --column "$column" --file "$tmp/col.arrow"

legs=(inproc flight shm ipc-mapped ipc-copied)
run_leg() {
  case $1 in
    inproc) taskset -c 1 "$tb" inproc --catalog "$catalog" --table "$table" --column "$column" ;;
    flight) taskset -c 1 "$tb" flight --uri "$uri" --table "$table" --column "$column" ;;
    shm) taskset -c 1 "$tb" shm --uri "$uri" --table "$table" --column "$column" ;;
    ipc-mapped) taskset -c 1 "$tb" ipc --file "$tmp/col.arrow" ;;
    ipc-copied) taskset -c 1 "$tb" ipc --file "$tmp/col.arrow" --copy ;;
  esac
}
# A warm-up pass (page cache, the server's plan cache), then the timed ones
# with the leg order rotated each pass.
for leg in "${legs[@]}"; do run_leg "$leg" >/dev/null; done
for ((p = 0; p < passes; p++)); do
  n=${#legs[@]}
  for ((i = 0; i < n; i++)); do
    run_leg "${legs[$(((i + p) % n))]}" >>"$tmp/runs.jsonl"
  done
done
echo "$(wc -l <"$tmp/runs.jsonl") runs of ${#legs[@]} legs, one column ($column of $table)"
awk -F'[:,}]' '
  { for (i = 1; i <= NF; i++) { gsub(/[ "{]/, "", $i) }
    leg = $2; rows[leg] = $4; sum[leg] = $6; bytes[leg] = $8; t[leg, ++n[leg]] = $10 + 0 }
  END {
    for (leg in n) {
      m = n[leg]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
        if (t[leg, j] < t[leg, i]) { x = t[leg, i]; t[leg, i] = t[leg, j]; t[leg, j] = x }
      p50[leg] = t[leg, int((m + 1) / 2)]; p90[leg] = t[leg, int(m * 0.9 + 0.999)]
    }
    printf "%-11s %12s %14s %10s %10s %12s\n", "leg", "rows", "MB", "p50 ms", "p90 ms", "vs inproc"
    for (leg in n)
      printf "%-11s %12d %14.1f %10.1f %10.1f %11.2fx\n", leg, rows[leg], bytes[leg] / 1e6,
             p50[leg], p90[leg], p50[leg] / p50["inproc"]
    for (leg in n) if (sum[leg] != sum["inproc"]) { print "sums differ: " leg; bad = 1 }
    exit bad
  }' "$tmp/runs.jsonl"
