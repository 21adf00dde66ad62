#!/usr/bin/env bash
# basalt iceberg verbs against Iceberg REST catalogs (--catalog
# rest+http://...): a minimal catalog written from the OpenAPI document
# (tests/catalog/mini_rest_server.py, not from basalt's code) under a base
# path and a {prefix}, paging its listings two at a time. Creates (plain and
# staged), appends read back against DuckDB's reading of the inputs, two
# writers at once (one gets 409 and retries), 503 on a commit (the commit
# state is unknown: every file is kept, applied or not), drop and register,
# the spec's default endpoints, bearer tokens (401 reported), OAuth2 client
# credentials with tokens that expire (renewed before they lapse, and after
# a 401), and vended S3 credentials on moto (longest prefix first). Then the
# same flow against basalt's own server (`basalt catalog serve`).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "node and DuckDB available" false
  finish
fi
in=$tmp/in
mkdir -p "$in"
check "DuckDB writes the inputs" node "$here/iceberg/make_write_input.mjs" "$in"
canon() { node "$here/iceberg/canonical_rows.mjs" "$@"; }
# stat URL KEY: one of the catalog's counters.
stat() {
  curl -s "$1/control/stats" | "$py" -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"
}
control() { curl -s -f -X POST "$1/control/$2" >/dev/null; }
data_files() { find "$1" -path '*/data/*' -name '*.parquet' | sort; }

# ------------------------------------------------- base path and prefix
wh=$tmp/wh
mkdir -p "$wh"
if ! start_mini_rest --warehouse "$wh" --base-path /api/catalog --prefix wh1; then
  check "the mini REST catalog starts" false
  finish
fi
url=$MINI_REST_URL
log=$MINI_REST_LOG
cat="--catalog rest+http://127.0.0.1:$MINI_REST_PORT/api/catalog"

expect 0 "$basalt" iceberg namespaces $cat && check "no namespaces yet" test ! -s "$tmp/out"
expect 0 "$basalt" iceberg create db.events --like "$in/a.parquet" --partition 'month(ts)' $cat &&
  check "the server chose the location" grep -q "created db.events at $wh/db/events" "$tmp/out"
check "the server wrote the first metadata file" \
  test -n "$(ls "$wh"/db/events/metadata/00000-*.metadata.json 2>/dev/null)"
check "requests went under the base path and the prefix" \
  grep -q '"POST /api/catalog/v1/wh1/namespaces/db/tables HTTP' "$log"
expect 0 "$basalt" iceberg namespaces $cat && check "namespace db" test "$(cat "$tmp/out")" = db
expect 1 "$basalt" iceberg create db.events --schema 'id long' $cat &&
  check "creating it twice: 409 AlreadyExists, one line" \
    grep -q 'CONFLICT: .*HTTP 409 AlreadyExistsException' "$tmp/err" && check "one line" one_line_stderr

# Nested namespaces travel as levels joined by %1F.
expect 0 "$basalt" iceberg create db.sub.t0 --schema 'id long' $cat
check "a nested namespace in a path: db%1Fsub" grep -q 'namespaces/db%1Fsub/tables' "$log"
expect 0 "$basalt" iceberg namespaces $cat &&
  check "namespaces db, db.sub" test "$(tr '\n' ' ' <"$tmp/out")" = "db db.sub "
check "the parent is a query parameter" grep -q 'namespaces?parent=db&pageToken=' "$log"

# Listing pages two at a time: every page is followed.
for t in t1 t2 t3 t4 t5; do
  expect 0 "$basalt" iceberg create "db.$t" --schema 'id long, v string' $cat
done
pages_before=$(stat "$url" pages)
expect 0 "$basalt" iceberg tables db $cat
printf '%s\n' db.events db.t1 db.t2 db.t3 db.t4 db.t5 db.sub.t0 >"$tmp/want-tables"
check "all seven tables, across pages" cmp -s "$tmp/want-tables" "$tmp/out"
check "the six tables of db took three pages" test $(($(stat "$url" pages) - pages_before)) -ge 4

# ---------------------------------------------------------------- append
expect 0 "$basalt" iceberg append db.events "$in/a.parquet" $cat &&
  check "append: 3000 rows" grep -q "appended 3000 rows" "$tmp/out"
