#!/usr/bin/env bash
# The object-store client under injected faults: fault_proxy in front of moto
# (SigV4 on) and of azurite (Shared Key on). Every object written and read
# back through 503s, SlowDowns, resets and truncated bodies comes back
# identical or fails with a clear message; stalled bodies are cut by the
# stall timeout, so nothing hangs (each run has a deadline); a multipart
# write whose part or completion fails past its retries fails and leaves no
# object and no open multipart upload (checked with boto3 straight against
# moto). `basalt io cat` and `io cp` stream an object through truncated
# bodies, resumed from the byte reached, byte-exact, and fail with CONFLICT
# when the object is replaced between two pieces of its body. Prints the
# counts: requests, faults by kind, retries, outcomes.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/io_store_lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
t0=$SECONDS

if ! start_moto; then
  check "moto starts with SigV4 checks on" false
  finish; exit
fi
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY AWS_REGION=$S3_REGION
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
# Small tails and splits: each read is a tail, then several ranges, so
# bodies break mid-range and must resume. Short backoff keeps the runs quick.
reads=(--footer-tail 16384 --split-size 1048576 --coalesce-gap 4096 --retry-base-ms 20 --retry-max-ms 500)

# counts NAME: the proxy's counters and store_check's outcome line.
counts() {
  local name=$1 k line="$1: proxy requests=$(proxy_stat "$PROXY_STATS" requests) faults:"
  for k in status_503 slowdown error_500 reset_mid_body truncate stall; do
    line+=" $k=$(proxy_stat "$PROXY_STATS" "faults.$k")"
  done
  echo "$line"
  grep -E '^(outcomes|store stats):' "$tmp/$name.log" | sed "s/^/$name: /"
}
# clear_errors NAME: every failed round trip names its object and says why.
clear_errors() {
  local bad
  bad=$(grep -E 'failed: ' "$tmp/$1.log" | grep -vE 'failed: [A-Z_]+: (s3|az)://[^ ]+: .{10,}' | head -3)
  check "$1: every failure is a status with the URI and a reason (${bad:-all are})" test -z "$bad"
}
retries_of() { sed -n 's/^store stats: .*retries=\([0-9]*\).*/\1/p' "$tmp/$1.log"; }

# open_uploads KEY|PREFIX/: multipart uploads moto still holds for KEY (boto3,
# straight to moto; no Prefix, whose '/' moto's SigV4 check refuses).
open_uploads() {
  python3 - "$S3_ENDPOINT" "$S3_BUCKET" "$1" <<'EOF'
import sys, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                  config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}))
r = s3.list_multipart_uploads(Bucket=sys.argv[2])
key = sys.argv[3]
print(sum(1 for u in r.get("Uploads", [])
          if u["Key"] == key or (key.endswith("/") and u["Key"].startswith(key))))
EOF
}
# ---- 1. 503, SlowDown, reset and truncated bodies at 0.1 each ----
echo "[$((SECONDS - t0)) s] faults at 0.1 (seed 7)"
if start_fault_proxy "$MOTO_PORT" --status-503 0.1 --slowdown 0.1 --reset-mid-body 0.1 --truncate 0.1 --seed 7; then
  run_store_check s3_faults 110 --faults 30 --max-size 7000000 --part-size 5242880 "${reads[@]}" \
    --max-attempts 8 --endpoint "$PROXY_ENDPOINT" "s3://$S3_BUCKET/faults"
  stop_fault_proxy
  counts s3_faults
  clear_errors s3_faults
  for k in status_503 slowdown reset_mid_body truncate; do
    check "s3_faults: the proxy injected $k" test "$(proxy_stat "$PROXY_STATS" "faults.$k")" -gt 0
  done
  check "s3_faults: the client retried ($(retries_of s3_faults) retries)" test "$(retries_of s3_faults)" -gt 0
  # A CreateMultipartUpload whose answer is lost is not retried (a retry
  # would create a second upload), so its upload stays open, unknown to the
  # client: shown, not checked.
  echo "s3_faults: multipart uploads left open under faults/: $(open_uploads faults/)"
  identical=$(sed -n 's/^outcomes: identical=\([0-9]*\).*/\1/p' "$tmp/s3_faults.log")
  check "s3_faults: most round trips succeeded despite the faults ($identical of 30)" test "${identical:-0}" -ge 20
