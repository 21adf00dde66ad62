#!/usr/bin/env bash
# basalt io (ls, stat, cat, cp, rm, presign), the object-store options and
# the Parquet, Avro and Iceberg commands on s3:// and http:// URIs, against
# moto with SigV4 verification on (tests/servers/servers.bash) and nginx.
# Credentials reach basalt through the AWS_* variables only; at the end every
# line basalt printed and every server log is searched for the secret.
source "$(dirname "$0")/lib.bash"
# Server logs inside $tmp: kept through stop_servers for the secrets check,
# removed with $tmp at exit.
SERVER_LOG_DIR=$tmp/servers
source "$(dirname "$0")/../servers/servers.bash"

t0=$SECONDS
section() { echo "[$((SECONDS - t0)) s] $*"; }
not() { ! "$@"; }
slice() { tail -c +$(($2 + 1)) "$1" | head -c "$3"; } # FILE OFFSET LENGTH

# Nothing from the machine's own AWS setup may leak in.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_SESSION_TOKEN \
  AWS_DEFAULT_REGION AWS_CA_BUNDLE
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

# Every basalt run's stdout and stderr are kept here for the secrets check.
logs=$tmp/logs
mkdir -p "$logs"
runs=0
keep_logs() {
  runs=$((runs + 1))
  cp "$tmp/out" "$logs/$runs.out"
  cp "$tmp/err" "$logs/$runs.err"
}
# b STATUS ARGS...: basalt against $endpoint, as expect (output in $tmp/out, $tmp/err).
b() {
  local want=$1; shift
  expect "$want" "$basalt" --endpoint "$endpoint" "$@"
  local rc=$?
  keep_logs
  return $rc
}
has() { grep -q -- "$1" "$tmp/err"; }          # the stderr of the last run holds TEXT
same() { cmp -s "$tmp/out" "$1"; }             # the stdout of the last run is FILE's bytes
stat_size() { sed -n 's/^size  *\([0-9]*\)$/\1/p' "$tmp/out"; }

data=$testdata/parquet-testing/data
avro=$testdata/avro/apache-avro/share/test/data/weather.avro
[ -f "$avro" ] || avro=$(find "$testdata/avro" -name weather.avro | head -n 1)

head -c 20971520 /dev/urandom >"$tmp/big.bin"   # 20 MiB: four parts of 5 MiB
printf 'small object\n' >"$tmp/small.txt"
big_size=$(stat -c %s "$tmp/big.bin")

# ---------------------------------------------------------------- usage
section usage
expect 2 "$basalt" --part-size 1 io stat x && check "--part-size below 5MiB: one usage line" one_line_stderr
expect 2 "$basalt" io stat x --addressing sideways && check "--addressing bogus: one usage line" one_line_stderr
expect 2 "$basalt" io ls && check "io ls without a prefix: usage" one_line_stderr
expect 2 "$basalt" io cp only-one && check "io cp with one argument: usage" one_line_stderr
expect 0 "$basalt" io --help && check "io --help lists the verbs and the store options" \
  grep -q -- '--no-sign-request' "$tmp/out"
expect 0 "$basalt" --help && check "basalt --help has the object-store options" \
  grep -q '^object-store options, accepted by every command' "$tmp/out"

# ------------------------------------------------------ moto, SigV4 on
section "moto (SigV4 on)"
if ! start_moto; then
  check "moto starts with SigV4 checks on" false
  finish; exit
fi
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY AWS_REGION=$S3_REGION
endpoint=$S3_ENDPOINT
s3=s3://$S3_BUCKET

b 0 io cp "$tmp/small.txt" "$s3/data/small.txt"
b 0 --stats io cp "$tmp/big.bin" "$s3/data/big.bin" --part-size 5MiB &&
  check "--stats: one counters line on stderr ($(cat "$tmp/err"))" \
    grep -Eq '^io: [0-9]+ requests \([0-9]+ retries, [0-9]+ failed\), .* received, 20\.0 MiB sent \([0-9]+ and [0-9]+ bytes\)$' "$tmp/err"
