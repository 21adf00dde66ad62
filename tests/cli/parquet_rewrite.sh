#!/usr/bin/env bash
# basalt parquet rewrite: files written by basalt's Parquet writer, read by
# DuckDB and by basalt. A seeded table of every flat type DuckDB has
# (tests/parquet/writer_gen.mjs) and corpus files (flat, and nested lists,
# maps and structs) are rewritten with
# each codec, both page versions, dictionaries on and off, per-column
# encodings and small row groups and pages; then
#   - DuckDB reads the same rows from the rewritten file as from the input
#     (tests/parquet/duckdb_json.mjs),
#   - basalt reads the same rows from both (parquet cat --format json),
#   - DuckDB's parquet_metadata() shows the codec, encodings and row groups
#     asked for, and the same min/max/null_count as DuckDB's own writer gives
#     for the same values (tests/parquet/writer_meta.mjs),
#   - DuckDB reads every column as the same type as the input's, and its
#     parquet_schema() shows, element by element, what the Parquet format
#     prescribes for the Arrow type written, the input's field ids, and
#     (for DuckDB-written inputs) what DuckDB's own writer writes, but for
#     listed, intended differences (tests/parquet/writer_schema.mjs),
#   - a failed rewrite leaves no file behind.
# Skipped, saying so, when node or @duckdb/node-api is missing.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null || ! (cd "$pq" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped: node or @duckdb/node-api is not installed"
  exit 0
fi

expect 0 "$basalt" parquet rewrite --help
check "rewrite --help prints usage" grep -q 'usage: basalt parquet rewrite' "$tmp/out"

in=$tmp/gen.parquet
node "$pq/writer_gen.mjs" "$in" 7000 1 || { echo "FAIL: writer_gen.mjs"; exit 1; }
node "$pq/duckdb_json.mjs" "$in" >"$tmp/in.duck.json" || { echo "FAIL: DuckDB read of the input"; exit 1; }
"$basalt" parquet cat "$in" --format json >"$tmp/in.basalt.json" || { echo "FAIL: basalt read of the input"; exit 1; }

# same_rows NAME OUT IN_DUCK IN_BASALT: both readers give the input's rows.
same_rows() {
  local name=$1 out=$2 duck=$3 bas=$4
  checks=$((checks + 1))
  if ! node "$pq/duckdb_json.mjs" "$out" >"$tmp/out.duck.json" 2>"$tmp/duck.err"; then
    echo "FAIL: $name: DuckDB cannot read it: $(grep -m1 Error "$tmp/duck.err")"
    failures=$((failures + 1)); return 1
  fi
  if ! cmp -s "$duck" "$tmp/out.duck.json"; then
    echo "FAIL: $name: DuckDB reads other rows:"
    diff "$duck" "$tmp/out.duck.json" | head -4 | cut -c1-300 | sed 's/^/  /'
    failures=$((failures + 1)); return 1
  fi
  checks=$((checks + 1))
  if ! "$basalt" parquet cat "$out" --format json >"$tmp/out.basalt.json" 2>"$tmp/basalt.err" ||
     ! cmp -s "$bas" "$tmp/out.basalt.json"; then
    echo "FAIL: $name: basalt reads other rows: $(head -1 "$tmp/basalt.err")"
    diff "$bas" "$tmp/out.basalt.json" | head -4 | cut -c1-300 | sed 's/^/  /'
    failures=$((failures + 1)); return 1
  fi
}

# layout_has NAME PATTERN: some chunk line of writer_meta.mjs layout matches.
layout() { node "$pq/writer_meta.mjs" "$1" layout; }