expect 0 "$basalt" iceberg count db.events $cat && check "count 3000" test "$(cat "$tmp/out")" = 3000
expect 0 "$basalt" iceberg describe db.events $cat
check "describe: the server's second metadata file" \
  grep -qE "^metadata +$wh/db/events/metadata/00001-" "$tmp/out"
check "describe: a current snapshot" grep -qE '^current-snapshot +[0-9]+' "$tmp/out"

# Two writers from the same base: one commit gets 409 and is retried.
control "$url" 'commit-barrier?n=2'
conflicts_before=$(stat "$url" commit_conflicts)
"$basalt" iceberg append db.events "$in/b.parquet" $cat >"$tmp/w1" 2>&1 &
p1=$!
"$basalt" iceberg append db.events "$in/c.parquet" $cat >"$tmp/w2" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "both concurrent appends succeed ($(cat "$tmp/w1" "$tmp/w2" | tr '\n' ' '))" \
  test "$r1$r2" = 00
check "one of them met 409 CommitFailed" test $(($(stat "$url" commit_conflicts) - conflicts_before)) -ge 1
expect 0 "$basalt" iceberg count db.events $cat && check "count 5500" test "$(cat "$tmp/out")" = 5500
canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet" >"$tmp/want-all"
canon parquet "$in/a.parquet" >"$tmp/want-a"
expect 0 "$basalt" iceberg scan db.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
check "the scan gives DuckDB's rows of the three inputs" cmp -s "$tmp/want-all" "$tmp/got"

# 503 on a commit the server applied: the outcome is unknown until the
# table is loaded again and shows the snapshot, so the append succeeds,
# once, and nothing is deleted -- the table needs every one of its files.
data_files "$wh/db/events" >"$tmp/files-before"
control "$url" 'fail-next-commit?status=503&applied=1'
expect 0 "$basalt" iceberg append db.events "$in/a.parquet" $cat &&
  check "503 on an applied commit: the reloaded table shows it" grep -q 'appended 3000 rows' "$tmp/out"
data_files "$wh/db/events" >"$tmp/files-after"
check "503: no data file deleted" test "$(comm -23 "$tmp/files-before" "$tmp/files-after" | wc -l)" = 0
check "503: the new data files are there" test "$(comm -13 "$tmp/files-before" "$tmp/files-after" | wc -l)" -ge 1
expect 0 "$basalt" iceberg count db.events $cat && check "the applied commit counts: 8500" test "$(cat "$tmp/out")" = 8500
expect 0 "$basalt" iceberg scan db.events --format csv $cat &&
  check "and reads: its files are all there" test "$(wc -l <"$tmp/out")" = 8501
# 503 on a commit the server dropped: the files stay as well.
data_files "$wh/db/events" >"$tmp/files-before"
control "$url" 'fail-next-commit?status=503'
expect 1 "$basalt" iceberg append db.events "$in/b.parquet" $cat &&
  check "503 (dropped): commit state unknown" grep -q 'commit state .*unknown' "$tmp/err"
data_files "$wh/db/events" >"$tmp/files-after"
check "503 (dropped): the new data files are kept" \
  test "$(comm -13 "$tmp/files-before" "$tmp/files-after" | wc -l)" -ge 1
expect 0 "$basalt" iceberg count db.events $cat && check "count unchanged" test "$(cat "$tmp/out")" = 8500

# ------------------------------------------------ drop, register, staged
expect 0 "$basalt" iceberg describe db.t5 $cat
t5=$(sed -n 's/^metadata  *//p' "$tmp/out")
expect 0 "$basalt" iceberg drop db.t5 $cat && check "drop" grep -q 'dropped db.t5' "$tmp/out"
check "the metadata file stays" test -f "$t5"
expect 0 "$basalt" iceberg tables db $cat && check "t5 gone" test "$(grep -c 't5' "$tmp/out")" = 0
expect 1 "$basalt" iceberg drop db.t5 $cat && check "drop again: NOT_FOUND" grep -q 'NOT_FOUND: .*404 NoSuchTableException' "$tmp/err"
expect 0 "$basalt" iceberg register db.t5 "$t5" $cat
expect 0 "$basalt" iceberg tables db $cat && check "t5 registered again" grep -qx 'db.t5' "$tmp/out"
staged_before=$(stat "$url" staged_creates)
expect 0 "$basalt" iceberg create db.staged --like "$in/a.parquet" --partition 'day(d)' --stage-create $cat
check "a staged create and a commit with assert-create" test $(($(stat "$url" staged_creates) - staged_before)) -ge 2
expect 0 "$basalt" iceberg append db.staged "$in/c.parquet" $cat
expect 0 "$basalt" iceberg count db.staged $cat && check "staged table: 500 rows" test "$(cat "$tmp/out")" = 500
expect 0 "$basalt" iceberg describe db.staged $cat &&
  check "its partition spec came through the commit" grep -qE 'd_day: day\(5 d\)' "$tmp/out"