requests=$(sed -n 's/^io: \([0-9]*\) requests.*/\1/p' "$tmp/err")
check "20 MiB in 5 MiB parts: create + 4 parts + complete >= 6 requests (got $requests)" \
  test "${requests:-0}" -ge 6

b 0 io cat "$s3/data/small.txt" && check "cat of the small object equals the source" same "$tmp/small.txt"
b 0 --stats io cat "$s3/data/big.bin" && check "cat of the 20 MiB object equals the source" same "$tmp/big.bin"
# A HEAD at open, then one GET whose body is streamed: the object's bytes
# once, not in 4 MiB ranges.
check "cat of the 20 MiB object: 2 requests, each byte once ($(grep '^io: [0-9]* req' "$tmp/err"))" \
  grep -q "^io: 2 requests (0 retries, 0 failed), .* ($big_size and 0 bytes)\$" "$tmp/err"
b 0 io cat "$s3/data/big.bin" --offset 12345 --length 9437184 &&
  check "cat --offset 12345 --length 9 MiB equals the same bytes of the source" \
    cmp -s "$tmp/out" <(slice "$tmp/big.bin" 12345 9437184)
b 0 io cat "$s3/data/big.bin" --offset 20000000 &&
  check "cat --offset N equals tail -c" cmp -s "$tmp/out" <(tail -c $((big_size - 20000000)) "$tmp/big.bin")
b 0 io cat "$s3/data/big.bin" --length 100 &&
  check "cat --length N equals head -c" cmp -s "$tmp/out" <(head -c 100 "$tmp/big.bin")
b 0 io cat "$s3/data/big.bin" --offset $((big_size - 10)) --length 1000 &&
  check "a range past the end stops at the end" cmp -s "$tmp/out" <(tail -c 10 "$tmp/big.bin")
b 1 io cat "$s3/data/big.bin" --offset $((big_size + 1)) && check "an offset past the end fails in one line" one_line_stderr

: >"$tmp/empty"
b 0 io cp "$tmp/empty" "$s3/data/empty" && b 0 io cat "$s3/data/empty" &&
  check "an empty object copies and reads back empty" same "$tmp/empty"
b 0 io cp "$s3/data/empty" "$tmp/empty.back" && check "and copies back empty" cmp -s "$tmp/empty.back" "$tmp/empty"

b 0 io stat "$s3/data/big.bin" && check "stat size is $big_size (got $(stat_size))" test "$(stat_size)" = "$big_size"
check "stat has an ETag" grep -q '^etag  *"' "$tmp/out"
b 0 io stat "$s3/data/small.txt" --format json &&
  check "stat --format json" grep -q '"size":13,' "$tmp/out"

b 0 io cp "$s3/data/big.bin" "$tmp/big.copy" && check "cp s3 -> local equals the source" cmp -s "$tmp/big.copy" "$tmp/big.bin"
mkdir -p "$tmp/into"
b 0 io cp "$s3/data/small.txt" "$tmp/into" && check "cp into a local directory keeps the name" \
  cmp -s "$tmp/into/small.txt" "$tmp/small.txt"
b 0 io cp "$s3/data/small.txt" "$s3/copies/small.txt" && b 0 io cat "$s3/copies/small.txt" &&
  check "cp s3 -> s3" same "$tmp/small.txt"

b 1 io cp --exclusive "$tmp/small.txt" "$s3/data/big.bin" &&
  check "cp --exclusive onto an existing key: one line saying it exists" \
    bash -c "grep -q 'already exists' '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"
b 0 io stat "$s3/data/big.bin" && check "the refused copy left the object alone" test "$(stat_size)" = "$big_size"
b 0 io cp --exclusive "$tmp/small.txt" "$s3/data/new.txt"

b 0 io rm "$s3/data/new.txt"
b 1 io stat "$s3/data/new.txt" && check "stat after rm: NOT_FOUND in one line" \
  bash -c "grep -q NOT_FOUND '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"
b 0 io rm "$s3/data/new.txt"  # a missing object is not an error

# A wrong secret: refused by the server, reported with S3's code.
AWS_SECRET_ACCESS_KEY=wrong b 1 io cat "$s3/data/small.txt" &&
  check "a wrong secret: SignatureDoesNotMatch in one line" \
    bash -c "grep -q SignatureDoesNotMatch '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"
