#!/usr/bin/env bash
# taxibench end to end against DuckDB: basalt-taxigen writes 24 months of
# trips, bench/taxi/load.sh loads them into an Iceberg table (one append per
# month, partitioned by month), and bench/taxi/bench_taxi.mjs runs the eight
# queries on basalt (basalt-taxibench, through the catalog) and on DuckDB
# over the same rows, at 1 and 2 threads: counts exact, sums to 1e-9,
# `files` and `rows_scanned` equal, or the run fails. Four tables:
#   1. local, SQLite catalog; q2, q6 and q7 plan only their months' files;
#   2. after a merge-on-read delete of one zone's trips (DuckDB reads a copy
#      of the surviving rows);
#   3. after a compaction that applies those deletes;
#   4. on S3 (moto) through basalt's own REST catalog server. This moto runs
#      without signature checks: with them, moto refuses any key holding
#      '=' (boto3's requests too), and Iceberg's partition folders hold one
#      (pickup_month=2024-06); io_store_s3.sh checks the signer on moto.
#   BASALT_TAXI_ROWS  rows over the 24 months (default 1000000)
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$root/node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
build=$(cd "$(dirname "$basalt")/../.." && pwd)
gen=$build/bench/taxigen/basalt-taxigen
rows=${BASALT_TAXI_ROWS:-1000000}
for p in "$gen" "$build/bench/taxi/basalt-taxibench"; do
  check "$(basename "$p") is built" test -x "$p" || { finish; exit; }
done
duck() { node "$here/sql/duckdb_query.mjs" "$1"; }
cd "$tmp"

expect 0 "$gen" --scale "$rows" --out "$tmp/src"
cat="sqlite:$tmp/wh/catalog.db"
mkdir -p "$tmp/wh"
expect 0 bash "$root/bench/taxi/load.sh" "$tmp/src" --catalog "$cat" --basalt "$basalt"
check "the table holds every row" grep -qx "rows: $rows" "$tmp/out"
expect 0 "$basalt" iceberg snapshots taxi.trips --catalog "$cat"
check "one append per month: 24 snapshots" test "$(grep -c append "$tmp/out")" -eq 24

# bench NAME ARGS...: the eight queries on basalt and DuckDB, answers diffed.
bench() {
  local name=$1; shift
  expect 0 node "$root/bench/taxi/bench_taxi.mjs" --build "$build" --engines basalt,duckdb \
    --threads 1,2 --repeat 1 --pin1 none --out "$tmp/$name.json" "$@"
  check "$name: all answers agree, files and rows_scanned equal" grep -q 'all answers agree' "$tmp/out"
}
# files NAME QUERY: basalt's `files` for QUERY in run NAME
files() {
  node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1])).records;
    console.log(r.find((x) => x.engine === "basalt" && x.query === process.argv[2]).files)' "$tmp/$1.json" "$2"
}

bench local --catalog "$cat"
check "q2 (one quarter) plans 3 files" test "$(files local q2)" = 3
check "q6 (2024) plans 12 files" test "$(files local q6)" = 12
check "q7 (one month) plans 1 file" test "$(files local q7)" = 1
check "q1 plans all 24" test "$(files local q1)" = 24

# The surviving rows for DuckDB: each month without zone 161.
mkdir -p "$tmp/kept"
for f in "$tmp"/src/yellow_tripdata_*.parquet; do
  duck "COPY (SELECT * FROM '$f' WHERE \"PULocationID\" IS DISTINCT FROM 161) TO '$tmp/kept/$(basename "$f")'" >/dev/null
done
expect 0 "$basalt" iceberg delete taxi.trips --where 'PULocationID = 161' --mode mor --catalog "$cat"
expect 0 "$basalt" iceberg files taxi.trips --catalog "$cat"
check "merge-on-read: the data files have delete files" grep -qE '^# .*delete files [1-9]' "$tmp/out"
bench deleted --catalog "$cat" --peer-files "$tmp/kept"

expect 0 "$basalt" iceberg compact taxi.trips --catalog "$cat"
expect 0 "$basalt" iceberg files taxi.trips --catalog "$cat"
check "compaction applied the deletes" grep -qE '^# .*delete files 0' "$tmp/out"
bench compacted --catalog "$cat" --peer-files "$tmp/kept"
check "after compaction q7 still plans 1 file" test "$(files compacted q7)" = 1

# On S3 (moto) through `basalt catalog serve`, the same answers.
if command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null && start_moto_noauth; then
  S3_BUCKET=$S3_NOAUTH_BUCKET
  export AWS_ENDPOINT_URL_S3=$S3_NOAUTH_ENDPOINT AWS_ACCESS_KEY_ID=taxi AWS_SECRET_ACCESS_KEY=taxi \
    AWS_REGION=us-east-1
  if start_basalt_catalog "$basalt" --catalog "sqlite:$tmp/rest.db" --warehouse "s3://$S3_BUCKET/wh"; then
    rest="rest+$BASALT_CATALOG_URL"
    expect 0 bash "$root/bench/taxi/load.sh" "$tmp/src" --catalog "$rest" --basalt "$basalt"
    check "S3: every row" grep -qx "rows: $rows" "$tmp/out"
    expect 0 "$basalt" iceberg files taxi.trips --catalog "$rest"
    check "S3: the data files are on S3" \
      test "$(grep -c "^s3://$S3_BUCKET/wh/taxi/trips/data/" "$tmp/out")" -eq 24
    bench s3 --catalog "$rest" --peer-files "$tmp/src"
    check "S3: q2 plans 3 files" test "$(files s3 q2)" = 3
    # The store keeps the bytes of the table's files (never rewritten under
    # their names): the same query again costs only the catalog's requests.
    q="SELECT count(*) FROM taxi.trips WHERE trip_distance > 0"
    requests() { sed -n 's/^io: \([0-9]*\) requests.*/\1/p' "$tmp/err"; }
    expect 0 "$basalt" --stats sql --catalog "$rest" "$q"
    once=$(requests)
    expect 0 "$basalt" --stats sql --catalog "$rest" "$q; $q"
    twice=$(requests)
    check "S3: the second run is served from the cache ($once then $twice requests)" \
      test "$twice" -le $((once + 3))
    check "S3: the cache says so" grep -qE '^io: [1-9][0-9]* opens and reads served from the cache' "$tmp/err"
    expect 0 "$basalt" --stats --cache-bytes 0 sql --catalog "$rest" "$q; $q"
    check "S3: without the cache the second run reads again ($(requests) requests)" \
      test "$(requests)" -ge $((2 * once - 3))
    # a scan that stops early closes the files opened ahead of it
    expect 0 "$basalt" sql --catalog "$rest" --format csv \
      "SELECT \"VendorID\", trip_distance FROM taxi.trips WHERE trip_distance > 5 LIMIT 3"
    check "S3: LIMIT 3 stops after three rows" test "$(wc -l <"$tmp/out")" -eq 4
  else
    check "basalt catalog serve starts" false
  fi
else
  echo "note: moto_server or boto3 missing: the S3 table not checked"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "moto and boto3 available" false
fi
finish