# ------------------------------------- no endpoints sent: the default set
wh2=$tmp/wh2
mkdir -p "$wh2"
start_mini_rest --warehouse "$wh2" --no-endpoints --expect-warehouse 'w 2' ||
  check "second catalog starts" false
cat2="--catalog rest+http://127.0.0.1:$MINI_REST_PORT?warehouse=w%202"
expect 1 "$basalt" iceberg namespaces --catalog "rest+http://127.0.0.1:$MINI_REST_PORT" --warehouse w1 &&
  check "another warehouse: 404 NoSuchWarehouse" grep -q 'NOT_FOUND: .*NoSuchWarehouseException' "$tmp/err"
check "the warehouse is a query parameter of the config" grep -q 'GET /v1/config?warehouse=w1 HTTP' "$MINI_REST_LOG"
expect 0 "$basalt" iceberg create ns.t --like "$in/c.parquet" $cat2
expect 0 "$basalt" iceberg append ns.t "$in/c.parquet" $cat2
expect 0 "$basalt" iceberg count ns.t $cat2 && check "default endpoints: 500 rows" test "$(cat "$tmp/out")" = 500
check "no prefix: /v1/namespaces" grep -q '"POST /v1/namespaces HTTP' "$MINI_REST_LOG"
check "the URI's warehouse, encoded" grep -q 'GET /v1/config?warehouse=w%202 HTTP' "$MINI_REST_LOG"
check "HEAD is not in the default set: never sent" test "$(grep -c '"HEAD ' "$MINI_REST_LOG")" = 0

# --------------------------------------------------------- bearer token
wh3=$tmp/wh3
mkdir -p "$wh3"
start_mini_rest --warehouse "$wh3" --token tok-7f3a9c || check "token catalog starts" false
cat3="--catalog rest+http://127.0.0.1:$MINI_REST_PORT"
expect 1 "$basalt" iceberg namespaces $cat3 &&
  check "no token: AUTH, 401 NotAuthorized" grep -q 'AUTH: .*HTTP 401 NotAuthorizedException' "$tmp/err" &&
  check "no token: one line" one_line_stderr
expect 1 "$basalt" iceberg namespaces --token wrong $cat3 &&
  check "a wrong token: AUTH" grep -q 'AUTH: .*401' "$tmp/err"
expect 0 "$basalt" iceberg create db.t --schema 'id long' --token tok-7f3a9c $cat3
expect 0 env BASALT_REST_TOKEN=tok-7f3a9c "$basalt" iceberg tables $cat3 &&
  check "the token from the environment" test "$(cat "$tmp/out")" = db.t
check "the token is in no log" test "$(grep -c tok-7f3a9c "$SERVER_LOG_DIR"/* | grep -vc ':0$')" = 0

# ------------------------------------------- OAuth2 client credentials
# Tokens live one second; every request takes 400 ms, so one command
# outlives its first token and must renew it before it lapses.
wh4=$tmp/wh4
mkdir -p "$wh4"
start_mini_rest --warehouse "$wh4" --client app:app-s3cret --token-ttl 1 --delay-ms 400 ||
  check "oauth catalog starts" false
url4=$MINI_REST_URL
cat4="--catalog rest+http://127.0.0.1:$MINI_REST_PORT"
expect 1 "$basalt" iceberg namespaces --credential app:wrong $cat4 &&
  check "wrong client secret: AUTH naming invalid_client" grep -q 'AUTH: .*invalid_client' "$tmp/err"
expect 0 "$basalt" iceberg create db.a --schema 'id long' --credential app:app-s3cret $cat4
expect 0 "$basalt" iceberg create db.b --schema 'id long' --credential app:app-s3cret $cat4
issued=$(stat "$url4" tokens_issued)
refused=$(stat "$url4" unauthorized)
expect 0 env BASALT_REST_CREDENTIAL=app:app-s3cret "$basalt" iceberg tables $cat4 &&
  check "tables through short-lived tokens" test "$(tr '\n' ' ' <"$tmp/out")" = "db.a db.b "