b 1 --no-sign-request io cat "$s3/data/small.txt" && check "--no-sign-request on a private object: AUTH" has AUTH

# The store options may come before the group or after the verb's arguments.
expect 0 "$basalt" io stat "$s3/data/small.txt" --endpoint="$endpoint" --addressing path --region "$S3_REGION"
keep_logs

# The presigned URL's signature is the one botocore computes for the same
# time (moto cannot check presigned URLs with SigV4 on: see start_moto_noauth).
b 0 io presign "$s3/data/small.txt" --expires 600 && cp "$tmp/out" "$tmp/presigned"
check "presign: botocore computes the same signature for the same time" python3 - "$tmp/presigned" <<'EOF'
import datetime, os, sys
from urllib.parse import parse_qs, urlsplit
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

url = open(sys.argv[1]).read().strip()
parts = urlsplit(url)
q = {k: v[0] for k, v in parse_qs(parts.query).items()}
when = datetime.datetime.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ")
botocore.auth.get_current_datetime = lambda *a, **k: when
creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"])
req = AWSRequest(method="GET", url=f"{parts.scheme}://{parts.netloc}{parts.path}")
botocore.auth.S3SigV4QueryAuth(creds, "s3", os.environ["AWS_REGION"], expires=int(q["X-Amz-Expires"])).add_auth(req)
theirs = {k: v[0] for k, v in parse_qs(urlsplit(req.url).query).items()}
sys.exit(0 if theirs == q else 1)
EOF

# ---- Parquet and Avro on s3:// print what they print for the local file.
section "parquet, avro, iceberg on s3://"
for f in alltypes_plain.parquet nulls.snappy.parquet datapage_v2.snappy.parquet; do
  b 0 io cp "$data/$f" "$s3/pq/$f"
  for verb in schema cat head; do
    expect 0 "$basalt" parquet $verb "$data/$f" && cp "$tmp/out" "$tmp/local.txt"
    b 0 parquet $verb "$s3/pq/$f" && check "parquet $verb of s3://.../$f equals the local output" same "$tmp/local.txt"
  done
done
b 0 io cp "$avro" "$s3/avro/weather.avro"
for verb in "cat" "cat --format json" "schema"; do
  expect 0 "$basalt" avro $verb "$avro" && cp "$tmp/out" "$tmp/local.txt"
  b 0 avro $verb "$s3/avro/weather.avro" && check "avro $verb of s3:// equals the local output" same "$tmp/local.txt"
done
b 1 avro cat "$s3/avro/missing.avro" && check "avro cat of a missing object: NOT_FOUND in one line" \
  bash -c "grep -q NOT_FOUND '$tmp/err' && [ \$(wc -l <'$tmp/err') = 1 ]"

# hash and codec read (and codec writes) objects too.
b 0 hash sha256 "$s3/data/big.bin" &&
  check "hash sha256 of s3:// equals sha256sum of the source" \
    test "$(cut -d' ' -f1 "$tmp/out")" = "$(sha256sum "$tmp/big.bin" | cut -d' ' -f1)"
b 0 codec compress zstd "$s3/avro/weather.avro" "$s3/avro/weather.avro.zst" &&
  b 0 codec decompress zstd "$s3/avro/weather.avro.zst" "$tmp/weather.back" &&
  check "codec compress s3 -> s3, decompress s3 -> local: the same bytes" cmp -s "$tmp/weather.back" "$avro"

# rewrite: s3 -> s3 and local -> local give the same bytes.
src=$data/alltypes_plain.parquet
expect 0 "$basalt" parquet rewrite "$src" "$tmp/rewritten.parquet" --codec zstd
b 0 parquet rewrite "$s3/pq/alltypes_plain.parquet" "$s3/pq/rewritten.parquet" --codec zstd
b 0 io cat "$s3/pq/rewritten.parquet" && check "parquet rewrite to s3:// equals rewriting locally" same "$tmp/rewritten.parquet"
expect 0 "$basalt" parquet cat "$tmp/rewritten.parquet" && cp "$tmp/out" "$tmp/local.txt"
b 0 parquet cat "$s3/pq/rewritten.parquet" && check "and reads back the same rows" same "$tmp/local.txt"

