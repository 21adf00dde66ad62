#!/usr/bin/env bash
# The SQL catalog on a real PostgreSQL server: a throwaway server started
# with initdb, then the catalog unit tests that need one (create, commit,
# conflicts, several processes committing and appending at once) run
# against it, views among them (tables and views in one database, the V0
# schema migrated, concurrent replaces).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
tests=$(dirname "$basalt")/../../tests/test_catalog
check "the catalog unit tests are built" [ -x "$tests" ]
if ! command -v runuser >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "skipped: PostgreSQL is missing (scripts/setup installs it)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "PostgreSQL available" false
  finish
fi
check "a PostgreSQL server starts" start_postgres
out=$(BASALT_TEST_POSTGRES_URI=$POSTGRES_URI "$tests" postgres_ 2>&1)
echo "$out" | tail -n 3
check "the catalog tests pass against PostgreSQL" grep -q '^3 passed, 0 failed' <<<"$out"
check "they did not skip" bash -c "! grep -q skipped <<<\"\$1\"" _ "$out"
finish
