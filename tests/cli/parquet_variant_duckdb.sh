#!/usr/bin/env bash
# VARIANT against DuckDB: every shredded_variant case basalt reads is
# written back by basalt (basalt parquet rewrite: unshredded VARIANT groups
# from the reassembled values), and DuckDB must read the copy as it reads
# the original, row by row (tests/parquet/duckdb_variant.mjs). The cases
# basalt refuses must fail with one clear line.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../parquet/duckdb_variant.mjs
if ! command -v node >/dev/null || ! (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
dir=$testdata/parquet-testing/shredded_variant
# name -> why DuckDB's reading of the original differs from basalt's (and
# Iceberg's, the corpus's oracle); the value basalt reads is checked against
# the corpus's .variant.bin by tests/unit/parquet/variant_test.c.
declare -A differ=(
  [case-043-INVALID.parquet]="invalid by the spec: 'b' is in both the shredded columns (missing there) and the value object; Iceberg and basalt take the shredded column, DuckDB the value's field"
)
pairs=()
refused=0
copied=0
for f in "$dir"/case-*.parquet; do
  name=$(basename "$f")
  if "$basalt" parquet rewrite "$f" "$tmp/$name" 2>"$tmp/err" >/dev/null; then
    copied=$((copied + 1))
    if [ -n "${differ[$name]:-}" ]; then
      echo "not compared: $name: ${differ[$name]}"
    else
      pairs+=("$f" "$tmp/$name")
    fi
  else
    refused=$((refused + 1))
    check "$name: refused with one line" one_line_stderr
  fi
done
# cases.json: 6 cases must fail (040, 042, 087, 127, 128, 137)
check "six cases refused" [ "$refused" -eq 6 ]
check "131 copies" [ "$copied" -eq 131 ]
node "$script" "${pairs[@]}" >"$tmp/out" 2>&1
check "DuckDB's reading of every copy equals its reading of the original" [ $? -eq 0 ]
grep -v '^ok ' "$tmp/out"
check "DuckDB reads every copy as its original" [ "$(grep -c '^ok ' "$tmp/out")" -ge 120 ]
echo "$(grep -c '^ok ' "$tmp/out") copies read alike, $(grep -c '^skipped ' "$tmp/out") originals DuckDB cannot read"
# basalt parquet cat prints the variants as JSON
expect 0 "$basalt" parquet cat --format json "$dir/case-134.parquet" && check "cat: a variant as JSON" \
  grep -qx '{"id":1,"var":{"a":null,"b":"iceberg","d":"2024-01-30"}}' "$tmp/out"
expect 0 "$basalt" parquet head "$dir/case-001.parquet" && check "head: a variant as JSON" \
  grep -q '\["comedy","drama"\]' "$tmp/out"
finish
