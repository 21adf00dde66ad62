#!/usr/bin/env bash
# CSV read: basalt against DuckDB and Polars on wide.csv (1,000,000 rows + a
# header of 8 columns: int64, int32, two doubles, a 5-char code, a city, a
# quoted note holding a comma, a boolean; 54.7 MB), at 1 and 2 threads,
# interleaved: each round runs every leg once, so drift of the machine falls
# on all of them alike.
#
#   bench/csv_read.sh [BASALT] [ROUNDS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of legs (default 3)
#   BASALT_BENCH       basalt-bench of the same build (default: next to BASALT,
#                      ../../bench/basalt-bench); it times csv/read/wide on its
#                      harness at the end and gives its verdict on the machine
#   BASALT_BENCH_DATA  where wide.csv is (default $HOME/.cache/basalt-peers/data);
#                      made there by bench/peers/gen_wide_csv.mjs when missing
#
# One-thread legs run pinned to one CPU (`taskset -c 1`); two-thread legs run
# unpinned. Each leg reads the file 20 times after 2 warm-up reads and
# reports the p50 and p90 (nearest rank) of one read, sniffing included:
# basalt with `basalt csv scan` (open, sniff dialect/header/types, parse into
# Arrow batches, free), the peers with bench/peers/csv_read_leg.mjs (DuckDB:
# a materialised SELECT * FROM read_csv; Polars: readCSV). The table gives
# the median over the rounds of each leg's p50 and p90, and each peer's p50
# over basalt's (the bar: at least 1.2 against Polars at both thread counts).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-3}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
harness=${BASALT_BENCH:-$(dirname "$basalt")/../../bench/basalt-bench}
file=$data/wide.csv
if [ ! -x "$basalt" ]; then
  echo "csv_read.sh: no basalt CLI at $basalt (build first, Release)" >&2
  exit 2
fi
if [ ! -f "$file" ]; then
  echo "generating $file" >&2
  node "$root/bench/peers/gen_wide_csv.mjs" "$data" >&2
fi
pin() { # pin THREADS CMD...: one-thread legs on CPU 1, the others free
  if [ "$1" = 1 ]; then shift; taskset -c 1 "$@"; else shift; "$@"; fi
}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
echo "file: $file ($(stat -c %s "$file") bytes)"
for round in $(seq 1 "$rounds"); do
  for t in 1 2; do
    pin "$t" "$basalt" csv scan "$file" --threads "$t" --repeat 20 --warmup 2 |
      awk -v t="$t" '/^rows:/ {rows=$2} /^p50:/ {p50=$2} /^p90:/ {p90=$2}
        END {printf "basalt t=%s rows=%s p50=%s ms p90=%s ms  # basalt csv scan\n", t, rows, p50, p90}' |
      tee -a "$results"
    (cd "$root/bench/peers" &&
      pin "$t" node --expose-gc csv_read_leg.mjs --engine duckdb --file "$file" --threads "$t") |
      tee -a "$results"
    (cd "$root/bench/peers" && POLARS_MAX_THREADS=$t \
      pin "$t" node --expose-gc csv_read_leg.mjs --engine polars --file "$file" --threads "$t") |
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
  const key = `${m[1]} ${m[2]}`;
  (legs[key] ??= { engine: m[1], t: m[2], rows: m[3], p50: [], p90: [] });
  legs[key].p50.push(Number(m[4]));
  legs[key].p90.push(Number(m[5]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
console.log('\nengine  threads      rows   p50 ms   p90 ms   engine p50 / basalt p50');
const verdicts = [];
for (const t of ['1', '2']) {
  const ours = legs[`basalt ${t}`];
  for (const e of ['basalt', 'duckdb', 'polars']) {
    const l = legs[`${e} ${t}`];
    if (!l) continue;
    const ratio = ours && e !== 'basalt' ? (median(l.p50) / median(ours.p50)).toFixed(2) + 'x' : '';
    console.log(`${e.padEnd(7)} ${t.padStart(7)} ${l.rows.padStart(9)} ${median(l.p50).toFixed(1).padStart(8)} ${median(l.p90).toFixed(1).padStart(8)}   ${ratio}`);
  }
  const polars = legs[`polars ${t}`];
  if (ours && polars) {
    const r = median(polars.p50) / median(ours.p50);
    verdicts.push(`t=${t}: basalt ${r.toFixed(2)}x Polars: ${r >= 1.2 ? 'bar met' : 'bar MISSED'} (at least 1.2x)`);
  }
}
console.log('');
for (const v of verdicts) console.log(v);
JS
if [ -x "$harness" ]; then
  echo
  echo "basalt-bench (the one-thread case pinned to CPU 1 like the legs above):"
  BASALT_BENCH_DATA=$data taskset -c 1 "$harness" --only csv/read/wide/1t
  BASALT_BENCH_DATA=$data "$harness" --only csv/read/wide/2t
else
  echo "no basalt-bench at $harness: no machine verdict" >&2
fi