fi

# ---- 2. stalled bodies: cut by a 1 s stall timeout, not waited out ----
echo "[$((SECONDS - t0)) s] stalls (0.05, 5 s each; stall timeout 1 s)"
if start_fault_proxy "$MOTO_PORT" --stall 0.05 --stall-ms 5000 --seed 7; then
  started=$SECONDS
  run_store_check s3_stalls 100 --faults 15 --max-size 3000000 --part-size 5242880 "${reads[@]}" \
    --stall-timeout-ms 1000 --endpoint "$PROXY_ENDPOINT" "s3://$S3_BUCKET/stalls"
  took=$((SECONDS - started))
  stop_fault_proxy
  counts s3_stalls
  clear_errors s3_stalls
  stalls=$(proxy_stat "$PROXY_STATS" faults.stall)
  check "s3_stalls: the proxy stalled some bodies ($stalls)" test "$stalls" -gt 0
  # Waiting out every stall would take 5 s each.
  check "s3_stalls: $stalls stalls cost less than waiting them out (${took} s)" test "$took" -lt $((stalls * 5 + 30))
fi

# ---- 3. a multipart write that fails past its retries leaves nothing ----
write_fail_case() { # NAME PROXY_FLAGS...
  local name=$1; shift
  echo "[$((SECONDS - t0)) s] $name"
  start_fault_proxy "$MOTO_PORT" "$@" || { check "$name: proxy starts" false; return; }
  local key="writefail/$name.bin"
  run_store_check "$name" 100 --write-fail 12000000 --part-size 5242880 --max-attempts 2 \
    --retry-base-ms 20 --endpoint "$PROXY_ENDPOINT" "s3://$S3_BUCKET/$key"
  stop_fault_proxy
  echo "$name: $PROXY_SUMMARY"
  check "$name: the proxy failed requests ($(proxy_stat "$PROXY_STATS" faults.error_500) x 500)" \
    test "$(proxy_stat "$PROXY_STATS" faults.error_500)" -gt 0
  local open
  open=$(open_uploads "$key")
  check "$name: no multipart upload is left open (boto3 list_multipart_uploads: ${open:-error})" test "$open" = 0
}
# Part 2 of 3 answers 500 to both of its attempts; the upload is aborted.
write_fail_case part_fails --error-500 1 --only-path-substring partNumber=2
# Every part uploads; CompleteMultipartUpload answers 500 twice (begin is
# "?uploads", which does not hold "uploadId=").
write_fail_case complete_fails --error-500 1 --only-method POST --only-path-substring uploadId=

# ---- 4. io cat / io cp: one streamed GET, its broken bodies resumed ----
# A HEAD sizes the object; its GET and the next seven (the resumes) are cut
# at half their body. Eight is more than max_attempts (6): the retry limits
# count tries in a row that bring no byte, and each of these brings half of
# what is left.
echo "[$((SECONDS - t0)) s] io cat and io cp through truncated bodies"
stream_size=12582912
head -c "$stream_size" /dev/urandom >"$tmp/stream.bin"
stream_uri=s3://$S3_BUCKET/stream/object.bin
cli() { timeout -k 5 120 "$basalt" "$@"; }
cli --endpoint "$S3_ENDPOINT" io cp "$tmp/stream.bin" "$stream_uri" 2>"$tmp/stream.err" ||
  check "io cp of the object to moto ($(cat "$tmp/stream.err"))" false