# iceberg describe of a metadata file in the bucket: the local output, but
# for where the metadata came from.
ice=$testdata/iceberg/glaredb/iceberg/tables-v1/lineitem_simple
if [ -f "$ice/metadata/v1.metadata.json" ]; then
  b 0 io cp "$ice/metadata/v1.metadata.json" "$s3/ice/lineitem_simple/metadata/v1.metadata.json"
  expect 0 "$basalt" iceberg describe "$ice/metadata/v1.metadata.json" --format json
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("metadata_location"); print(json.dumps(d, sort_keys=True))' \
    "$tmp/out" >"$tmp/local.txt"
  b 0 iceberg describe "$s3/ice/lineitem_simple/metadata/v1.metadata.json" --format json
  check "iceberg describe of an s3:// metadata file names it" grep -q "\"$s3/ice/lineitem_simple/metadata/v1.metadata.json\"" "$tmp/out"
  check "iceberg describe of an s3:// metadata file equals the local one" cmp -s "$tmp/local.txt" \
    <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("metadata_location"); print(json.dumps(d, sort_keys=True))' "$tmp/out")
else
  check "the iceberg test table exists" false
fi

# ---- listings. moto 5.2.1 refuses a correctly signed request whose query
# has a value with '/' (ListObjectsV2 with delimiter=/ or prefix=dir/). If
# our listing is refused, boto3's same listing must be refused too (so the
# fault is moto's); the listing checks then run on a second moto with
# signature checks off.
section listings
"$basalt" --endpoint "$endpoint" io ls "$s3/data/" >"$tmp/out" 2>"$tmp/err"
ours=$?
keep_logs
grep -q SignatureDoesNotMatch "$tmp/err" && ours_refused=1 || ours_refused=0
python3 - "$S3_ENDPOINT" "$S3_BUCKET" >"$tmp/boto.txt" 2>&1 <<'EOF'
import os, sys
import boto3, botocore
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name=os.environ["AWS_REGION"],
                  config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
try:
    s3.list_objects_v2(Bucket=sys.argv[2], Prefix="data/", Delimiter="/")
    print("accepted")
except botocore.exceptions.ClientError as e:
    print("refused", e.response["Error"]["Code"])
EOF
if [ "$ours_refused" = 1 ]; then
  check "moto refuses boto3's delimited listing too ($(cat "$tmp/boto.txt"))" grep -q '^refused SignatureDoesNotMatch' "$tmp/boto.txt"
else
  check "a delimited listing on SigV4 moto works (exit $ours)" test "$ours" = 0
fi
# An undelimited listing without a prefix has no '/' in its query.
b 0 io ls -r "$s3" && check "ls -r of the bucket (SigV4 on) shows the 20 MiB object with its size" \
  grep -Eq "^ +$big_size  [0-9T:Z-]{20}  $s3/data/big.bin$" "$tmp/out"

if start_moto_noauth; then
  endpoint=$S3_NOAUTH_ENDPOINT
  s3=s3://$S3_NOAUTH_BUCKET
  mkdir -p "$tmp/tree/sub/deeper"
  cp "$tmp/small.txt" "$tmp/tree/small.txt"
  cp "$tmp/big.bin" "$tmp/tree/sub/big.bin"
  printf 'x' >"$tmp/tree/sub/deeper/one.txt"
  b 0 io cp -r "$tmp/tree" "$s3/tree" --part-size 5MiB
  b 0 io ls "$s3/tree/" &&
    check "ls: the small object with its size" grep -Eq "^ +13  [0-9T:Z-]{20}  $s3/tree/small.txt$" "$tmp/out" &&
    check "ls: sub/ as one common prefix" grep -Eq "^ +PRE  +$s3/tree/sub/$" "$tmp/out" &&
    check "ls: header + 2 lines" test "$(wc -l <"$tmp/out")" = 3
  b 0 io ls -r "$s3/tree/" &&
    check "ls -r: the 20 MiB object with its size" grep -Eq "^ +$big_size  [0-9T:Z-]{20}  $s3/tree/sub/big.bin$" "$tmp/out" &&
    check "ls -r: header + 3 objects" test "$(wc -l <"$tmp/out")" = 4
  b 0 io ls -r "$s3/tree/" --format csv &&
    check "ls --format csv" grep -q "^1,[0-9T:Z-]*,$s3/tree/sub/deeper/one.txt$" "$tmp/out"
  b 0 io ls "$s3/tree/" --format json &&
    check "ls --format json: objects and prefixes" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["name"].endswith("/tree/small.txt") and rows[0]["size"] == 13 and rows[0]["modified"].endswith("Z"), rows
