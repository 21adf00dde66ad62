#!/usr/bin/env bash
# basalt iceberg verbs against the AWS Glue Data Catalog (--catalog
# glue://us-east-1) on moto, with the table files on moto's S3
# (--warehouse s3://bucket/wh). moto ignores UpdateTable's VersionId, so
# tests/catalog/moto_catalog_server.py makes it refuse a stale one as Glue
# does; boto3 proves that first. Then: namespaces, create (the Glue entry
# as Java's GlueCatalog writes it, read back by boto3), appends read back
# against DuckDB's reading of the inputs, a commit whose VersionId went
# stale (CONFLICT, its metadata file deleted), register, drop, and four
# processes appending five times each to one table: every row once, and a
# snapshot chain with sequence numbers 1..20 (read from the metadata file
# on S3 by boto3).
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

race=$tmp/race-next-update
if ! start_moto_catalog --race-file "$race"; then
  check "moto starts" false
  finish
fi
# Dummy keys (moto checks no signature; it routes by the credential scope).
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_DEFAULT_REGION AWS_ENDPOINT_URL_S3 AWS_ENDPOINT_URL_GLUE
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=$MOTO_CATALOG_URL AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
check "the launcher refuses a stale and an unknown VersionId (boto3)" test "$(aws version-check)" = ok
aws bucket bucket
cat="--catalog glue://us-east-1 --warehouse s3://bucket/wh"

# ------------------------------------------------------ namespaces, create
expect 0 "$basalt" iceberg namespaces $cat && check "no namespace yet" test ! -s "$tmp/out"
expect 0 "$basalt" iceberg create db.events --like "$in/a.parquet" $cat &&
  check "create names the location" grep -qx "created db.events at s3://bucket/wh/db.db/events" "$tmp/out"
read -r version ttype itype meta prev loc <<<"$(aws glue-table db events)"
check "the Glue entry is an EXTERNAL_TABLE of table_type ICEBERG ($ttype $itype)" \
  test "$ttype $itype" = "EXTERNAL_TABLE ICEBERG"
check "its metadata_location is the first metadata file ($meta)" \
  grep -qE '^s3://bucket/wh/db\.db/events/metadata/00000-[0-9a-f-]{36}\.metadata\.json$' <<<"$meta"
check "its StorageDescriptor.Location is the table location" test "$loc" = s3://bucket/wh/db.db/events
expect 1 "$basalt" iceberg create db.events --like "$in/a.parquet" $cat &&
  check "create again: CONFLICT" grep -q 'CONFLICT' "$tmp/err"
expect 1 "$basalt" iceberg create a.b.t --schema 'id long' $cat &&
  check "a two-level namespace is refused" grep -q 'one level' "$tmp/err"
expect 0 "$basalt" iceberg namespaces $cat && check "namespace db" test "$(cat "$tmp/out")" = db
expect 0 "$basalt" iceberg tables db $cat && check "table db.events" test "$(cat "$tmp/out")" = db.events
expect 1 "$basalt" iceberg tables nosuch $cat && check "tables of a missing namespace: NOT_FOUND" \
  grep -q NOT_FOUND "$tmp/err"
expect 1 "$basalt" iceberg count db.nosuch $cat && check "a missing table: NOT_FOUND" \
  grep -q NOT_FOUND "$tmp/err"

# ------------------------------------------------------------- appends
expect 0 "$basalt" iceberg append db.events "$in/a.parquet" $cat &&
  check "append: 3000 rows" grep -q "appended 3000 rows" "$tmp/out"
expect 0 "$basalt" iceberg append db.events "$in/c.parquet" $cat
read -r version ttype itype meta prev loc <<<"$(aws glue-table db events)"
check "two commits: metadata 00002 ($meta)" grep -q '/metadata/00002-' <<<"$meta"
check "previous_metadata_location is 00001 ($prev)" grep -q '/metadata/00001-' <<<"$prev"
canon parquet "$in/a.parquet" "$in/c.parquet" >"$tmp/want"
expect 0 "$basalt" iceberg scan db.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
check "the scan gives DuckDB's rows of the inputs" cmp -s "$tmp/want" "$tmp/got"
check "boto3: two snapshots, 3500 rows" test "$(aws history glue db events)" = "2 3500"

