#!/usr/bin/env bash
# Window frames of `basalt sql` against DuckDB (tests/sql/window_frames_differential.mjs):
# RANGE frames with offsets over every ORDER BY key type, ASC and DESC, NULLs
# first and last, every kind of bound pair; GROUPS frames; EXCLUDE over
# RANGE, GROUPS and ROWS frames; the errors both raise.
#   BASALT_RANDOM_SEED     seed of the table (default 1)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/window_frames_differential.mjs" "$basalt" "$tmp/tables" \
     "${BASALT_RANDOM_SEED:-1}" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep MISMATCH -A1 "$tmp/log" | head -40
tail -1 "$tmp/log"
finish
