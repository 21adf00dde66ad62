#!/usr/bin/env bash
# Parquet write: basalt against DuckDB and Polars writing a table that is
# already in memory, at 1 and 2 threads, interleaved: each round runs every
# leg once, so drift of the machine falls on all of them alike.
#   flat   flat.parquet's 1,000,000 rows (int64, double, two strings with 100
#          and 10,000 distinct values), written uncompressed and snappy
#   mixed  mixed.parquet's 100,000 rows (int64, double, string, bool,
#          list<int32>, ~1% nulls), written snappy
#
#   bench/parquet_write.sh [BASALT] [ROUNDS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of legs (default 3)
#   BASALT_BENCH_DATA  where the fixtures are (default $HOME/.cache/basalt-peers/data);
#                      generated there (bench/peers/gen_flat.mjs, gen_mixed.mjs)
#                      when missing.
#
# One-thread legs run pinned to one CPU (`taskset -c 1`); two-thread legs run
# unpinned. Each leg reads the fixture into memory once, untimed, then times
# 10 whole writes after 1 warm-up write and reports the p50 and p90 (nearest
# rank) of one write and the size of the file: basalt with
# `basalt parquet rewrite IN OUT --codec C --repeat 10` (open, encode,
# compress, footer, into memory), the peers with
# bench/peers/parquet_write_leg.mjs (DuckDB: COPY t TO a file in /dev/shm;
# Polars: writeParquet to a file in /dev/shm), with the p50 of the CPU
# time (user + system, all threads) per write beside them: on a loaded
# machine it drifts less than the wall clock. Each engine writes with its
# own defaults (row groups, pages, dictionaries, statistics). basalt keeps
# the memory one write frees for the next (as allocators such as jemalloc
# do); the basalt_release leg is the same writes with `--keep-memory off`
# (freed memory given back to the system, faulted in again by the next
# write). The table gives the median over the rounds of each leg's p50, p90
# and CPU time, basalt's p50 and CPU time over the engine's and basalt's file
# size over the engine's; the verdict lines ask whether basalt is at least
# 1.5x faster than the fastest peer (also with --keep-memory off) and uses at
# most 1/1.5 of the CPU time of the leanest, whether its file is no more than
# 5% larger than the smallest peer's, and whether basalt at 2 threads beats
# basalt at 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-3}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
if [ ! -x "$basalt" ]; then
  echo "parquet_write.sh: no basalt CLI at $basalt (build first, Release)" >&2
  exit 2
fi
if [ ! -f "$data/flat.parquet" ] || [ ! -f "$data/mixed.parquet" ]; then
  echo "generating the fixtures in $data" >&2
  node "$root/bench/peers/gen_flat.mjs" "$data" >&2
  node "$root/bench/peers/gen_mixed.mjs" "$data" >&2
fi
# name file codec
cases=("flat $data/flat.parquet uncompressed" "flat $data/flat.parquet snappy"
       "mixed $data/mixed.parquet snappy")
pin() { # pin THREADS CMD...: one-thread legs on CPU 1, the others free
  if [ "$1" = 1 ]; then shift; taskset -c 1 "$@"; else shift; "$@"; fi
}
shm=/dev/shm
[ -d "$shm" ] || shm=${TMPDIR:-/tmp}
results=$(mktemp)
out=$shm/basalt-write-bench-$$.parquet
trap 'rm -f "$results" "$out"' EXIT
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
echo "basalt: $basalt"
for f in "$data/flat.parquet" "$data/mixed.parquet"; do
  echo "fixture: $f ($(stat -c %s "$f") bytes)"
