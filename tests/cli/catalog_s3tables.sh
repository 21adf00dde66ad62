#!/usr/bin/env bash
# basalt iceberg verbs against Amazon S3 Tables (--catalog
# s3tables://<table bucket ARN>) on moto, whose UpdateTableMetadataLocation
# refuses a stale version token (boto3 proves it first). Namespaces, create
# (the table lands in the bucket the service made for it), appends read
# back against DuckDB's reading of the inputs, drop, and four processes
# appending five times each to one table: every row once, and a snapshot
# chain with sequence numbers 1..20 (read from the metadata file on S3 by
# boto3).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "node and DuckDB available" false
  finish
fi
if ! python3 -c 'import moto, boto3' 2>/dev/null; then
  echo "skipped: moto or boto3 is missing from python3"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "moto available" false
  finish
fi
in=$tmp/in
mkdir -p "$in"
check "DuckDB writes the inputs" node "$here/iceberg/make_write_input.mjs" "$in"
canon() { node "$here/iceberg/canonical_rows.mjs" "$@"; }
aws() { python3 "$here/catalog/aws_catalog_check.py" "$@"; }

if ! start_moto_catalog; then
  check "moto starts" false
  finish
fi
# Dummy keys (moto checks no signature; it routes by the credential scope).
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_ENDPOINT_URL_S3 AWS_ENDPOINT_URL_S3TABLES
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=$MOTO_CATALOG_URL AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
arn=$(aws table-bucket tables1)
check "a table bucket ($arn)" grep -qE '^arn:aws:s3tables:us-east-1:[0-9]+:bucket/tables1$' <<<"$arn"
check "a stale version token is refused (boto3)" test "$(aws token-check "$arn")" = ok
cat="--catalog s3tables://$arn"

# ------------------------------------------------------ namespaces, create
expect 0 "$basalt" iceberg namespaces $cat && check "no namespace yet" test ! -s "$tmp/out"
expect 0 "$basalt" iceberg create ns1.events --like "$in/a.parquet" $cat &&
  check "the service places the table in a bucket of its own" \
    grep -qE '^created ns1\.events at s3://[0-9a-f-]+--table-s3$' "$tmp/out"
expect 0 "$basalt" iceberg namespaces $cat && check "the namespace was created with it" test "$(cat "$tmp/out")" = ns1
expect 0 "$basalt" iceberg tables ns1 $cat && check "table ns1.events" test "$(cat "$tmp/out")" = ns1.events
check "boto3: no snapshot yet" test "$(aws history s3tables "$arn" ns1 events)" = "0 0"
expect 1 "$basalt" iceberg create ns1.events --like "$in/a.parquet" $cat &&
  check "create again: CONFLICT" grep -q CONFLICT "$tmp/err"
expect 1 "$basalt" iceberg register ns1.other s3://x/m.metadata.json $cat &&
  check "register: UNSUPPORTED" grep -q UNSUPPORTED "$tmp/err"
expect 1 "$basalt" iceberg count ns1.nosuch $cat && check "a missing table: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"
expect 1 "$basalt" iceberg tables nosuch $cat && check "a missing namespace: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"

# ------------------------------------------------------------- appends
expect 0 "$basalt" iceberg append ns1.events "$in/a.parquet" $cat &&
  check "append: 3000 rows" grep -q "appended 3000 rows" "$tmp/out"
expect 0 "$basalt" iceberg append ns1.events "$in/c.parquet" $cat
canon parquet "$in/a.parquet" "$in/c.parquet" >"$tmp/want"
expect 0 "$basalt" iceberg scan ns1.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
check "the scan gives DuckDB's rows of the inputs" cmp -s "$tmp/want" "$tmp/got"
check "boto3: two snapshots, 3500 rows" test "$(aws history s3tables "$arn" ns1 events)" = "2 3500"

# ------------------------------------- four processes, five appends each
expect 0 "$basalt" iceberg create ns1.conc --like "$in/b.parquet" \
  --property commit.retry.num-retries=100 --property commit.retry.min-wait-ms=5 \
  --property commit.retry.max-wait-ms=200 $cat
pids=()
for w in 1 2 3 4; do
  ( for k in 1 2 3 4 5; do "$basalt" iceberg append ns1.conc "$in/b.parquet" --threads 1 $cat || exit 1; done ) \
    >"$tmp/conc-$w.out" 2>"$tmp/conc-$w.err" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check "four processes x five appends all succeed" test "$failed" = 0 || cat "$tmp"/conc-*.err | head -5
expect 0 "$basalt" iceberg count ns1.conc $cat && check "every appended row once: 40000" test "$(cat "$tmp/out")" = 40000
check "boto3: one chain of 20 snapshots, sequence numbers 1..20, 40000 rows" \
  test "$(aws history s3tables "$arn" ns1 conc)" = "20 40000"

# ---------------------------------------------------------------- drop
expect 0 "$basalt" iceberg drop ns1.events $cat
expect 0 "$basalt" iceberg tables ns1 $cat && check "dropped" test "$(cat "$tmp/out")" = ns1.conc
expect 1 "$basalt" iceberg drop ns1.events $cat && check "drop again: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"
finish
