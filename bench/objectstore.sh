#!/usr/bin/env bash
# Object storage: basalt against moto_server on 127.0.0.1 (SigV4 checked),
# in three parts.
#
#  1. Requests and bytes of a projected read: 4 of the 19 columns of a
#     60 MiB taxi-shaped file (bench/peers/gen_taxi_file.mjs, DuckDB, ZSTD,
#     4 row groups), against what the read needs: the projected chunks plus
#     the footer (from the footer itself, as DuckDB's parquet_metadata sees
#     it) and 1 + the number of coalesced runs of requests.
#  2. The same read through tests/tools/fault_proxy.c adding 20 ms to every
#     request: its time against (its bytes at the link's throughput + 2 round
#     trips), the throughput taken from a whole-object read through the same
#     proxy, and the same read with coalescing and prefetch off; in front of
#     moto, then of nginx serving the file over HTTP (moto reads the whole
#     object for each ranged GET, nginx only the range); and the same scan
#     of the local file: the decoding alone, which the fetches overlap.
#  3. Client CPU (user + sys of the process) per GiB moved: basalt, boto3
#     (bench/peers/s3_leg_boto3.py) and the AWS SDK for JavaScript
#     (bench/peers/s3_leg_jssdk.mjs), downloading and uploading a 256 MiB
#     object, interleaved; and basalt's multipart upload with 4 parts in
#     flight against 1.
#
#   bench/objectstore.sh [BASALT] [ROUNDS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of the interleaved legs (default 5)
#   BASALT_OBJBENCH_PARTS=12 runs parts 1 and 2 only (part 3 moves 256 MiB
#   through every client several times: minutes).
# Figures are p50 and p90 (nearest rank) over the rounds; every leg names its
# threads: basalt decodes on 1 thread (and in part 2 also on 2) and keeps up
# to 8 requests in flight,
# boto3 uses its transfer manager's 10 threads, the JavaScript SDK 4 parts
# at once on node's event loop.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-5}
[ -x "$basalt" ] || { echo "objectstore.sh: no basalt CLI at $basalt (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/basalt-objbench.XXXXXX")
tmp=$work
source "$root/tests/servers/servers.bash"
trap 'stop_servers; rm -rf "$work"' EXIT

start_moto >/dev/null
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY
export AWS_REGION=$S3_REGION
b() { "$basalt" --endpoint "$S3_ENDPOINT" "$@"; }
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); moto $(moto_server --version 2>/dev/null | head -1 || echo '?')"

# p50 / p90 of the numbers on stdin (nearest rank).
pct() { sort -g | awk -v p="$1" '{v[NR]=$1} END {i=int((p*NR+99)/100); if (i<1) i=1; print v[i]}'; }
# stats_field FIELD FILE: a number from basalt's --stats line.
stats_field() { grep -o "[0-9.]* $1" "$2" | head -1 | cut -d' ' -f1; }

# ---------------------------------------------------------------- part 1
taxi=${BASALT_TAXI_FILE:-$HOME/.cache/basalt-peers/data/taxi60.parquet}
if [ ! -f "$taxi" ]; then
  mkdir -p "$(dirname "$taxi")"
  node "$root/bench/peers/gen_taxi_file.mjs" "$taxi" >&2
