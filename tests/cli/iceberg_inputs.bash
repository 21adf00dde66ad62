# The table-writing tests' inputs: sourced after lib.bash by the
# iceberg_{write,evolve,expire,delete} cases. Skips the case (fails it with
# BASALT_REQUIRE_PEERS=1) when node or DuckDB is missing; else $in holds the
# files of tests/iceberg/make_write_input.mjs and canon() prints canonical
# rows (tests/iceberg/canonical_rows.mjs).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "node and DuckDB available" false
  finish
fi
in=$tmp/in
mkdir -p "$in"
check "DuckDB writes the inputs" node "$here/iceberg/make_write_input.mjs" "$in"
canon() { node "$here/iceberg/canonical_rows.mjs" "$@"; }
cat="--catalog sqlite:$tmp/wh/catalog.db"
