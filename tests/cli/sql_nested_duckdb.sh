#!/usr/bin/env bash
# Struct columns in SQL against DuckDB (tests/sql/nested_differential.mjs):
# a Parquet file DuckDB writes with structs NULL at every level and a list
# beside them; basalt reads the structs as their leaves (s.a, s.b.c), and
# filters, group-bys, joins, orders and windows over the leaves must give
# DuckDB's rows at 1 and 2 threads; a filter on a leaf prunes row groups;
# SELECT * names the leaves by their paths; the list column is a value in
# expressions and an error that names it as a key or an aggregate's
# argument; an Arrow IPC file's NULL structs null their leaves.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
checks=$((checks + 1))
if ! node "$here/sql/nested_differential.mjs" "$basalt" "$tmp/work" "$testdata" >"$tmp/log" 2>&1; then
  failures=$((failures + 1))
fi
grep -v '^ok' "$tmp/log" | head -40
finish