fi
cols=tpep_pickup_datetime,PULocationID,fare_amount,total_amount
b io cp "$taxi" "s3://$S3_BUCKET/taxi.parquet" >/dev/null
need=$(node "$root/bench/peers/projected_bytes.mjs" "$taxi" "$cols")
need_bytes=${need% *}; runs=${need#* }
b --stats parquet scan "s3://$S3_BUCKET/taxi.parquet" --columns "$cols" >/dev/null 2>"$work/stats"
got_req=$(stats_field requests "$work/stats")
got_bytes=$(sed -n 's/.*sent (\([0-9]*\) and [0-9]* bytes).*/\1/p' "$work/stats")
echo
echo "## 1. projected read: 4 of 19 columns of $(stat -c %s "$taxi") bytes"
echo "needed: $need_bytes bytes (chunks + footer), $runs coalesced runs -> at most $((runs + 1)) requests"
echo "basalt: $got_bytes bytes ($(awk -v a="$got_bytes" -v b="$need_bytes" 'BEGIN{printf "%.3f", a/b}')x), $got_req requests"

# ---------------------------------------------------------------- part 2
# latency ORIGIN_PORT TITLE URL [OPTIONS...]: the whole object and the
# projected read through a proxy adding 20 ms per request in front of the
# origin; URL names the object through the proxy's port (@PORT@).
latency() {
  local origin=$1 title=$2 url_t=$3; shift 3
  start_fault_proxy "$origin" --latency-ms 20 >/dev/null
  local url=${url_t//@PORT@/$PROXY_PORT} opts=() o
  for o in "$@"; do opts+=("${o//@PORT@/$PROXY_PORT}"); done
  local whole=() proj=() proj2=() flat=() loc=() start=() r s e
  for r in $(seq 1 "$rounds"); do
    s=$(date +%s.%N); "$basalt" --version >/dev/null; e=$(date +%s.%N)
    start+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
    s=$(date +%s.%N); "$basalt" parquet scan "$taxi" --columns "$cols" >/dev/null; e=$(date +%s.%N)
    loc+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
    s=$(date +%s.%N); "$basalt" "${opts[@]}" io cat "$url" >/dev/null; e=$(date +%s.%N)
    whole+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
    s=$(date +%s.%N); "$basalt" "${opts[@]}" parquet scan "$url" --columns "$cols" >/dev/null; e=$(date +%s.%N)
    proj+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
    s=$(date +%s.%N); "$basalt" "${opts[@]}" parquet scan "$url" --columns "$cols" --threads 2 >/dev/null; e=$(date +%s.%N)
    proj2+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
    s=$(date +%s.%N); "$basalt" "${opts[@]}" --coalesce-gap 0 --no-prefetch parquet scan "$url" --columns "$cols" >/dev/null; e=$(date +%s.%N)
    flat+=("$(awk -v s="$s" -v e="$e" 'BEGIN{print e-s}')")
  done
  stop_fault_proxy >/dev/null || true
  local size w50 s50 thr bound net_thr net_bound leg vals p50 p90 label
  size=$(stat -c %s "$taxi")
  w50=$(printf '%s\n' "${whole[@]}" | pct 50)
  s50=$(printf '%s\n' "${start[@]}" | pct 50)
  thr=$(awk -v n="$size" -v t="$w50" 'BEGIN{print n/t}')
  bound=$(awk -v n="$got_bytes" -v th="$thr" 'BEGIN{print n/th + 2*0.020}')
  # The same with the process's start (`basalt --version`, timed the same
  # way) taken out of both the whole-object read and the projected one:
  # the bound is about the network, and a start is no part of it.
  net_thr=$(awk -v n="$size" -v t="$w50" -v s="$s50" 'BEGIN{print n/(t-s)}')
  net_bound=$(awk -v n="$got_bytes" -v th="$net_thr" 'BEGIN{print n/th + 2*0.020}')
  echo
  echo "## 2. $title: through the proxy, 20 ms per request ($rounds rounds, p50 / p90)"
  echo "link: whole object $w50 s -> $(awk -v t="$thr" 'BEGIN{printf "%.1f", t/1048576}') MiB/s; bound for the projected read: $(printf %.3f "$bound") s"
  echo "process start (basalt --version): $s50 s; without it the link is $(awk -v t="$net_thr" 'BEGIN{printf "%.1f", t/1048576}') MiB/s and the bound $(printf %.3f "$net_bound") s"
  for leg in proj proj2 flat loc; do
    eval "vals=(\"\${${leg}[@]}\")"
    p50=$(printf '%s\n' "${vals[@]}" | pct 50); p90=$(printf '%s\n' "${vals[@]}" | pct 90)
    case $leg in
      proj) label="coalesced + prefetch" ;;
      proj2) label="the same, decoding on 2 threads" ;;
      flat) label="coalescing and prefetch off" ;;
      *) label="the local file (decode alone)" ;;
    esac
    printf '%-34s p50 %.3f s  p90 %.3f s  %.2fx the bound, %.2fx without the start\n' "$label" \
      "$p50" "$p90" "$(awk -v a="$p50" -v b="$bound" 'BEGIN{print a/b}')" \
      "$(awk -v a="$p50" -v s="$s50" -v b="$net_bound" 'BEGIN{print (a-s)/b}')"
  done
}
latency "$MOTO_PORT" "moto (S3)" "s3://$S3_BUCKET/taxi.parquet" --endpoint "http://127.0.0.1:@PORT@"
# moto reads the whole object for every ranged GET, so there each request
# costs the object whatever its length; nginx serves ranges from the file,
# so its cost is the bytes, as the bound assumes.
mkdir -p "$work/web"
ln -sf "$taxi" "$work/web/taxi.parquet"
start_nginx "$work/web" >/dev/null
latency "$NGINX_PORT" "nginx (HTTP)" "http://127.0.0.1:@PORT@/taxi.parquet"

