#!/usr/bin/env bash
# `basalt catalog serve`: the command line, a server on a port the kernel
# picked, every endpoint driven over HTTP by tests/catalog/rest_conformance.py
# with every response validated against the Iceberg REST OpenAPI document
# (plain, and with a prefix and a bearer token), the tables it created read
# back by `basalt iceberg describe` from the SQLite catalog file directly, a
# commit made directly in that file seen through REST, and a clean stop on
# SIGTERM and SIGINT; and the same on a PostgreSQL catalog.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
conformance=$(cd "$(dirname "$0")/../catalog" && pwd)/rest_conformance.py
spec=$testdata/iceberg/rest-catalog/rest-catalog-open-api.yaml
check "the OpenAPI document is in testdata" [ -f "$spec" ]

# ------------------------------------------------------------ command line
expect 0 "$basalt" catalog serve --help
check "serve --help names its options" grep -q -- '--max-body BYTES' "$tmp/out"
expect 0 "$basalt" catalog --help
check "the group lists serve" grep -q '^  serve' "$tmp/out"
expect 2 "$basalt" catalog serve --port 70000
check "a bad port is one line" one_line_stderr
expect 2 "$basalt" catalog serve --frobnicate
check "an unknown option is one line" one_line_stderr
expect 2 "$basalt" catalog serve --prefix a/b
expect 1 "$basalt" catalog serve --catalog "sqlite:$tmp/x.db" --bind 999.1.1.1 --port 0
check "a bad address is one line" one_line_stderr

# ------------------------------------------------------------- a server
db=$tmp/a/catalog.db
check "a server starts on a port the kernel picks" \
  start_basalt_catalog "$basalt" --catalog "sqlite:$db" --max-body 65536 --threads 3
url=$BASALT_CATALOG_URL pid=$BASALT_CATALOG_PID log=$BASALT_CATALOG_LOG
check "its first line is the URL" bash -c '[[ $(head -n 1 "$1") =~ ^listening\ on\ http://127\.0\.0\.1:[1-9][0-9]*$ ]]' _ "$log"
check "the catalog file was created" [ -f "$db" ]
expect 1 "$basalt" catalog serve --catalog "sqlite:$tmp/b.db" --port "$BASALT_CATALOG_PORT"
check "a taken port fails in one line" one_line_stderr
check "which says so" grep -q 'cannot listen' "$tmp/err"

py=$(command -v python3)
if ! "$py" -c 'import openapi_schema_validator, yaml' 2>/dev/null; then
  echo "skipped: $py lacks openapi-schema-validator or PyYAML: the REST conformance run"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "openapi-schema-validator and PyYAML available" false
else
  py_ok=1
  "$py" "$conformance" "$spec" "$url" --catalog-db "$db" --max-body 65536 >"$tmp/conf" 2>&1
  rc=$?
  tail -n 3 "$tmp/conf" | sed 's/^/  /'
  grep '^FAIL' "$tmp/conf" | head -n 20 | sed 's/^/  /'
  check "every response matches the OpenAPI document" [ "$rc" = 0 ]
  check "it ran its checks" grep -q 'checks passed' "$tmp/conf"

  # What REST created is the catalog's: read from the file, not the server.
  expect 0 "$basalt" iceberg describe db.events --catalog "sqlite:$db"
  check "describe sees the columns created through REST" grep -q 'timestamptz' "$tmp/out"
  check "describe sees the day partition" grep -q 'day' "$tmp/out"
  check "describe sees the direct commit and the REST commit after it" \
    grep -q '779' "$tmp/out"
  expect 0 "$basalt" iceberg tables --catalog "sqlite:$db"
  check "the tables listed from the file" grep -qx 'db.events' "$tmp/out"

  # With a prefix and a bearer token (given by the environment, so it is
  # not on the command line).
  export BASALT_CATALOG_TOKEN=s3cret
  check "a second server with prefix and token starts" start_basalt_catalog "$basalt" \
    --catalog "sqlite:$tmp/c/catalog.db" --prefix 'wh 1' --max-body 65536
  unset BASALT_CATALOG_TOKEN
  "$py" "$conformance" "$spec" "$BASALT_CATALOG_URL" --token s3cret --max-body 65536 \
    >"$tmp/conf2" 2>&1
  rc=$?
  tail -n 1 "$tmp/conf2" | sed 's/^/  /'
  grep '^FAIL' "$tmp/conf2" | head -n 20 | sed 's/^/  /'
  check "with prefix and token, every response matches too" [ "$rc" = 0 ]
  check "the token is not in the log" bash -c '! grep -q s3cret "$1"/*' _ "$SERVER_LOG_DIR"
  kill -INT "$BASALT_CATALOG_PID"
  wait "$BASALT_CATALOG_PID"
  check "SIGINT stops it with status 0" [ $? = 0 ]
  check "and it says so" grep -q 'stopped (SIGINT)' "$BASALT_CATALOG_LOG"
fi

# ------------------------------------------------------------ PostgreSQL
# The same server on a PostgreSQL catalog (transactions on row locks), and
# the handler's racing-commit tests against it.
tests=$(dirname "$basalt")/../../tests/test_catalog
if ! command -v runuser >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "skipped: PostgreSQL is missing (scripts/setup installs it)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "PostgreSQL available" false
elif check "a PostgreSQL server starts" start_postgres; then
  if [ -x "$tests" ]; then
    out=$(BASALT_TEST_POSTGRES_URI=$POSTGRES_URI "$tests" rest_pg_ 2>&1)
    echo "$out" | tail -n 1 | sed 's/^/  /'
    check "the handler's PostgreSQL tests pass" grep -q '^3 passed, 0 failed' <<<"$out"
    check "they did not skip" bash -c '! grep -q skipped <<<"$1"' _ "$out"
  fi
  if [ -n "${py_ok:-}" ]; then
    check "a server on the PostgreSQL catalog starts" start_basalt_catalog "$basalt" \
      --catalog "$POSTGRES_URI" --warehouse "$tmp/pg" --max-body 65536
    "$py" "$conformance" "$spec" "$BASALT_CATALOG_URL" --max-body 65536 >"$tmp/conf3" 2>&1
    rc=$?
    tail -n 1 "$tmp/conf3" | sed 's/^/  /'
    grep '^FAIL' "$tmp/conf3" | head -n 20 | sed 's/^/  /'
    check "on PostgreSQL, every response matches too" [ "$rc" = 0 ]
  fi
fi

kill -TERM "$pid"
wait "$pid"
check "SIGTERM stops it with status 0" [ $? = 0 ]
check "and it says so" grep -q 'stopped (SIGTERM)' "$log"
finish
