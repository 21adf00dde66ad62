#!/usr/bin/env bash
# Scalar functions of `basalt sql` against DuckDB's
# (tests/sql/functions_differential.mjs over the query lists in
# tests/sql/functions/): the same rows, or an error on both sides.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/functions_differential.mjs" "$basalt" "$tmp/work" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep -v '^ok' "$tmp/log" | head -60
finish