check "one command fetched a second token" test $(($(stat "$url4" tokens_issued) - issued)) -ge 2
check "renewed before it lapsed: no 401" test "$(stat "$url4" unauthorized)" = "$refused"
# A server whose tokens die long before it says: the 401 is answered with
# a new token and the request sent again.
wh5=$tmp/wh5
mkdir -p "$wh5"
start_mini_rest --warehouse "$wh5" --client app:app-s3cret --token-ttl 1 --advertised-ttl 3600 \
  --delay-ms 250 || check "lying oauth catalog starts" false
url5=$MINI_REST_URL
cat5="--catalog rest+http://127.0.0.1:$MINI_REST_PORT --credential app:app-s3cret"
expect 0 "$basalt" iceberg create db.a --like "$in/c.parquet" $cat5
expect 0 "$basalt" iceberg append db.a "$in/c.parquet" $cat5
expect 0 "$basalt" iceberg tables $cat5 && check "tables after a 401" test "$(cat "$tmp/out")" = db.a
check "a 401 was met" test "$(stat "$url5" unauthorized)" -ge 1
check "and answered with new tokens" test "$(stat "$url5" tokens_issued)" -ge 4

# ------------------------------- the same flow on basalt's own REST server
bc=$tmp/bc
if start_basalt_catalog "$basalt" --catalog "sqlite:$bc/catalog.db" --prefix wh --token tok-bc; then
  catb="--catalog rest+http://127.0.0.1:$BASALT_CATALOG_PORT"
  expect 1 "$basalt" iceberg namespaces $catb &&
    check "serve: no token is 401" grep -q 'AUTH: .*HTTP 401' "$tmp/err"
  catb="$catb --token tok-bc"
  expect 0 "$basalt" iceberg create db.events --like "$in/a.parquet" --partition 'month(ts)' $catb &&
    check "serve: created in its warehouse" grep -q "created db.events at $bc/db/events" "$tmp/out"
  expect 1 "$basalt" iceberg create db.events --schema 'id long' $catb &&
    check "serve: creating it twice is a conflict" grep -q 'CONFLICT: .*409' "$tmp/err"
  expect 0 "$basalt" iceberg create db.sub.t0 --schema 'id long' $catb
  for t in t1 t2 t3; do expect 0 "$basalt" iceberg create "db.$t" --schema 'id long' $catb; done
  expect 0 "$basalt" iceberg namespaces $catb &&
    check "serve: namespaces" test "$(tr '\n' ' ' <"$tmp/out")" = "db db.sub "
  expect 0 "$basalt" iceberg tables $catb &&
    check "serve: tables" test "$(tr '\n' ' ' <"$tmp/out")" = "db.events db.t1 db.t2 db.t3 db.sub.t0 "
  expect 0 "$basalt" iceberg append db.events "$in/a.parquet" $catb
  "$basalt" iceberg append db.events "$in/b.parquet" $catb >"$tmp/w1" 2>&1 &
  p1=$!
  "$basalt" iceberg append db.events "$in/c.parquet" $catb >"$tmp/w2" 2>&1 &
  p2=$!
  wait $p1; r1=$?
  wait $p2; r2=$?
  check "serve: two appends at once ($(cat "$tmp/w1" "$tmp/w2" | tr '\n' ' '))" test "$r1$r2" = 00
  expect 0 "$basalt" iceberg count db.events $catb && check "serve: count 5500" test "$(cat "$tmp/out")" = 5500
  expect 0 "$basalt" iceberg scan db.events --format csv $catb && cp "$tmp/out" "$tmp/scan-bc.csv"
  canon csv "$tmp/scan-bc.csv" >"$tmp/got"
  check "serve: the scan gives DuckDB's rows" cmp -s "$tmp/want-all" "$tmp/got"
  expect 0 "$basalt" iceberg count db.events --catalog "sqlite:$bc/catalog.db" &&
    check "serve: the commits are in its SQLite catalog" test "$(cat "$tmp/out")" = 5500
  # The other table operations commit through the same committer.
  expect 0 "$basalt" iceberg evolve db.events add-column extra string $catb
  expect 0 "$basalt" iceberg delete db.events --where 'id < 100' $catb
  expect 0 "$basalt" iceberg count db.events $catb && check "serve: delete" test "$(cat "$tmp/out")" = 5400
  expect 0 "$basalt" iceberg branch db.events create dev $catb
  expect 0 "$basalt" iceberg expire db.events --older-than 2099-01-01T00:00:00 --retain 1 $catb &&
    check "serve: expire" grep -q 'snapshots expired' "$tmp/out"
  expect 0 "$basalt" iceberg describe db.events $catb &&
    check "serve: the new column and the branch" grep -q 'extra' "$tmp/out" &&
    check "serve: the branch" grep -qw 'dev' "$tmp/out"
  expect 0 "$basalt" iceberg count db.events $catb && check "serve: still 5400" test "$(cat "$tmp/out")" = 5400
  expect 0 "$basalt" iceberg create db.staged --like "$in/c.parquet" --stage-create $catb
  expect 0 "$basalt" iceberg append db.staged "$in/c.parquet" $catb
  expect 0 "$basalt" iceberg count db.staged $catb && check "serve: staged table" test "$(cat "$tmp/out")" = 500
  expect 0 "$basalt" iceberg describe db.t3 $catb
  t3=$(sed -n 's/^metadata  *//p' "$tmp/out")
  expect 0 "$basalt" iceberg drop db.t3 $catb
  expect 0 "$basalt" iceberg register db.t3 "$t3" $catb
  expect 0 "$basalt" iceberg tables db $catb && check "serve: dropped and registered" grep -qx db.t3 "$tmp/out"