done
for round in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    set -- $c
    name=$1 file=$2 codec=$3
    for t in 1 2; do
      pin "$t" "$basalt" parquet rewrite "$file" "$out" --codec "$codec" --threads "$t" \
          --repeat 10 --warmup 1 |
        awk -v t="$t" -v n="$name/$codec" '/^rows:/ {rows=$2} /^bytes:/ {bytes=$2}
          /^p50:/ {p50=$2} /^p90:/ {p90=$2} /^cpu p50:/ {cpu=$3}
          END {printf "%s basalt t=%s rows=%s bytes=%s p50=%s ms p90=%s ms cpu=%s ms  # basalt parquet rewrite --repeat\n", n, t, rows, bytes, p50, p90, cpu}' |
        tee -a "$results"
      # the same with freed memory given back to the system between writes
      pin "$t" "$basalt" parquet rewrite "$file" "$out" --codec "$codec" --threads "$t" \
          --repeat 10 --warmup 1 --keep-memory off |
        awk -v t="$t" -v n="$name/$codec" '/^rows:/ {rows=$2} /^bytes:/ {bytes=$2}
          /^p50:/ {p50=$2} /^p90:/ {p90=$2} /^cpu p50:/ {cpu=$3}
          END {printf "%s basalt_release t=%s rows=%s bytes=%s p50=%s ms p90=%s ms cpu=%s ms  # basalt parquet rewrite --repeat --keep-memory off\n", n, t, rows, bytes, p50, p90, cpu}' |
        tee -a "$results"
      rm -f "$out"
      for e in duckdb polars; do
        (cd "$root/bench/peers" && POLARS_MAX_THREADS=$t \
          pin "$t" node --expose-gc parquet_write_leg.mjs --engine "$e" --file "$file" \
            --codec "$codec" --threads "$t" --iters 10 --warmup 1) |
          sed "s|^|$name/$codec |" | tee -a "$results"
      done
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$results" <<'JS'
const fs = require('fs');
const legs = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  const m = /^(\S+) (\w+) t=(\d+) rows=(\d+) bytes=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms cpu=([\d.]+) ms/.exec(line);
  if (!m) continue;
  const key = `${m[1]} ${m[2]} ${m[3]}`;
  (legs[key] ??= { name: m[1], engine: m[2], t: m[3], rows: m[4], bytes: Number(m[5]), p50: [], p90: [], cpu: [] });
  legs[key].p50.push(Number(m[6]));
  legs[key].p90.push(Number(m[7]));
  legs[key].cpu.push(Number(m[8]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const names = [...new Set(Object.values(legs).map((l) => l.name))];
console.log('\ncase                 engine         threads      rows      bytes   p50 ms   p90 ms   cpu ms   basalt/engine p50   basalt/engine cpu   basalt/engine bytes');
const verdicts = [];
for (const n of names) {
  for (const t of ['1', '2']) {
    const ours = legs[`${n} basalt ${t}`];
    let fastest = null, smallest = null;
    for (const e of ['basalt', 'basalt_release', 'duckdb', 'polars']) {
      const l = legs[`${n} ${e} ${t}`];
      if (!l) continue;
      if (!e.startsWith('basalt')) {
        if (!fastest || median(l.p50) < median(fastest.p50)) fastest = l;
        if (!smallest || l.bytes < smallest.bytes) smallest = l;
      }
      const r = ours && e !== 'basalt' ? (median(ours.p50) / median(l.p50)).toFixed(3) : '';
      const c = ours && e !== 'basalt' ? (median(ours.cpu) / median(l.cpu)).toFixed(3) : '';
      const b = ours && e !== 'basalt' ? (ours.bytes / l.bytes).toFixed(3) : '';
      console.log(`${n.padEnd(20)} ${e.padEnd(14)} ${t.padStart(7)} ${l.rows.padStart(9)} ${String(l.bytes).padStart(10)} ${median(l.p50).toFixed(2).padStart(8)} ${median(l.p90).toFixed(2).padStart(8)} ${median(l.cpu).toFixed(2).padStart(8)}   ${r.padStart(17)}   ${c.padStart(17)}   ${b.padStart(19)}`);
    }
    const rel = legs[`${n} basalt_release ${t}`];
    if (rel && fastest) {
      const x = median(fastest.p50) / median(rel.p50);
      verdicts.push(`${n} t=${t}: basalt with --keep-memory off ${x >= 1.5 ? 'is' : 'is NOT'} >= 1.5x faster than the fastest peer (${fastest.engine}: ${x.toFixed(2)}x)`);
    }
    if (ours && fastest) {
      const x = median(fastest.p50) / median(ours.p50);
      verdicts.push(`${n} t=${t}: basalt ${x >= 1.5 ? 'is' : 'is NOT'} >= 1.5x faster than the fastest peer (${fastest.engine}: ${x.toFixed(2)}x)`);
      let leanest = null;
      for (const e of ['duckdb', 'polars']) {
        const l = legs[`${n} ${e} ${t}`];
        if (l && (!leanest || median(l.cpu) < median(leanest.cpu))) leanest = l;
      }
      const y = median(leanest.cpu) / median(ours.cpu);
      verdicts.push(`${n} t=${t}: basalt ${y >= 1.5 ? 'uses' : 'does NOT use'} <= 1/1.5 of the CPU time of the leanest peer (${leanest.engine}: ${y.toFixed(2)}x)`);
    }
    if (ours && smallest) {
      const s = ours.bytes / smallest.bytes;
      verdicts.push(`${n} t=${t}: basalt's file ${s <= 1.05 ? 'is' : 'is NOT'} within 5% of the smallest peer's (${smallest.engine}: ${s.toFixed(3)}x)`);
    }
  }
  const one = legs[`${n} basalt 1`], two = legs[`${n} basalt 2`];
  if (one && two)
    verdicts.push(`${n}: basalt at 2 threads ${median(two.p50) < median(one.p50) ? 'is' : 'is NOT'} faster than at 1 (${(median(one.p50) / median(two.p50)).toFixed(2)}x)`);
}
console.log('');
for (const v of verdicts) console.log(v);
JS