for verb in cat cp; do
  start_fault_proxy "$MOTO_PORT" --truncate 1 --max-faults 8 --only-method GET ||
    { check "io $verb: proxy starts" false; continue; }
  rm -f "$tmp/stream.out"
  if [ "$verb" = cat ]; then
    cli --endpoint "$PROXY_ENDPOINT" --stats io cat "$stream_uri" >"$tmp/stream.out" 2>"$tmp/stream.err"
  else
    cli --endpoint "$PROXY_ENDPOINT" --stats io cp "$stream_uri" "$tmp/stream.out" 2>"$tmp/stream.err"
  fi
  rc=$?
  stop_fault_proxy
  echo "io $verb: $PROXY_SUMMARY"
  echo "io $verb: $(grep '^io: [0-9]* requests' "$tmp/stream.err")"
  check "io $verb through truncated bodies: exit 0 ($rc: $(head -c 300 "$tmp/stream.err"))" test "$rc" = 0
  check "io $verb through truncated bodies: the exact bytes" cmp -s "$tmp/stream.out" "$tmp/stream.bin"
  truncs=$(proxy_stat "$PROXY_STATS" faults.truncate)
  reqs=$(proxy_stat "$PROXY_STATS" requests)
  check "io $verb: the proxy truncated 8 bodies (got $truncs)" test "$truncs" = 8
  check "io $verb: a HEAD, one GET and a resume per truncated body ($reqs requests)" \
    test "$reqs" = $((2 + truncs))
  # Resumed from the byte reached: every byte of the object came once.
  check "io $verb: no byte fetched twice (basalt received $stream_size bytes)" \
    grep -q "^io: $((2 + truncs)) requests ($truncs retries, 0 failed), .* ($stream_size and 0 bytes)\$" \
    "$tmp/stream.err"
done
# The object replaced while its body is broken: the resume carries
# If-Match with the ETag read at open, so the copy fails with CONFLICT
# instead of joining two objects. Each request waits 3 s in the proxy; the
# object is overwritten (straight to moto) as soon as the proxy has cut the
# first body, while the resume waits.
start_fault_proxy "$MOTO_PORT" --truncate 1 --max-faults 1 --only-method GET \
  --latency-ms 3000 --verbose
proxy_out=$SERVER_LOG_DIR/fault_proxy-$_servers_proxy_count.out
head -c "$stream_size" /dev/urandom >"$tmp/stream2.bin"
(
  for _ in $(seq 300); do
    grep -q 'fault=truncate' "$proxy_out" && break
    sleep 0.1
  done
  cli --endpoint "$S3_ENDPOINT" io cp "$tmp/stream2.bin" "$stream_uri" 2>/dev/null
) &
writer=$!
rm -f "$tmp/stream.out"
cli --endpoint "$PROXY_ENDPOINT" io cp "$stream_uri" "$tmp/stream.out" 2>"$tmp/stream.err"
rc=$?
wait "$writer"
stop_fault_proxy
echo "io cp of a replaced object: $(cat "$tmp/stream.err")"
check "io cp of an object replaced mid-body: exit 1 (got $rc)" test "$rc" = 1
check "io cp of an object replaced mid-body: CONFLICT, the object changed" \
  grep -q '^basalt: CONFLICT: .*changed' "$tmp/stream.err"
check "io cp of an object replaced mid-body: nothing left under the target" test ! -e "$tmp/stream.out"

# ---- 4b. one request in flight: the next starts when a slot frees ----
# With --max-concurrency 1 and small splits a scan's reads and prefetches
# are batches of many requests, one at a time. Each must start as soon as
# the one before it lands: the request loop once slept up to a second
# whenever no transfer was active, so this scan took a second per request.
echo "[$((SECONDS - t0)) s] one request in flight"
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "%d,%d,%.6f\n", i, (i * 7919) % 100003, i / 7.0 }' >"$tmp/serial.csv"
cli csv convert "$tmp/serial.csv" "$tmp/serial.parquet" --no-header --names a,b,c --codec uncompressed \
  2>"$tmp/serial.err" || check "csv convert ($(cat "$tmp/serial.err"))" false
cli --endpoint "$S3_ENDPOINT" io cp "$tmp/serial.parquet" "s3://$S3_BUCKET/serial.parquet" 2>/dev/null
cli parquet scan "$tmp/serial.parquet" >"$tmp/serial.local" 2>&1
started=$(date +%s.%N)
cli --endpoint "$S3_ENDPOINT" --stats --max-concurrency 1 --split-size 65536 --coalesce-gap 0 \
  parquet scan "s3://$S3_BUCKET/serial.parquet" >"$tmp/serial.remote" 2>"$tmp/serial.err"
