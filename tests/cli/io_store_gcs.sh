#!/usr/bin/env bash
# The gs:// path (GCS's XML API: HMAC keys through SigV4 with region "auto",
# one DELETE per object since there is no multi-object delete) end to end,
# with moto standing in for the S3-compatible endpoint (--endpoint). Signed
# requests go through a fault_proxy without faults that counts methods;
# listings run against a moto with signature checks off (moto 5.2.1 refuses
# correct signatures when a query value holds '/': see io_store_s3.sh). The
# basalt binary ($1) only locates the build tree.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/io_store_lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
not() { ! "$@"; }

if ! start_moto; then
  check "moto starts with SigV4 checks on" false
  finish; exit
fi
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 GOOGLE_OAUTH_ACCESS_TOKEN
# Whatever the S3 region says, gs:// signs for "auto".
export AWS_REGION=eu-west-3
part=(--part-size 5242880 --parts-in-flight 2)

if start_fault_proxy "$MOTO_PORT" --verbose; then
  run_store_check gs_sigv4 100 "${part[@]}" --endpoint "$PROXY_ENDPOINT" --skip-list "gs://$S3_BUCKET/gcs"
  stop_fault_proxy
  log=$SERVER_LOG_DIR/fault_proxy-1.out
  posts=$(grep -c '^fault_proxy: POST ' "$log")
  deletes=$(grep -c '^fault_proxy: DELETE .*status=204' "$log")
  # POSTs: begin and complete of big.bin, begin of the multipart output closed
  # without commit; no POST ?delete. DELETEs: the 4 objects and a missing key
  # one by one, the exclusive-create check's object, the 2 placeholders the
  # uncommitted-output check clears first, the abandoned upload.
  check "gs:// deletes one DELETE per object, no batch POST ($posts POSTs, $deletes DELETEs answered 204)" \
    test "$posts" = 3 -a "$deletes" = 9
  check "every request reached moto and was answered ($PROXY_SUMMARY)" grep -q 'faults=0' <<<"$PROXY_SUMMARY"
else
  check "fault_proxy starts" false
fi

# Straight to moto: a round trip, and a wrong secret refused.
head -c 3000 /dev/urandom >"$tmp/p"
expect 0 "$store_check" --endpoint "$S3_ENDPOINT" --put "gs://$S3_BUCKET/x/p" <"$tmp/p"
expect 0 "$store_check" --endpoint "$S3_ENDPOINT" --cat "gs://$S3_BUCKET/x/p"
check "gs:// reads back what it wrote" cmp -s "$tmp/out" "$tmp/p"
AWS_SECRET_ACCESS_KEY=wrong-secret-0123456789 "$store_check" --endpoint "$S3_ENDPOINT" \
  --cat "gs://$S3_BUCKET/x/p" >"$tmp/out" 2>"$tmp/err"
check "gs:// with a wrong secret: AUTH ($(cat "$tmp/err"))" grep -q 'AUTH: .*403' "$tmp/err"

if start_moto_noauth; then
  AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy \
    run_store_check gs_listing 100 "${part[@]}" --endpoint "$S3_NOAUTH_ENDPOINT" "gs://$S3_NOAUTH_BUCKET/listing"
else
  check "a second moto with signature checks off starts" false
fi

finish
