#!/usr/bin/env bash
# The S3 backend against moto with SigV4 verified: every store_check check
# (multipart writes included) with signatures checked; objects basalt wrote
# read by boto3 and the other way round; a wrong secret refused with AUTH.
#
# Listings are checked against a second moto with signature checks off:
# moto 5.2.1 refuses a correctly signed request whose query has a value
# holding '/' (ListObjectsV2 with prefix=dir/ or delimiter=/), and so do its
# answers to boto3 (checked below), so a SigV4 refusal there says nothing
# about our signer. The basalt binary ($1) only locates the build tree.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/io_store_lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
not() { ! "$@"; }

if ! start_moto; then
  check "moto starts with SigV4 checks on" false
  finish; exit
fi
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY AWS_REGION=$S3_REGION
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3
# S3's smallest part is 5 MiB (moto enforces it): big.bin goes in 3 parts.
part=(--part-size 5242880 --parts-in-flight 3)

# ---- SigV4 verified: everything but listings ----
run_store_check s3_sigv4 100 "${part[@]}" --endpoint "$S3_ENDPOINT" --skip-list "s3://$S3_BUCKET/sigv4"
check "s3a:// names the same objects" \
  bash -c "head -c 1000 /dev/urandom >'$tmp/p1' && '$store_check' --endpoint '$S3_ENDPOINT' --put 's3a://$S3_BUCKET/a/p1' <'$tmp/p1' && '$store_check' --endpoint '$S3_ENDPOINT' --cat 's3://$S3_BUCKET/a/p1' | cmp -s - '$tmp/p1'"

# ---- moto's quirk, shown with boto3 ----
python3 - "$S3_ENDPOINT" "$S3_BUCKET" >"$tmp/boto_list" 2>&1 <<'EOF'
import os, sys, boto3, botocore
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                  config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}))
for kw in ({"Prefix": "a"}, {"Prefix": "a/"}, {"Delimiter": "/"}):
    try:
        s3.list_objects_v2(Bucket=sys.argv[2], **kw)
        print(kw, "ok")
    except botocore.exceptions.ClientError as e:
        print(kw, e.response["Error"]["Code"])
EOF
check "moto refuses boto3's signed listing with prefix 'a/' or delimiter '/' too: $(tr '\n' ' ' <"$tmp/boto_list")" \
  test "$(grep -c SignatureDoesNotMatch "$tmp/boto_list")" = 2 -a "$(grep -c "'a'} ok" "$tmp/boto_list")" = 1

# ---- boto3 and basalt read each other's objects ----
head -c 6000000 /dev/urandom >"$tmp/payload"
expect 0 "$store_check" "${part[@]}" --endpoint "$S3_ENDPOINT" --put "s3://$S3_BUCKET/interop/ours.bin" <"$tmp/payload"
python3 - "$S3_ENDPOINT" "$S3_BUCKET" "$tmp" >"$tmp/boto_io" 2>&1 <<'EOF'
import sys, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                  config=Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"}))
b, tmp = sys.argv[2], sys.argv[3]
open(tmp + "/theirs_read", "wb").write(s3.get_object(Bucket=b, Key="interop/ours.bin")["Body"].read())
s3.put_object(Bucket=b, Key="interop/theirs.bin", Body=open(tmp + "/payload", "rb").read())
print("ok")
EOF
check "boto3 reads the object basalt wrote in 2 parts ($(head -c 200 "$tmp/boto_io"))" cmp -s "$tmp/theirs_read" "$tmp/payload"
expect 0 "$store_check" --endpoint "$S3_ENDPOINT" --cat "s3://$S3_BUCKET/interop/theirs.bin"
check "basalt reads the object boto3 wrote" cmp -s "$tmp/out" "$tmp/payload"

# ---- a wrong secret: AUTH, and the secret is in no message ----
AWS_SECRET_ACCESS_KEY=wrong-secret-0123456789 "$store_check" --endpoint "$S3_ENDPOINT" \
  --cat "s3://$S3_BUCKET/interop/theirs.bin" >"$tmp/out" 2>"$tmp/err"
check "a wrong secret: AUTH SignatureDoesNotMatch ($(cat "$tmp/err"))" grep -q 'AUTH: .*403 SignatureDoesNotMatch' "$tmp/err"
check "no output of any run holds the secret" not grep -rqF -- "$S3_SECRET_ACCESS_KEY" "$tmp"

# ---- listings, on moto with signature checks off ----
if start_moto_noauth; then
  AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy \
    run_store_check s3_listing 100 "${part[@]}" --endpoint "$S3_NOAUTH_ENDPOINT" "s3://$S3_NOAUTH_BUCKET/listing"
else
  check "a second moto with signature checks off starts" false
fi

finish
