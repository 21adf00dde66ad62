#!/usr/bin/env bash
# Parquet read: basalt against DuckDB and Polars on flat.parquet (1,000,000
# rows, int64 + double + two dictionary strings, uncompressed, 4 row groups),
# flat_zstd.parquet (the same rows, ZSTD), flat8.parquet (the same rows in 8
# row groups), mixed.parquet (100,000 rows of int64, double, string, bool and
# list<int32>, ~1% nulls, snappy, one row group) and mixed8.parquet (8 row
# groups), at 1 and 2 threads, interleaved: each round runs every leg once, so
# drift of the machine falls on all of them alike.
#
#   bench/parquet_read.sh [BASALT] [ROUNDS] [FILE...]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of legs (default 3)
#     FILE    names of the fixtures to read (default: all five)
#   BASALT_BENCH       basalt-bench of the same build (default: next to BASALT,
#                      ../../bench/basalt-bench); its machine verdict closes the run
#   BASALT_BENCH_DATA  where the files are (default $HOME/.cache/basalt-peers/data);
#                      they are generated there (bench/peers/gen_flat.mjs and
#                      gen_mixed.mjs) when missing.
#
# One-thread legs run pinned to one CPU (`taskset -c 1`) so that no engine
# borrows a second core for I/O or helpers; two-thread legs run unpinned.
# Each leg reads the file 20 times after 2 warm-up reads and reports the p50
# and p90 (nearest rank) of one read: basalt with `basalt parquet scan`
# (open, footer, every column of every row group into Arrow memory, strings
# materialised), the peers with bench/peers/parquet_read_leg.mjs (DuckDB: a
# materialised SELECT *; Polars: readParquet). The table gives the median
# over the rounds of each leg's p50 and p90, and basalt's p50 over the
# peer's. Then basalt-bench times the same reads on its own harness and
# prints its verdict on the machine (reference kernel drift, re-timed first
# benchmark, load average).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-3}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
harness=${BASALT_BENCH:-$(dirname "$basalt")/../../bench/basalt-bench}
names=("${@:3}")
[ ${#names[@]} -gt 0 ] || names=(flat.parquet flat_zstd.parquet flat8.parquet mixed.parquet mixed8.parquet)
files=()
for n in "${names[@]}"; do files+=("$data/$n"); done
if [ ! -x "$basalt" ]; then
  echo "parquet_read.sh: no basalt CLI at $basalt (build first, Release)" >&2
  exit 2
fi
for f in "${files[@]}"; do
  if [ ! -f "$f" ]; then
    echo "generating the fixtures in $data" >&2
    node "$root/bench/peers/gen_flat.mjs" "$data" >&2
    node "$root/bench/peers/gen_mixed.mjs" "$data" >&2
    break
  fi
done
pin() { # pin THREADS CMD...: one-thread legs on CPU 1, the others free
  if [ "$1" = 1 ]; then shift; taskset -c 1 "$@"; else shift; "$@"; fi
}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
for f in "${files[@]}"; do echo "file: $f ($(stat -c %s "$f") bytes)"; done
for round in $(seq 1 "$rounds"); do
  for f in "${files[@]}"; do
    name=$(basename "$f")
    for t in 1 2; do
      pin "$t" "$basalt" parquet scan "$f" --threads "$t" --repeat 20 --warmup 2 |
        awk -v t="$t" -v f="$name" '/^rows:/ {rows=$2} /^p50:/ {p50=$2} /^p90:/ {p90=$2}
          END {printf "%s basalt t=%s rows=%s p50=%s ms p90=%s ms  # basalt parquet scan\n", f, t, rows, p50, p90}' |
        tee -a "$results"
      (cd "$root/bench/peers" &&
        pin "$t" node --expose-gc parquet_read_leg.mjs --engine duckdb --file "$f" --threads "$t") |
        sed "s/^/$name /" | tee -a "$results"
      (cd "$root/bench/peers" && POLARS_MAX_THREADS=$t \
        pin "$t" node --expose-gc parquet_read_leg.mjs --engine polars --file "$f" --threads "$t") |
        sed "s/^/$name /" | tee -a "$results"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$results" <<'JS'
const fs = require('fs');
const legs = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  const m = /^(\S+) (\w+) t=(\d+) rows=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms/.exec(line);
  if (!m) continue;
  const key = `${m[1]} ${m[2]} ${m[3]}`;
  (legs[key] ??= { file: m[1], engine: m[2], t: m[3], rows: m[4], p50: [], p90: [] });
  legs[key].p50.push(Number(m[5]));
  legs[key].p90.push(Number(m[6]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const files = [...new Set(Object.values(legs).map((l) => l.file))];
console.log('\nfile                 engine  threads      rows   p50 ms   p90 ms   basalt p50 / engine p50');
const verdicts = [];
for (const f of files) {
  for (const t of ['1', '2']) {
    const ours = legs[`${f} basalt ${t}`];
    let fastest = null;
    for (const e of ['basalt', 'duckdb', 'polars']) {
      const l = legs[`${f} ${e} ${t}`];
      if (!l) continue;
      if (e !== 'basalt' && (!fastest || median(l.p50) < median(fastest.p50))) fastest = l;
      const ratio = ours && e !== 'basalt' ? (median(ours.p50) / median(l.p50)).toFixed(3) : '';
      console.log(`${f.padEnd(20)} ${e.padEnd(7)} ${t.padStart(7)} ${l.rows.padStart(9)} ${median(l.p50).toFixed(2).padStart(8)} ${median(l.p90).toFixed(2).padStart(8)}   ${ratio}`);
    }
    if (ours && fastest)
      verdicts.push(`${f} t=${t}: basalt ${median(ours.p50) < median(fastest.p50) ? 'faster' : 'NOT faster'} than the fastest peer (${fastest.engine}, ${(median(fastest.p50) / median(ours.p50)).toFixed(2)}x)`);
  }
}
console.log('');
for (const v of verdicts) console.log(v);
JS
if [ -x "$harness" ]; then
  echo
  echo "basalt-bench (one-thread cases pinned to CPU 1 like the legs above):"
  BASALT_BENCH_DATA=$data taskset -c 1 "$harness" --only parquet/read/flat/1t --only parquet/read/flat_zstd/1t
  BASALT_BENCH_DATA=$data "$harness" --only parquet/read/flat/2t --only parquet/read/flat_zstd/2t
else
  echo "no basalt-bench at $harness: no machine verdict" >&2
fi
