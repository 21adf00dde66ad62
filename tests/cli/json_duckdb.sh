#!/usr/bin/env bash
# Randomised differential test of the JSON-lines reader and writer against
# DuckDB (tests/json/json_differential.mjs): seeded random tables written by
# DuckDB as JSON lines, read by both (types and rows compared, basalt at 1, 2
# and 4 threads with small chunks); and tables written by `basalt json
# convert` read back by DuckDB.
#   BASALT_RANDOM_SEED   seed (default 1)
#   BASALT_RANDOM_FILES  files per run (default 40)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
seed=${BASALT_RANDOM_SEED:-1}
count=${BASALT_RANDOM_FILES:-40}
checks=$((checks + 1))
if ! node "$here/json/json_differential.mjs" "$basalt" "$seed" "$count" "$tmp" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep -v '^[0-9]* passed' "$tmp/log" | head -20
tail -1 "$tmp/log"
finish