else
  check "basalt catalog serve starts" false
fi

# ------------------------------------- vended credentials, S3 on moto
if command -v moto_server >/dev/null && python3 -c 'import boto3' 2>/dev/null && start_moto; then
  start_mini_rest --warehouse "s3://$S3_BUCKET/rest-wh" --s3-endpoint "$S3_ENDPOINT" \
    --s3-key "$S3_ACCESS_KEY_ID" --s3-secret "$S3_SECRET_ACCESS_KEY" \
    --vend "s3.access-key-id=$S3_ACCESS_KEY_ID" --vend "s3.secret-access-key=$S3_SECRET_ACCESS_KEY" \
    --vend "s3.endpoint=$S3_ENDPOINT" --vend s3.path-style-access=true --vend client.region=us-east-1 \
    --vend-prefix "s3://$S3_BUCKET/rest-wh" --decoy-prefix "s3://$S3_BUCKET" ||
    check "S3 catalog starts" false
  url6=$MINI_REST_URL
  cat6="--catalog rest+http://127.0.0.1:$MINI_REST_PORT"
  # No S3 credentials of its own: only what the catalog vends.
  clean=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE
         -u AWS_ENDPOINT_URL -u AWS_ENDPOINT_URL_S3 AWS_SHARED_CREDENTIALS_FILE=/dev/null
         AWS_CONFIG_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true)
  expect 0 "${clean[@]}" "$basalt" iceberg create db.s3 --like "$in/a.parquet" $cat6 --vended-credentials &&
    check "created on S3" grep -q "created db.s3 at s3://$S3_BUCKET/rest-wh/db/s3" "$tmp/out"
  expect 0 "${clean[@]}" "$basalt" iceberg append db.s3 "$in/a.parquet" $cat6 --vended-credentials
  expect 0 "${clean[@]}" "$basalt" iceberg count db.s3 $cat6 --vended-credentials &&
    check "vended credentials read what they wrote: 3000" test "$(cat "$tmp/out")" = 3000
  expect 0 "${clean[@]}" "$basalt" iceberg scan db.s3 --format csv $cat6 --vended-credentials &&
    cp "$tmp/out" "$tmp/scan-s3.csv"
  canon csv "$tmp/scan-s3.csv" >"$tmp/got"
  check "and the data files scan as DuckDB reads the input" cmp -s "$tmp/want-a" "$tmp/got"
  check "the catalog was asked for vended credentials" test "$(stat "$url6" vended)" -ge 3
  # The same endpoint without them: moto refuses the unsigned reads.
  expect 1 "${clean[@]}" AWS_ENDPOINT_URL="$S3_ENDPOINT" AWS_REGION=us-east-1 \
    "$basalt" iceberg count db.s3 $cat6 &&
    check "without them the files are out of reach (403)" grep -q 'AUTH: .*403' "$tmp/err"
else
  echo "note: moto_server or boto3 missing: vended S3 credentials not checked"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "moto and boto3 available" false
fi

finish