rc=$?
took=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
requests=$(sed -n 's/^io: \([0-9]*\) requests.*/\1/p' "$tmp/serial.err")
echo "one in flight: ${requests:-?} requests in $took s"
check "one in flight: the scan succeeds (rc $rc)" test "$rc" = 0
check "one in flight: the same rows and bytes as the local scan" \
  cmp -s <(grep -E '^(rows|decoded bytes):' "$tmp/serial.local") \
         <(grep -E '^(rows|decoded bytes):' "$tmp/serial.remote")
check "one in flight: many requests (${requests:-none})" test "${requests:-0}" -ge 20
# Half a second per request is far above a request to moto on loopback and
# half of what the idle wait cost.
check "one in flight: no idle wait between requests ($requests in $took s)" \
  awk -v t="$took" -v n="${requests:-0}" 'BEGIN { exit !(t < n * 0.5) }'

# ---- 4c. prefetched bodies land in the order the scan reads them ----
# A prefetch sends all its requests at once and holds back the bodies that
# are needed later while an earlier one is arriving (so they do not share
# the link evenly). Column a of a file of two row groups is two requests
# of one prefetch, one per group. nginx serves the file (moto answers one request at a
# time, so its bodies never overlap); the proxy paces each connection at
# 16 MiB/s, so the two bodies would arrive side by side: the counter shows
# the second group's held back, and the rows are the local scan's.
echo "[$((SECONDS - t0)) s] prefetched bodies in order"
mkdir -p "$tmp/web"
cli parquet rewrite "$tmp/serial.parquet" "$tmp/web/serial.parquet" --row-group-size 150000 \
  --codec uncompressed 2>"$tmp/rewrite.err" || check "parquet rewrite ($(cat "$tmp/rewrite.err"))" false
cli parquet scan "$tmp/web/serial.parquet" --columns a >"$tmp/serial_a.local" 2>&1
rc=1
if start_nginx "$tmp/web" && start_fault_proxy "$NGINX_PORT" --latency-ms 50 --rate-kib-s 16384; then
  cli --stats --coalesce-gap 0 parquet scan "http://127.0.0.1:$PROXY_PORT/serial.parquet" \
    --columns a >"$tmp/ordered.remote" 2>"$tmp/ordered.err"
  rc=$?
  stop_fault_proxy
fi
held=$(sed -n 's/^io: \([0-9]*\) prefetched bodies held back.*/\1/p' "$tmp/ordered.err")
echo "prefetch in order: ${held:-?} bodies held back; $(grep '^io: [0-9]* requests' "$tmp/ordered.err")"
check "prefetch in order: the scan succeeds (rc $rc)" test "$rc" = 0
check "prefetch in order: the same rows and bytes as the local scan" \
  cmp -s <(grep -E '^(rows|decoded bytes):' "$tmp/serial_a.local") \
         <(grep -E '^(rows|decoded bytes):' "$tmp/ordered.remote")
check "prefetch in order: later bodies were held back (${held:-none})" test "${held:-0}" -gt 0

# ---- 5. the Azure path under the same faults (block blobs, HEAD + tail) ----
echo "[$((SECONDS - t0)) s] azure faults at 0.1"
if start_azurite && start_fault_proxy "$AZURITE_PORT" --status-503 0.1 --slowdown 0.1 --reset-mid-body 0.1 --truncate 0.1 --seed 7; then
  run_store_check az_faults 100 --faults 20 --max-size 1500000 --part-size 1048576 "${reads[@]}" \
    --max-attempts 8 --endpoint "$PROXY_ENDPOINT/devstoreaccount1" "az://$AZURE_CONTAINER/faults"
  stop_fault_proxy
  counts az_faults
  clear_errors az_faults
  check "az_faults: the client retried ($(retries_of az_faults) retries)" test "$(retries_of az_faults)" -gt 0
else
  check "azurite and a proxy in front of it start" false
fi

echo "[$((SECONDS - t0)) s] done"
finish