out=$tmp/out.parquet
run=0
for codec in uncompressed snappy gzip brotli zstd lz4_raw; do
  for pv in 1 2; do
    for dict in on off; do
      run=$((run + 1))
      name="codec $codec, page v$pv, dictionary $dict"
      expect 0 "$basalt" parquet rewrite "$in" "$out" --codec "$codec" --page-version "$pv" \
        --dictionary "$dict" --row-group-size $((1000 + run * 500)) --page-size $((4096 * run)) ||
        continue
      same_rows "$name" "$out" "$tmp/in.duck.json" "$tmp/in.basalt.json"
      layout "$out" >"$tmp/layout"
      want=$(echo "$codec" | tr a-z A-Z)
      check "$name: every chunk $want" \
        test "$(awk -F' [|] ' -v c="$want" '$4 != c' "$tmp/layout" | wc -l)" -eq 0
      groups=$(( (7000 + 1000 + run * 500 - 1) / (1000 + run * 500) ))
      check "$name: $groups row groups" \
        test "$(cut -d'|' -f1 "$tmp/layout" | sort -u | wc -l)" -eq "$groups"
      if [ "$dict" = off ]; then
        check "$name: no dictionary" bash -c "! grep -q RLE_DICTIONARY '$tmp/layout'"
      else
        check "$name: constant column dictionary-encoded" grep -q '| k | BYTE_ARRAY | .* RLE_DICTIONARY' "$tmp/layout"
      fi
    done
  done
done

# per-column encodings
expect 0 "$basalt" parquet rewrite "$in" "$out" --codec zstd --level 1 \
  --encoding i32=DELTA_BINARY_PACKED --encoding i64=delta_binary_packed \
  --encoding s=DELTA_BYTE_ARRAY --encoding bl=DELTA_LENGTH_BYTE_ARRAY \
  --encoding f64=BYTE_STREAM_SPLIT --encoding f32=BYTE_STREAM_SPLIT --encoding u8=PLAIN
same_rows "per-column encodings" "$out" "$tmp/in.duck.json" "$tmp/in.basalt.json"
layout "$out" >"$tmp/layout"
for ce in "i32 DELTA_BINARY_PACKED" "i64 DELTA_BINARY_PACKED" "s DELTA_BYTE_ARRAY" \
          "bl DELTA_LENGTH_BYTE_ARRAY" "f64 BYTE_STREAM_SPLIT" "f32 BYTE_STREAM_SPLIT"; do
  set -- $ce
  check "encoding of $1 is $2" grep -q "| $1 | [A-Z_0-9]* | ZSTD | .*$2" "$tmp/layout"
done
check "u8 PLAIN only" grep -Eq '[|] u8 [|] INT32 [|] ZSTD [|] PLAIN(, RLE)?$' "$tmp/layout"

