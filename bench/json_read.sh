#!/usr/bin/env bash
# JSON-lines read: basalt against DuckDB on wide.json (1,000,000 records of 8
# keys: two BIGINTs, two DOUBLEs, a 5-char code, a city, a boolean, a date;
# written by DuckDB), at 1 and 2 threads, interleaved rounds.
#
#   bench/json_read.sh [BASALT] [ROUNDS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of legs (default 3)
#   BASALT_BENCH_DATA  where wide.json is (default $HOME/.cache/basalt-peers/data);
#                      made there by bench/peers/gen_wide_json.mjs when missing
#
# One-thread legs run pinned to one CPU (`taskset -c 1`); two-thread legs
# unpinned. basalt: `basalt json scan` (open, infer the types from 20480
# records, parse into Arrow batches, free), 10 reads after 2 warm-ups; DuckDB:
# bench/peers/json_read_leg.mjs (a materialised SELECT * FROM read_json_auto).
# The table gives the median over the rounds of each leg's p50 and p90 and
# DuckDB's p50 over basalt's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-3}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
file=$data/wide.json
if [ ! -x "$basalt" ]; then
  echo "json_read.sh: no basalt CLI at $basalt (build first, Release)" >&2
  exit 2
fi
if [ ! -f "$file" ]; then
  echo "generating $file" >&2
  (cd "$root/bench/peers" && node gen_wide_json.mjs "$data") >&2
fi
pin() { if [ "$1" = 1 ]; then shift; taskset -c 1 "$@"; else shift; "$@"; fi; }
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
echo "file: $file ($(stat -c %s "$file") bytes)"
for round in $(seq 1 "$rounds"); do
  for t in 1 2; do
    pin "$t" "$basalt" json scan "$file" --threads "$t" --repeat 10 --warmup 2 |
      awk -v t="$t" '/^rows:/ {rows=$2} /^p50:/ {p50=$2} /^p90:/ {p90=$2}
        END {printf "basalt t=%s rows=%s p50=%s ms p90=%s ms  # basalt json scan\n", t, rows, p50, p90}' |
      tee -a "$results"
    (cd "$root/bench/peers" && pin "$t" node --expose-gc json_read_leg.mjs --file "$file" --threads "$t") |
      tee -a "$results"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$results" <<'JS'
const fs = require('fs');
const legs = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  const m = /^(\w+) t=(\d+) rows=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms/.exec(line);
  if (!m) continue;
  const l = (legs[`${m[1]} ${m[2]}`] ??= { rows: m[3], p50: [], p90: [] });
  l.p50.push(Number(m[4]));
  l.p90.push(Number(m[5]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
console.log('\nengine  threads      rows   p50 ms   p90 ms   engine p50 / basalt p50');
for (const t of ['1', '2']) {
  const ours = legs[`basalt ${t}`];
  for (const e of ['basalt', 'duckdb']) {
    const l = legs[`${e} ${t}`];
    if (!l) continue;
    const ratio = ours && e !== 'basalt' ? (median(l.p50) / median(ours.p50)).toFixed(2) + 'x' : '';
    console.log(`${e.padEnd(7)} ${t.padStart(7)} ${l.rows.padStart(9)} ${median(l.p50).toFixed(1).padStart(8)} ${median(l.p90).toFixed(1).padStart(8)}   ${ratio}`);
  }
}
JS
