#!/usr/bin/env bash
# basalt parquet cat --format json against DuckDB: every corpus file both
# read must print the same text as DuckDB's rows converted to basalt's JSON
# form by tests/parquet/duckdb_json.mjs. Files one of them cannot read are
# listed below with the reason.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../parquet/duckdb_json.mjs
if ! command -v node >/dev/null || ! (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  # make test installs the peers: there a missing peer is a failure.
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi

# name -> why it is not compared
declare -A skip=(
  [byte_stream_split_extended.gzip.parquet]="DuckDB rejects BYTE_STREAM_SPLIT on non-float columns"
  [datapage_v1-corrupt-checksum.parquet]="basalt verifies page CRCs; DuckDB does not"
  [rle-dict-uncompressed-corrupt-checksum.parquet]="basalt verifies page CRCs; DuckDB does not"
  [hadoop_lz4_compressed.parquet]="DuckDB lacks Parquet's LZ4 codec"
  [hadoop_lz4_compressed_larger.parquet]="DuckDB lacks Parquet's LZ4 codec"
  [non_hadoop_lz4_compressed.parquet]="DuckDB lacks Parquet's LZ4 codec"
  [int96_from_spark.parquet]="values beyond timestamp[ns] (basalt reads INT96 as Arrow C++ does)"
  [large_string_map.brotli.parquet]="2 GiB of strings: more than node can hold"
  [map_no_value.parquet]="DuckDB rejects a MAP_KEY_VALUE group with one child"
  [ARROW-17100.parquet]="DuckDB fails (Out of buffer) on the mislabelled v2 pages"
)

files=()
for f in "$testdata"/parquet-testing/data/*.parquet "$testdata"/parquet-testing/data/geospatial/*.parquet; do
  files+=("$f")
done
while IFS= read -r f; do files+=("$f"); done < <(find "$testdata/parquet-extra" -name '*.parquet' \
  -not -path '*/BYTE_STREAM_SPLIT/*' -not -path '*/fuzzing/*' | sort)

# DuckDB reads every file in one process, through links in $tmp so that its
# FILE.duckdb.json (or .err) lands there: a process per file was most of the
# test's time.
mkdir "$tmp/links"
links=()
for k in "${!files[@]}"; do
  name=$(basename "${files[$k]}")
  [ -n "${skip[$name]:-}" ] && continue
  ln -s "${files[$k]}" "$tmp/links/$k-$name"
  links+=("$tmp/links/$k-$name")
done
node "$script" --each "${links[@]}" 2>"$tmp/duckdb_each.err" ||
  echo "FAIL: duckdb_json.mjs --each: $(head -1 "$tmp/duckdb_each.err")"

compared=0
for k in "${!files[@]}"; do
  f=${files[$k]}
  name=$(basename "$f")
  if [ -n "${skip[$name]:-}" ]; then
    echo "skip $name: ${skip[$name]}"
    continue
  fi
  checks=$((checks + 1))
  duck=$tmp/links/$k-$name.duckdb
  if [ ! -f "$duck.json" ]; then
    echo "FAIL: $name: DuckDB could not read it: $(head -1 "$duck.err" 2>/dev/null)"
    failures=$((failures + 1)); continue
  fi
  if ! "$basalt" parquet cat "$f" --format json >"$tmp/basalt.json" 2>"$tmp/basalt.err"; then
    echo "FAIL: $name: $(cat "$tmp/basalt.err")"
    failures=$((failures + 1)); continue
  fi
  if ! cmp -s "$duck.json" "$tmp/basalt.json"; then
    echo "FAIL: $name differs from DuckDB:"
    diff "$duck.json" "$tmp/basalt.json" | head -6 | cut -c1-300 | sed 's/^/  /'
    failures=$((failures + 1)); continue
  fi
  compared=$((compared + 1))
done
echo "$compared files identical to DuckDB"
[ "$compared" -ge 60 ] || { echo "FAIL: fewer files compared than expected"; failures=$((failures + 1)); }
finish