# ---------------------------------------------------------------- part 3
[[ ${BASALT_OBJBENCH_PARTS:-123} == *3* ]] || exit 0
big=$work/big.bin
head -c $((256 << 20)) /dev/urandom >"$big"
b io cp "$big" "s3://$S3_BUCKET/big.bin" >/dev/null
gib=$(awk -v n="$(stat -c %s "$big")" 'BEGIN{print n/1073741824}')
cpu() { # cpu LEG CMD...: appends "user+sys" seconds per GiB to $work/LEG
  local leg=$1; shift
  /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" >/dev/null
  awk -v g="$gib" '{printf "%.4f %.3f\n", ($1+$2)/g, $3}' "$work/time" >>"$work/$leg"
}
for r in $(seq 1 "$rounds"); do
  cpu basalt-get "$basalt" --endpoint "$S3_ENDPOINT" io cat "s3://$S3_BUCKET/big.bin"
  cpu boto3-get python3 "$root/bench/peers/s3_leg_boto3.py" get "$S3_ENDPOINT" "$S3_BUCKET" big.bin
  cpu jssdk-get node "$root/bench/peers/s3_leg_jssdk.mjs" get "$S3_ENDPOINT" "$S3_BUCKET" big.bin
  cpu basalt-put "$basalt" --endpoint "$S3_ENDPOINT" io cp "$big" "s3://$S3_BUCKET/up-basalt.bin"
  cpu boto3-put python3 "$root/bench/peers/s3_leg_boto3.py" put "$S3_ENDPOINT" "$S3_BUCKET" up-boto3.bin "$big"
  cpu jssdk-put node "$root/bench/peers/s3_leg_jssdk.mjs" put "$S3_ENDPOINT" "$S3_BUCKET" up-js.bin "$big"
  cpu basalt-put-seq "$basalt" --endpoint "$S3_ENDPOINT" --parts-in-flight 1 io cp "$big" "s3://$S3_BUCKET/up-seq.bin"
done
echo
echo "## 3. client CPU per GiB (user+sys), 256 MiB object, $rounds rounds: p50 / p90; wall p50"
for leg in basalt-get boto3-get jssdk-get basalt-put boto3-put jssdk-put basalt-put-seq; do
  c50=$(cut -d' ' -f1 "$work/$leg" | pct 50); c90=$(cut -d' ' -f1 "$work/$leg" | pct 90)
  w=$(cut -d' ' -f2 "$work/$leg" | pct 50)
  printf '%-16s %7.3f s/GiB  %7.3f s/GiB   wall %6.2f s\n' "$leg" "$c50" "$c90" "$w"
done
