#!/usr/bin/env bash
# TIME and TIMESTAMP_MS columns of files DuckDB writes (Parquet TIME(MICROS)
# and TIMESTAMP(MILLIS), CSV and JSON files of times) queried by basalt and DuckDB
# (tests/sql/time_files_differential.mjs): values, arithmetic, filters,
# aggregates, grouping, ordering and joins must agree.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/time_files_differential.mjs" "$basalt" "$tmp" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep -v '^time files:' "$tmp/log" | head -20
tail -1 "$tmp/log"
finish
