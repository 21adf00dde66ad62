#!/usr/bin/env bash
# The object-storage test servers (tests/servers/servers.bash) and the fault
# proxy (tests/tools/fault_proxy.c) that the S3, Azure and HTTP clients are
# tested against: moto verifies SigV4 (a wrong secret is refused, the right
# one accepted, through the proxy too), azurite verifies Shared Key, nginx
# answers ranges exactly, and each fault of the proxy reaches curl as that
# fault and nothing else. Everything listens on 127.0.0.1 on free ports and
# is gone at the end. The basalt binary ($1) only locates the build tree.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
servers=$(cd "$(dirname "$0")/../servers" && pwd)

# curl with a deadline that survives a loaded machine; faults have their own.
fetch() { curl -sS -m 30 "$@"; }
not() { ! "$@"; }
section() { echo "[$((SECONDS - t0)) s] $*"; }
t0=$SECONDS
slice() { tail -c +$(($2 + 1)) "$1" | head -c "$3"; } # FILE OFFSET LENGTH

# ---- moto: SigV4 on ----
section moto
if start_moto; then
  check "moto refuses a wrong secret with SignatureDoesNotMatch (got $MOTO_WRONG_SECRET_CODE)" \
    test "$MOTO_WRONG_SECRET_CODE" = SignatureDoesNotMatch
  expect 0 python3 "$servers/s3_roundtrip.py" "$S3_ENDPOINT" "$S3_BUCKET"
  # Unsigned: refused too (moto answers 500 rather than 403, but not 200).
  code=$(fetch -o /dev/null -w '%{http_code}' "$S3_ENDPOINT/$S3_BUCKET?list-type=2")
  check "moto refuses an unsigned LIST (got $code)" test "$code" != 200
else
  check "moto starts with SigV4 checks on" false
fi

# ---- azurite: Shared Key on ----
section azurite
printf 'azure blob bytes 0123456789 abcdefghijklmnopqrstuvwxyz' >"$tmp/blob.txt"
if start_azurite; then
  check "azurite refuses a wrong key with 403 (error code $AZURITE_WRONG_KEY_CODE)" test -n "$AZURITE_WRONG_KEY_CODE"
  code=$(fetch -o /dev/null -w '%{http_code}' -H 'x-ms-version: 2021-08-06' \
    -H 'Authorization: SharedKey devstoreaccount1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' \
    "$AZURE_BLOB_ENDPOINT?comp=list")
  check "azurite refuses a forged Authorization header with 403 (got $code)" test "$code" = 403
  expect 0 node "$servers/azure_blob.mjs" PUT "$AZURE_CONTAINER/b.txt" --body-file "$tmp/blob.txt" \
    --header x-ms-blob-type:BlockBlob
  check "azurite PUT blob with the right key: 201 (got $(cat "$tmp/out"))" grep -q '^201 ' "$tmp/out"
  expect 0 node "$servers/azure_blob.mjs" GET "$AZURE_CONTAINER/b.txt" --range bytes=10-19 --out "$tmp/az_range"
  check "azurite range GET: 206 (got $(cat "$tmp/out"))" grep -q '^206 ' "$tmp/out"
  check "azurite range GET: exact bytes" cmp -s "$tmp/az_range" <(slice "$tmp/blob.txt" 10 10)
else
  check "azurite starts with Shared Key checks on" false
fi

# ---- nginx: ranges ----
section nginx
mkdir -p "$tmp/www"
head -c 1048576 /dev/urandom >"$tmp/www/data.bin"
data=$tmp/www/data.bin
size=$(stat -c %s "$data")
if start_nginx "$tmp/www"; then
  code=$(fetch -o "$tmp/r" -w '%{http_code}' -H 'Range: bytes=-8' "$HTTP_ENDPOINT/data.bin")
  check "nginx suffix range: 206 (got $code)" test "$code" = 206
  check "nginx suffix range: the last 8 bytes" cmp -s "$tmp/r" <(tail -c 8 "$data")
  code=$(fetch -o "$tmp/r" -w '%{http_code}' -H 'Range: bytes=10-19' "$HTTP_ENDPOINT/data.bin")
  check "nginx range 10-19: 206 (got $code)" test "$code" = 206
  check "nginx range 10-19: exact bytes" cmp -s "$tmp/r" <(slice "$data" 10 10)
  code=$(fetch -o "$tmp/r" -w '%{http_code}' "$HTTP_ENDPOINT/data.bin")
  check "nginx whole file: 200 and the same bytes" test "$code" = 200 -a "$(cmp "$tmp/r" "$data" && echo same)" = same
else
  check "nginx starts" false
fi

# ---- the proxy: SigV4 through it (it forwards Host unchanged) ----
section 'proxy: signed requests through it'
if [ -n "${MOTO_PORT:-}" ] && start_fault_proxy "$MOTO_PORT"; then
  expect 0 python3 "$servers/s3_roundtrip.py" "$PROXY_ENDPOINT" "$S3_BUCKET"
  check "boto3 through the proxy to moto, SigV4 verified: $(cat "$tmp/out" "$tmp/err" | head -c 300)" \
    grep -q '^ok ' "$tmp/out"
  stop_fault_proxy
  check "the proxy counted boto3's 7 requests: $PROXY_SUMMARY" grep -q 'requests=7 forwarded=7 ' <<<"$PROXY_SUMMARY"
