#!/usr/bin/env bash
# Randomised differential test of `basalt sql` against DuckDB
# (tests/sql/sql_differential.mjs): seeded Parquet tables written by DuckDB,
# a fixed list of queries over every clause the binder knows plus random
# filters, group-bys, joins and top-k, run by both; basalt at 1, 2 and 4
# threads must agree with itself byte for byte and with DuckDB on the rows.
#   BASALT_RANDOM_SEED     seed (default 1)
#   BASALT_RANDOM_QUERIES  generated queries (default 150)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/sql_differential.mjs" "$basalt" "$tmp/tables" "${BASALT_RANDOM_SEED:-1}" \
     "${BASALT_RANDOM_QUERIES:-150}" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep MISMATCH -A1 "$tmp/log" | head -40
tail -1 "$tmp/log"
finish
