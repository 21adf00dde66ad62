#!/usr/bin/env bash
# GEOMETRY and GEOGRAPHY against DuckDB: every file of data/geospatial read
# by basalt gives DuckDB's WKB (ST_AsWKB) value for value and DuckDB's
# GeospatialStatistics (parquet_metadata's geo_bbox and geo_types) row group
# by row group (tests/parquet/duckdb_geo.mjs), and a file basalt writes from
# geoarrow.wkb columns reads back in DuckDB with the same values, types and
# statistics.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../parquet/duckdb_geo.mjs
if ! command -v node >/dev/null || ! (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
geo=$testdata/parquet-testing/data/geospatial
files=("$geo"/*.parquet)
check "ten geospatial files" [ "${#files[@]}" -eq 10 ]
expect 0 node "$script" "$basalt" "${files[@]}" && check "DuckDB's values and statistics" \
  [ "$(grep -c '^ok ' "$tmp/out")" -eq 10 ]
cat "$tmp/out"

# Written by basalt from the geoarrow.wkb columns it reads (row groups of 7
# rows, so that boxes and types are per row group), read by DuckDB.
copies=()
for f in "${files[@]}"; do
  name=$(basename "$f")
  expect 0 "$basalt" parquet rewrite "$f" "$tmp/$name" --row-group-size 7 || continue
  copies+=("$tmp/$name")
  expect 0 node "$script" --same "$f" "$tmp/$name" && check "$name: DuckDB reads the copy as the original" \
    grep -q '^ok ' "$tmp/out"
  cat "$tmp/out"
done
expect 0 node "$script" "$basalt" "${copies[@]}" && check "the copies: basalt reads DuckDB's values and statistics" \
  [ "$(grep -c '^ok ' "$tmp/out")" -eq 10 ]
finish