# statistics: the same as DuckDB's writer gives for the same values, in one
# row group. DuckDB writes none for a DOUBLE column holding NaN; those lines
# read "null" on its side and are not compared.
expect 0 "$basalt" parquet rewrite "$in" "$out"
node "$pq/writer_meta.mjs" "$out" copy "$tmp/duck.parquet"
node "$pq/writer_meta.mjs" "$tmp/duck.parquet" stats >"$tmp/stats.duck"
node "$pq/writer_meta.mjs" "$out" stats >"$tmp/stats.basalt"
compared=$(paste -d'\n' "$tmp/stats.duck" "$tmp/stats.basalt" | awk '
  NR % 2 == 1 { d = $0; next }
  { if (d ~ /\| null \| null \|/) next; n++; if (d != $0) { print "  duckdb: " d; print "  basalt: " $0; bad++ } }
  END { print n + 0 > "/dev/stderr"; exit bad > 0 }' 2>"$tmp/ncompared")
rc=$?
checks=$((checks + 1))
if [ $rc -ne 0 ]; then echo "FAIL: statistics differ from DuckDB's writer:"; echo "$compared"; failures=$((failures + 1)); fi
check "statistics compared for at least 20 columns" test "$(cat "$tmp/ncompared")" -ge 20

# bloom filters, probed by DuckDB: the first row's i32 value is in row group
# 0 only; a value never written is excluded everywhere
expect 0 "$basalt" parquet rewrite "$in" "$out" --bloom i32 --bloom s --row-group-size 2000
same_rows "bloom filters" "$out" "$tmp/in.duck.json" "$tmp/in.basalt.json"
first=$(head -1 "$tmp/in.duck.json" | sed 's/.*"i32":\(-\{0,1\}[0-9]*\).*/\1/')
node "$pq/writer_meta.mjs" "$out" bloom i32 "$first" >"$tmp/probe"
check "bloom: i32 $first not excluded from row group 0" grep -qx '0 | false' "$tmp/probe"
check "bloom: i32 $first excluded from row group 3" grep -qx '3 | true' "$tmp/probe"
node "$pq/writer_meta.mjs" "$out" bloom s "'not-a-value'" >"$tmp/probe"
check "bloom: an absent string excluded from all 4 row groups" \
  test "$(grep -c '| true$' "$tmp/probe")" -eq 4
expect 1 "$basalt" parquet rewrite "$in" "$tmp/none.parquet" --bloom b

# parallel encoding gives the same bytes
expect 0 "$basalt" parquet rewrite "$in" "$tmp/t1.parquet" --row-group-size 2500 --threads 1
expect 0 "$basalt" parquet rewrite "$in" "$tmp/t4.parquet" --row-group-size 2500 --threads 4
check "--threads 4 writes the bytes --threads 1 does" cmp -s "$tmp/t1.parquet" "$tmp/t4.parquet"

# schema checks (writer_schema.mjs check): one line per rewritten file,
# IN OUT ARROW REF; REF is a DuckDB-written file of the same schema or "-"
mkdir "$tmp/schema"
: >"$tmp/schema.list"
schema_case() {
  local src=$1 out=$2 ref=$3 key
  key=$tmp/schema/$(basename "$src")
  cp "$out" "$key.out.parquet"
  "$basalt" parquet schema "$src" | sed -n '/^arrow schema:$/,$p' >"$key.arrow"
  printf '%s\t%s\t%s\t%s\n' "$src" "$key.out.parquet" "$key.arrow" "$ref" >>"$tmp/schema.list"
}
expect 0 "$basalt" parquet rewrite "$in" "$out" && schema_case "$in" "$out" "$in"
# DuckDB-written nested types with a field id on every element
fid=$tmp/fieldids.parquet
node "$pq/writer_schema.mjs" fieldids "$fid" || { echo "FAIL: writer_schema.mjs fieldids"; exit 1; }
node "$pq/duckdb_json.mjs" "$fid" >"$tmp/fid.duck.json" || { echo "FAIL: DuckDB read of $fid"; exit 1; }
"$basalt" parquet cat "$fid" --format json >"$tmp/fid.basalt.json" || { echo "FAIL: basalt read of $fid"; exit 1; }
if expect 0 "$basalt" parquet rewrite "$fid" "$out"; then
  same_rows "nested, with field ids" "$out" "$tmp/fid.duck.json" "$tmp/fid.basalt.json"
  schema_case "$fid" "$out" "$fid"
fi

# corpus files, flat and nested
for f in alltypes_plain.parquet alltypes_dictionary.parquet alltypes_plain.snappy.parquet \
         int32_decimal.parquet int64_decimal.parquet fixed_length_decimal.parquet \
         byte_array_decimal.parquet nulls.snappy.parquet binary.parquet \
         datapage_v2.snappy.parquet single_nan.parquet float16_nonzeros_and_nans.parquet \
         float16_zeros_and_nans.parquet delta_encoding_optional_column.parquet \
         delta_length_byte_array.parquet delta_byte_array.parquet plain-dict-uncompressed-checksum.parquet \
         nested_lists.snappy.parquet nested_maps.snappy.parquet nested_structs.rust.parquet \
         list_columns.parquet nullable.impala.parquet repeated_no_annotation.parquet \
         old_list_structure.parquet incorrect_map_schema.parquet; do
  src=$testdata/parquet-testing/data/$f
  check "corpus file $f is present" test -f "$src" || continue
  if ! "$basalt" parquet rewrite "$src" "$out" --page-version 2 --codec snappy 2>"$tmp/err"; then
    if grep -q UNSUPPORTED "$tmp/err"; then echo "skip $f: $(cat "$tmp/err")"; continue; fi
    echo "FAIL: rewrite $f: $(cat "$tmp/err")"; failures=$((failures + 1)); continue
  fi
  node "$pq/duckdb_json.mjs" "$src" >"$tmp/src.duck.json" 2>/dev/null || { echo "skip $f: DuckDB cannot read the input"; continue; }
  "$basalt" parquet cat "$src" --format json >"$tmp/src.basalt.json" || continue
  same_rows "$f" "$out" "$tmp/src.duck.json" "$tmp/src.basalt.json"
  schema_case "$src" "$out" -
done

node "$pq/writer_schema.mjs" check "$tmp/schema.list" >"$tmp/schema.out" 2>&1
rc=$?
checks=$((checks + 1))
if [ $rc -ne 0 ]; then
  echo "FAIL: parquet_schema() or column types not as meant:"
  sed 's/^/  /' "$tmp/schema.out" | head -40
  failures=$((failures + 1))
fi
tail -1 "$tmp/schema.out"
# writer bugs the checks found and writer_schema.mjs lists (KNOWN_WRITER_BUGS)
sed -n 's/^KNOWN BUG (\([^)]*\)): .*/\1/p' "$tmp/schema.out" | sort | uniq -c |
  while read -r n what; do echo "known writer bug ($n differences): $what"; done
# checked F files: T column types, E elements, R reference elements, I field ids
read -r nf nt ne nr ni < <(sed -n 's/^checked \([0-9]*\) files: \([0-9]*\) column types, \([0-9]*\) elements, \([0-9]*\) reference elements, \([0-9]*\) field ids$/\1 \2 \3 \4 \5/p' "$tmp/schema.out")
# the generated table and the field-id file, and 23 corpus files
corpus=1
check "schema checked for $((2 + corpus * 23)) files or more" test "${nf:-0}" -ge $((2 + corpus * 23))
check "column types compared: $((36 + corpus * 100)) or more" test "${nt:-0}" -ge $((36 + corpus * 100))
check "schema elements checked against the format: $((65 + corpus * 400)) or more" \
  test "${ne:-0}" -ge $((65 + corpus * 400))
check "schema elements compared with DuckDB's writer: 65 or more" test "${nr:-0}" -ge 65
check "field ids compared: 32 or more" test "${ni:-0}" -ge 32
# negative controls: DuckDB's own files in place of basalt's output. The
# generated table as DuckDB wrote it has no INTEGER logical types; a DuckDB
# copy of the field-id file has no field ids.
node "$pq/writer_meta.mjs" "$fid" copy "$tmp/fid.noids.parquet"
printf '%s\t%s\t%s\t-\n' "$in" "$in" "$tmp/schema/gen.parquet.arrow" \
  "$fid" "$tmp/fid.noids.parquet" "$tmp/schema/fieldids.parquet.arrow" >"$tmp/neg.list"
node "$pq/writer_schema.mjs" check "$tmp/neg.list" >"$tmp/neg.out" 2>&1
check "negative control: a missing logical type fails" \
  grep -q '^FAIL: gen.parquet: element 2: name=i8 .* logical=null' "$tmp/neg.out"
check "negative control: a lost field id fails" \
  grep -q '^FAIL: fieldids.parquet: id: field_id null, input 1$' "$tmp/neg.out"

# errors: one line on stderr, no file left behind
rm -f "$tmp/none.parquet"
expect 2 "$basalt" parquet rewrite "$in" "$tmp/none.parquet" --codec xz
expect 2 "$basalt" parquet rewrite "$in" "$tmp/none.parquet" --encoding nocolumn
expect 1 "$basalt" parquet rewrite "$in" "$tmp/none.parquet" --encoding s=BYTE_STREAM_SPLIT
check "bad encoding: one line on stderr" one_line_stderr
expect 1 "$basalt" parquet rewrite "$in" "$tmp/none.parquet" --encoding nosuch=PLAIN
expect 1 "$basalt" parquet rewrite "$tmp/missing.parquet" "$tmp/none.parquet"
check "failed rewrites leave no file" bash -c "! ls '$tmp' | grep -q none.parquet"
finish
