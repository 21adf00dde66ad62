#!/usr/bin/env bash
# Iceberg append against writing the same rows as one Parquet file: the
# overhead of the table (data files with field ids and metrics, a manifest,
# a manifest list, the metadata file and the catalog commit on SQLite).
#
#   bench/iceberg_append.sh [BASALT] [ROUNDS] [ROWS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds (default 5); each round runs every leg once, interleaved,
#             so the machine's drift falls on all legs alike
#     ROWS    rows of the taxi-shaped input (default 1000000)
#   BASALT_BENCH_DATA  where the input is kept (default $HOME/.cache/basalt-peers/data);
#                      made with bench/peers/gen_taxi_file.mjs when missing
#
# Legs, each a whole process (its wall and CPU time from /usr/bin/time), at
# 1 thread (pinned to CPU 1) and at 2 threads:
#   parquet  basalt parquet rewrite IN /dev/shm/x.parquet --threads N
#            (read the input, write one Parquet file)
#   append   basalt iceberg append db.taxi IN --threads N on a SQLite catalog
#            in /dev/shm (read the input, write the table's data files,
#            manifest, manifest list and metadata, commit)
# Both read the same input with the same reader, so the difference is the
# table's cost. The table prints the median over the rounds and the 90th
# percentile (nearest rank), and append's median over parquet's; the
# verdict asks for at most 1.1x.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-5}
rows=${3:-1000000}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
input=$data/taxi-$rows.parquet
[ -x "$basalt" ] || { echo "iceberg_append.sh: no basalt CLI at $basalt" >&2; exit 2; }
mkdir -p "$data"
if [ ! -f "$input" ]; then
  echo "generating $input" >&2
  node "$root/bench/peers/gen_taxi_file.mjs" "$input" "$rows" >&2
fi
work=$(mktemp -d /dev/shm/basalt-append-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat="--catalog sqlite:$work/wh/catalog.db"
"$basalt" iceberg create db.taxi --like "$input" $cat >/dev/null

# run LEG THREADS: appends "wall cpu" of one run to $work/LEG-THREADS.
run() {
  local leg=$1 threads=$2 pin=()
  [ "$threads" = 1 ] && pin=(taskset -c 1)
  local cmd
  if [ "$leg" = parquet ]; then
    cmd=("$basalt" parquet rewrite "$input" "$work/x.parquet" --threads "$threads")
  else
    cmd=("$basalt" iceberg append db.taxi "$input" --threads "$threads" $cat)
  fi
  /usr/bin/time -f '%e %U %S' -o "$work/time" "${pin[@]}" "${cmd[@]}" >/dev/null
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time" >>"$work/$leg-$threads"
}

for threads in 1 2; do
  run parquet "$threads"; run append "$threads"   # warm-up, not counted
  : >"$work/parquet-$threads"; : >"$work/append-$threads"
done
for ((r = 1; r <= rounds; r++)); do
  for threads in 1 2; do
    if ((r % 2)); then run parquet "$threads"; run append "$threads"
    else run append "$threads"; run parquet "$threads"; fi
  done
done

# stat FILE COLUMN: median and 90th percentile (nearest rank) of a column.
stat() {
  sort -g -k"$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
    END { m = int((NR + 1) / 2); p = int(NR * 0.9 + 0.999); if (p < 1) p = 1
          printf "%.3f %.3f", v[m], v[p] }'
}
echo "Iceberg append of $rows taxi-shaped rows against one Parquet file ($rounds rounds)"
printf '%-8s %-8s %12s %12s %12s %10s\n' threads leg "wall p50 s" "wall p90 s" "cpu p50 s" "vs parquet"
verdict=ok
for threads in 1 2; do
  read -r pw pw90 <<<"$(stat "$work/parquet-$threads" 1)"
  read -r pc _ <<<"$(stat "$work/parquet-$threads" 2)"
  read -r aw aw90 <<<"$(stat "$work/append-$threads" 1)"
  read -r ac _ <<<"$(stat "$work/append-$threads" 2)"
  ratio=$(awk -v a="$aw" -v p="$pw" 'BEGIN { printf "%.3f", a / p }')
  printf '%-8s %-8s %12s %12s %12s %10s\n' "$threads" parquet "$pw" "$pw90" "$pc" ""
  printf '%-8s %-8s %12s %12s %12s %9sx\n' "$threads" append "$aw" "$aw90" "$ac" "$ratio"
  awk -v r="$ratio" 'BEGIN { exit !(r <= 1.1) }' || verdict="MISSED"
done
echo "verdict: append at most 1.1x one Parquet file: $verdict"