assert rows[1]["name"].endswith("/tree/sub/") and rows[1]["prefix"] is True, rows' "$tmp/out"
  b 0 io cp -r "$s3/tree/" "$tmp/back" &&
    check "cp -r s3 -> local gives the same tree" diff -r "$tmp/tree" "$tmp/back"
  b 1 io cp -r "$s3/nothing-here" "$tmp/none" && check "cp -r of an empty prefix fails in one line" one_line_stderr

  # Presigned URLs, used by curl with no credentials.
  b 0 io presign "$s3/tree/small.txt"
  check "presigned GET with curl returns the bytes" cmp -s <(curl -sS -f -m 30 "$(cat "$tmp/out")") "$tmp/small.txt"
  b 0 io presign "$s3/tree/put.txt" --method PUT --expires 60
  curl -sS -f -m 30 -T "$tmp/small.txt" "$(cat "$tmp/out")" >/dev/null
  b 0 io cat "$s3/tree/put.txt" && check "presigned PUT with curl stores the bytes" same "$tmp/small.txt"
  b 1 io presign "$tmp/small.txt" && check "presign of a local path: UNSUPPORTED" has UNSUPPORTED

  b 0 io rm -r "$s3/tree"
  b 0 io ls -r "$s3/" && check "rm -r removed every object (header only left)" test "$(wc -l <"$tmp/out")" = 1
else
  check "moto (signature checks off) starts" false
fi

# ---------------------------------------------------------------- http
section "http (nginx)"
mkdir -p "$tmp/www"
cp "$data/alltypes_plain.parquet" "$data/nulls.snappy.parquet" "$tmp/www/"
if start_nginx "$tmp/www"; then
  endpoint=$HTTP_ENDPOINT
  for f in alltypes_plain.parquet nulls.snappy.parquet; do
    expect 0 "$basalt" parquet cat "$data/$f" && cp "$tmp/out" "$tmp/local.txt"
    b 0 parquet cat "$HTTP_ENDPOINT/$f" && check "parquet cat http://.../$f equals the local output" same "$tmp/local.txt"
  done
  b 0 io cat "$HTTP_ENDPOINT/nulls.snappy.parquet" && check "io cat http:// equals the file" same "$data/nulls.snappy.parquet"
  b 0 io stat "$HTTP_ENDPOINT/nulls.snappy.parquet" &&
    check "io stat http:// size" test "$(stat_size)" = "$(stat -c %s "$data/nulls.snappy.parquet")"
  b 1 io cp "$tmp/small.txt" "$HTTP_ENDPOINT/x" && check "http:// is read-only: one line" one_line_stderr
  b 1 parquet cat "$HTTP_ENDPOINT/missing.parquet" && check "a missing http object: NOT_FOUND" has NOT_FOUND
else
  check "nginx starts" false
fi

# ------------------------------------------------------------- secrets
section secrets
stop_servers  # flush and close every server log
check "basalt ran and its output was kept ($runs runs)" test "$runs" -gt 40
check "the secret is in no basalt output and no server log" \
  not grep -r -q -F -- "$S3_SECRET_ACCESS_KEY" "$logs" "$SERVER_LOG_DIR"
printf 'planted %s\n' "$S3_ACCESS_KEY_ID" >"$logs/planted.txt"
check "the search finds a planted credential (it can fail)" grep -r -q -F -- "$S3_ACCESS_KEY_ID" "$logs"
section done
finish
