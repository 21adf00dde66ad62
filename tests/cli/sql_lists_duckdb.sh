#!/usr/bin/env bash
# List columns printed as DuckDB prints them (tests/sql/lists_render.mjs):
# DuckDB writes a Parquet file with lists of integers, strings, doubles,
# floats, decimals, dates, timestamps and booleans (NULL lists, empty lists,
# NULL elements, strings that need quotes); `basalt sql` must write DuckDB's
# own CSV of it byte for byte, the same cells in a table, DuckDB's values
# in JSON, and DuckDB's type names from typeof().
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/lists_render.mjs" "$basalt" "$tmp/work" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep -v '^ok' "$tmp/log" | head -20
finish