# ------------------------------------- a stale VersionId is a CONFLICT
expect 0 "$basalt" iceberg create db.race --like "$in/a.parquet" \
  --property commit.retry.num-retries=0 $cat
expect 0 "$basalt" iceberg append db.race "$in/a.parquet" $cat
aws keys s3://bucket/wh/db.db/race/metadata/ | grep 'metadata\.json$' >"$tmp/meta-before"
touch "$race"
expect 1 "$basalt" iceberg append db.race "$in/c.parquet" $cat &&
  check "another commit between GetTable and UpdateTable: CONFLICT" grep -q '^basalt: CONFLICT' "$tmp/err" &&
  check "naming ConcurrentModificationException" grep -q ConcurrentModificationException "$tmp/err"
check "the launcher saw the update" test ! -e "$race"
aws keys s3://bucket/wh/db.db/race/metadata/ | grep 'metadata\.json$' >"$tmp/meta-after"
check "the refused commit's metadata file is deleted" cmp -s "$tmp/meta-before" "$tmp/meta-after"
expect 0 "$basalt" iceberg count db.race $cat && check "the table is as before: 3000" test "$(cat "$tmp/out")" = 3000

# ------------------------------------------------- register and drop
expect 0 "$basalt" iceberg register db.copy "$meta" $cat
read -r _ _ itype meta2 prev2 _ <<<"$(aws glue-table db copy)"
check "register stores the location as given" test "$itype $meta2 $prev2" = "ICEBERG $meta -"
expect 0 "$basalt" iceberg count db.copy $cat && check "the registered table reads" test "$(cat "$tmp/out")" = 3500
expect 1 "$basalt" iceberg register db.copy "$meta" $cat && check "register again: CONFLICT" grep -q CONFLICT "$tmp/err"
python3 -c 'import boto3, os
boto3.client("glue", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1").create_table(
    DatabaseName="db", TableInput={"Name": "hive", "TableType": "EXTERNAL_TABLE", "Parameters": {}})'
expect 0 "$basalt" iceberg tables db $cat &&
  check "only Iceberg tables are listed" test "$(tr '\n' ' ' <"$tmp/out")" = "db.copy db.events db.race "
expect 1 "$basalt" iceberg count db.hive $cat && check "a Hive table does not load" grep -q 'not an Iceberg table' "$tmp/err"
expect 0 "$basalt" iceberg drop db.copy $cat
expect 0 "$basalt" iceberg tables db $cat && check "dropped" test "$(tr '\n' ' ' <"$tmp/out")" = "db.events db.race "
check "drop keeps the files" test -n "$(aws keys s3://bucket/wh/db.db/events/metadata/)"
expect 1 "$basalt" iceberg drop db.copy $cat && check "drop again: NOT_FOUND" grep -q NOT_FOUND "$tmp/err"

# ------------------------------------- four processes, five appends each
expect 0 "$basalt" iceberg create db.conc --like "$in/b.parquet" \
  --property commit.retry.num-retries=100 --property commit.retry.min-wait-ms=5 \
  --property commit.retry.max-wait-ms=200 $cat
pids=()
for w in 1 2 3 4; do
  ( for k in 1 2 3 4 5; do "$basalt" iceberg append db.conc "$in/b.parquet" --threads 1 $cat || exit 1; done ) \
    >"$tmp/conc-$w.out" 2>"$tmp/conc-$w.err" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check "four processes x five appends all succeed" test "$failed" = 0 || cat "$tmp"/conc-*.err | head -5
expect 0 "$basalt" iceberg count db.conc $cat && check "every appended row once: 40000" test "$(cat "$tmp/out")" = 40000
check "boto3: one chain of 20 snapshots, sequence numbers 1..20, 40000 rows" \
  test "$(aws history glue db conc)" = "20 40000"
finish
