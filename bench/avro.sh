#!/usr/bin/env bash
# Avro manifest decoding: basalt against avro-c (in basalt-bench, interleaved
# by the harness) and avsc (node), one thread pinned to one CPU, in rounds
# that alternate the two programs so that drift of the machine falls on both.
#
#   bench/avro.sh [BASALT_BENCH] [ROUNDS]
#     BASALT_BENCH  basalt-bench of an optimised build
#                   (default build/bench/basalt-bench)
#     ROUNDS        rounds (default 3)
#   BASALT_BENCH_AVRO_DIR  where basalt-bench writes the two files and their
#                          checksum for avsc (default $HOME/.cache/basalt-peers/avro)
#   AVRO_CPU               the CPU to pin to (default 1)
#
# A round runs `basalt-bench --only avro/manifest --json` (basalt plan-all,
# plan-two and values, avro-c, deflate inflation against libdeflate), then
# bench/peers/avro_avsc.mjs for each codec, API (Type#decode per record,
# BlockDecoder stream) and field set (all, two), 20 timed decodes after 3
# warm-up ones. The table gives the median over the rounds of each leg's p50
# and p90, records/s at p50, and the leg's p50 over basalt plan-all's p50 on
# the same codec (so 12.0 means basalt is 12 times faster), then the bar's
# checks and each round's machine verdict. Exit status 1 when a check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-$root/build/bench/basalt-bench}
rounds=${2:-3}
data=${BASALT_BENCH_AVRO_DIR:-$HOME/.cache/basalt-peers/avro}
cpu=${AVRO_CPU:-1}
if [ ! -x "$bench" ]; then
  echo "avro.sh: no basalt-bench at $bench (build first, Release)" >&2
  exit 2
fi
mkdir -p "$data"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin="taskset -c $cpu"
echo "$(nproc) cpus, pinned to cpu $cpu; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "gcc: $(cc --version | head -1); node $(node --version)"
for round in $(seq 1 "$rounds"); do
  echo "round $round: basalt-bench --only avro/manifest" >&2
  BASALT_BENCH_AVRO_DIR=$data $pin "$bench" --only avro/manifest --json >"$work/bench-$round.json"
  for codec in null deflate; do
    for api in decode stream; do
      for fields in all two; do
        (cd "$root/bench/peers" && $pin node avro_avsc.mjs --file "$data/manifest-$codec.avro" \
          --sums "$data/manifest-sums.json" --api "$api" --fields "$fields" --repeat 20 --warmup 3) |
          tee -a "$work/avsc.txt" >&2
      done
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$work" "$rounds" <<'JS'
const fs = require('fs');
const [dir, rounds] = [process.argv[2], Number(process.argv[3])];
const legs = new Map();
const add = (key, peer, codec, rows, p50, p90) => {
  if (!legs.has(key)) legs.set(key, { key, peer, codec, rows, p50: [], p90: [] });
  legs.get(key).p50.push(p50);
  legs.get(key).p90.push(p90);
};
const verdicts = [];
for (let r = 1; r <= rounds; r++) {
  const j = JSON.parse(fs.readFileSync(`${dir}/bench-${r}.json`, 'utf8'));
  for (const b of j.benchmarks) {
    if (b.status !== 'OK') throw new Error(`${b.name}: ${b.error}`);
    const m = /^avro\/manifest\/(null|deflate)\/(.*)$/.exec(b.name);
    add(`${m[1]}/${m[2]}`, b.peer, m[1], b.items_per_iter, b.p50_ns / 1e6, b.p90_ns / 1e6);
  }
  verdicts.push(j.machine.steady ? 'machine: steady' : `machine: NOT steady: ${j.machine.reason}`);
}
for (const line of fs.readFileSync(`${dir}/avsc.txt`, 'utf8').split('\n')) {
  const m = /^avsc codec=(\w+) api=(\w+) fields=(\w+) rows=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms  # (.*)$/.exec(line);
  if (m) add(`${m[1]}/avsc-${m[2]}-${m[3]}`, m[7], m[1], Number(m[4]), Number(m[5]), Number(m[6]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const p50 = (k) => median(legs.get(k).p50);
console.log(`\nmedian of ${rounds} rounds; ratio = leg p50 / basalt plan-all p50 (same codec)`);
console.log(`${'leg'.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'M rec/s'.padStart(8)} ${'ratio'.padStart(7)}  peer`);
for (const l of legs.values()) {
  const base = p50(`${l.codec}/plan-all`);
  const mp50 = median(l.p50);
  console.log(`${l.key.padEnd(34)} ${mp50.toFixed(2).padStart(8)} ${median(l.p90).toFixed(2).padStart(8)} ` +
    `${(l.rows / mp50 / 1e3).toFixed(2).padStart(8)} ${(mp50 / base).toFixed(2).padStart(7)}  ${l.peer}`);
}
const checks = [];
const check = (what, ok, value) => checks.push({ what, ok, value });
const all = p50('null/plan-all');
check('null plan-all >= 30 M records/s', 1e5 / all / 1e3 >= 30, `${(1e5 / all / 1e3).toFixed(1)} M/s`);
if (legs.has('null/avro-c-all'))
  check('null: avro-c p50 / basalt p50 >= 10', p50('null/avro-c-all') / all >= 10, (p50('null/avro-c-all') / all).toFixed(2));
else
  check('null: avro-c leg ran', false, 'basalt-bench built without avro-c');
const avsc = Math.min(p50('null/avsc-decode-all'), p50('null/avsc-stream-all'));
check('null: fastest avsc p50 / basalt p50 >= 3', avsc / all >= 3, (avsc / all).toFixed(2));
check('null: plan-two faster than plan-all', p50('null/plan-two') < p50('null/plan-all'),
  (p50('null/plan-two') / p50('null/plan-all')).toFixed(3));
const inf = p50('deflate/inflate-basalt') / p50('deflate/inflate-libdeflate');
check('deflate: basalt inflation within 10% of libdeflate', inf <= 1.10, inf.toFixed(3));
console.log('\nbar:');
for (const c of checks) console.log(`  ${c.ok ? 'met   ' : 'MISSED'} ${c.what}: ${c.value}`);
verdicts.forEach((v, i) => console.log(`round ${i + 1} ${v}`));
process.exitCode = checks.every((c) => c.ok) ? 0 : 1;
JS