fi
if [ -n "${AZURITE_PORT:-}" ] && start_fault_proxy "$AZURITE_PORT"; then
  # (Not bytes=-8: azurite 3.35 answers a suffix range with an invalid
  # Content-Length, and Azure documents only bytes=N- and bytes=N-M.)
  AZURE_BLOB_ENDPOINT=$PROXY_ENDPOINT/devstoreaccount1 expect 0 node "$servers/azure_blob.mjs" GET \
    "$AZURE_CONTAINER/b.txt" --range bytes=10-19 --out "$tmp/az_range"
  check "azurite through the proxy: 206 and the exact bytes (got $(cat "$tmp/out"))" \
    test "$(cat "$tmp/out")" = "206 -" -a "$(cmp "$tmp/az_range" <(slice "$tmp/blob.txt" 10 10) && echo same)" = same
  stop_fault_proxy
fi

# ---- the proxy: each fault once (--max-faults 1), then a clean answer ----
section 'proxy: each fault once'
# fault_case KIND FLAGS... : the first GET through the proxy meets the fault,
# the second (same curl, same connection when it survives) is clean.
if [ -n "${NGINX_PORT:-}" ]; then
  url_of() { echo "$PROXY_ENDPOINT/data.bin"; }
  for kind in status_503 slowdown error_500; do
    start_fault_proxy "$NGINX_PORT" "--${kind//_/-}" 1 --max-faults 1 --seed 7 || { check "proxy starts" false; continue; }
    codes=$(fetch -o "$tmp/first" -o "$tmp/second" -w '%{http_code} %{num_connects}\n' "$(url_of)" "$(url_of)")
    want_status=503 want_code=ServiceUnavailable
    [ "$kind" = slowdown ] && want_code=SlowDown
    [ "$kind" = error_500 ] && want_status=500 want_code=InternalError
    check "$kind: first answer $want_status, second 200 on the same connection (got $(echo $codes))" \
      test "$(echo $codes)" = "$want_status 1 200 0"
    check "$kind: an S3 XML error body with Code $want_code" grep -q "<Error><Code>$want_code</Code>" "$tmp/first"
    check "$kind: then the whole file" cmp -s "$tmp/second" "$data"
    stop_fault_proxy
    check "$kind: counted once ($PROXY_SUMMARY)" test "$(proxy_stat "$PROXY_STATS" "faults.$kind")" = 1
    check "$kind: not forwarded, the next one was" test "$(proxy_stat "$PROXY_STATS" forwarded)" = 1
  done

  # Body faults: curl's exit status names the fault.
  for spec in "reset_mid_body 56" "truncate 18" "stall 28"; do
    kind=${spec% *} want=${spec#* }
    extra=()
    [ "$kind" = stall ] && extra=(--stall-ms 10000)
    start_fault_proxy "$NGINX_PORT" "--${kind//_/-}" 1 --max-faults 1 "${extra[@]}" || { check "proxy starts" false; continue; }
    started=$SECONDS
    curl -sS -m 2 -o "$tmp/first" "$(url_of)" 2>"$tmp/curl_err"
    got=$?
    check "$kind: curl exits $want (got $got: $(head -c 200 "$tmp/curl_err"))" test "$got" = "$want"
    if [ "$kind" = stall ]; then
      check "stall: curl gave up at its --max-time, not at the stall's end ($((SECONDS - started)) s)" \
        test $((SECONDS - started)) -lt 9
    fi
    part=$(stat -c %s "$tmp/first" 2>/dev/null || echo 0)
    check "$kind: curl got part of the body ($part of $size bytes), the first part exact" \
      test "$part" -gt 0 -a "$part" -lt "$size" -a "$(cmp -s "$tmp/first" <(head -c "$part" "$data") && echo same)" = same
    code=$(fetch -o "$tmp/second" -w '%{http_code}' "$(url_of)")
    check "$kind: the next GET is clean (got $code)" test "$code" = 200 -a "$(cmp -s "$tmp/second" "$data" && echo same)" = same
    stop_fault_proxy
    check "$kind: counted once ($PROXY_SUMMARY)" test "$(proxy_stat "$PROXY_STATS" "faults.$kind")" = 1
  done

  # Filters and latency.
  if start_fault_proxy "$NGINX_PORT" --status-503 1 --only-path-substring other.bin --only-method GET; then
    cp "$data" "$tmp/www/other.bin"
    code=$(fetch -o /dev/null -w '%{http_code}' "$PROXY_ENDPOINT/data.bin")
    check "--only-path-substring: another path passes (got $code)" test "$code" = 200
    code=$(fetch -o /dev/null -w '%{http_code}' -I "$PROXY_ENDPOINT/other.bin")
    check "--only-method GET: a HEAD passes (got $code)" test "$code" = 200
    code=$(fetch -o /dev/null -w '%{http_code}' "$PROXY_ENDPOINT/other.bin")
    check "--only-path-substring other.bin: GET gets 503 (got $code)" test "$code" = 503
    stop_fault_proxy
  fi
  if start_fault_proxy "$NGINX_PORT" --latency-ms 300; then
    t=$(fetch -o /dev/null -w '%{time_total}' "$PROXY_ENDPOINT/data.bin")
    check "--latency-ms 300: the GET took at least 0.3 s (took $t s)" \
      awk -v t="$t" 'BEGIN { exit !(t >= 0.3) }'
    stop_fault_proxy
  fi

  # ---- every fault at 0.3, seeded: 50 range GETs, each retried until exact ----
  section 'proxy: every fault at 0.3'
  # Each kind is drawn on its own, so a request meets some fault with
  # probability 1 - 0.7^6 = 0.88. The test retries each GET until an exact
  # 206, in batches of attempts given to one curl (curl goes on to the next
  # URL after a failed transfer; one process per attempt would take minutes
  # on a loaded machine). Every 206 is compared, not just the first.
  if start_fault_proxy "$NGINX_PORT" --seed 1 --status-503 0.3 --slowdown 0.3 --error-500 0.3 \
      --reset-mid-body 0.3 --truncate 0.3 --stall 0.3 --stall-ms 20; then
    RANDOM=1
    batch=16 attempts=0 good=0 bad=0 done_gets=0
    for i in $(seq 1 50); do
      off=$(( (RANDOM * 32768 + RANDOM) % (size - 1) ))
      len=$(( RANDOM % 65536 + 1 ))
      [ $((off + len)) -gt "$size" ] && len=$((size - off))
      [ "$i" = 1 ] && { off=$((size - 8)); len=8; }
      slice "$data" "$off" "$len" >"$tmp/want"
      ok=0
      for round in 1 2 3 4 5 6 7 8; do
        args=()
        for k in $(seq 1 $batch); do args+=(-o "$tmp/got.$k" "$PROXY_ENDPOINT/data.bin"); done
        rm -f "$tmp"/got.*
        curl -s -m 30 -H "Range: bytes=$off-$((off + len - 1))" -w '%{http_code} %{exitcode}\n' \
          "${args[@]}" >"$tmp/codes"
        k=0
        while read -r code rc; do
          k=$((k + 1)) attempts=$((attempts + 1))
          [ "$rc" = 0 ] && [ "$code" = 206 ] || continue
          if cmp -s "$tmp/got.$k" "$tmp/want"; then ok=1 good=$((good + 1)); else bad=$((bad + 1)); fi
        done <"$tmp/codes"
        [ "$ok" = 1 ] && break
      done
      [ "$ok" = 1 ] && done_gets=$((done_gets + 1))
    done
    check "50 range GETs through 0.3 faults each came back exact ($done_gets did; $bad wrong 206s)" \
      test "$done_gets" = 50 -a "$bad" = 0
    stop_fault_proxy
    echo "seeded faults: $attempts attempts, $good exact 206s, for 50 range GETs; $PROXY_SUMMARY"
    check "the proxy saw one request per attempt" test "$(proxy_stat "$PROXY_STATS" requests)" = "$attempts"
    check "every failed attempt was an injected fault" \
      test "$(proxy_stat "$PROXY_STATS" faults_total)" = $((attempts - good))
    for kind in status_503 slowdown error_500 reset_mid_body truncate stall; do
      check "seeded run injected $kind at least once" test "$(proxy_stat "$PROXY_STATS" "faults.$kind")" -gt 0
    done
  fi
fi

# ---- nothing secret in any log ----
section 'logs and stopping'
if [ -n "${S3_SECRET_ACCESS_KEY:-}" ]; then
  check "no log under \$SERVER_LOG_DIR holds the S3 secret" not grep -rqF -- "$S3_SECRET_ACCESS_KEY" "$SERVER_LOG_DIR"
fi
check "no log under \$SERVER_LOG_DIR holds the Azure key" not grep -rqF -- "${AZURE_STORAGE_KEY:-unset-key}" "$SERVER_LOG_DIR"
check "no log holds an Authorization header" not grep -rqi -- 'authorization: ' "$SERVER_LOG_DIR"

# ---- stopping leaves nothing behind ----
pids=("${_servers_pids[@]}")
stop_servers
for pid in "${pids[@]}"; do
  check "server pid $pid is gone" not kill -0 "$pid" 2>/dev/null
done
left=$(pgrep -f "moto_server -H 127.0.0.1 -p ${MOTO_PORT:-none}\$|azurite-blob --blobHost 127.0.0.1 --blobPort ${AZURITE_PORT:-none} |nginx -p $_servers_scratch|fault_proxy --stats $SERVER_LOG_DIR")
check "no server process is left (pgrep: ${left:-none})" test -z "$left"

finish
