#!/usr/bin/env bash
# Randomised differential test of the Parquet writer against other readers.
# Seeded random tables come from two writers:
#   - Polars (tests/parquet/random_tables_polars.mjs: every type it writes,
#     Null columns too, lists, arrays (fixed size) and structs nested to
#     depth 3, nulls at every level; basalt reads an Array column as a
#     fixed-size list (its size from ARROW:schema) and writes it as one,
#     which Polars reads back as an Array),
#   - DuckDB (tests/parquet/random_tables.mjs: every type it writes, maps
#     too), each first rewritten by basalt with its default settings: hyparquet
#     misreads the DELTA_BINARY_PACKED UINT32 pages DuckDB writes (values of
#     2^31 and more come out 2^31 too small; Polars, DuckDB and basalt agree).
# `basalt parquet rewrite` rewrites each table with random settings
# (tests/parquet/writer_random.mjs: codec and level, page version,
# dictionary on or off, per-column encodings, row group and page sizes,
# threads), and
#   - Polars (tests/parquet/polars_json.mjs) and hyparquet with
#     hyparquet-compressors (tests/parquet/hyparquet_json.mjs) read the same
#     rows from the rewritten file as from the input,
#   - basalt reads the same rows from both (parquet cat --format json),
#   - on the Polars tables all three readers agree on the input, so every
#     reader of every file gives the same rows,
#   - on the Polars tables DuckDB (tests/parquet/duckdb_json.mjs) reads the
#     same rows from the rewritten file as from the input (its rendering of
#     some types differs from the others', so it is compared with itself).
#     (Not on the DuckDB tables:
#     there the readers map some types differently, e.g. Polars reads
#     TIME(MICROS) as nanoseconds and hyparquet makes maps objects; DuckDB's
#     own reading is tests/cli/parquet_random_duckdb.sh's.)
# A (reader, feature) pair the reader cannot read is skipped for that reader
# only, as listed in `skips` below, and counted in the summary; DuckDB is
# left out (and said so) when @duckdb/node-api is not installed.
#   BASALT_RANDOM_SEED          seed (default 1); a failure prints the seed,
#                               the table and the rewrite options
#   BASALT_RANDOM_TABLES        Polars tables per run (default 200)
#   BASALT_RANDOM_DUCKDB_TABLES DuckDB tables per run (default 50)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null ||
   ! (cd "$pq" && node -e "Promise.all(['nodejs-polars', 'apache-arrow', 'hyparquet', 'hyparquet-compressors'].map((m) => import(m)))" 2>/dev/null); then
  echo "skipped: node, nodejs-polars, apache-arrow, hyparquet or hyparquet-compressors is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi

# reader feature reason: the reader's comparison is skipped for a case whose
# features (writer_random.mjs) include the feature.
skips=(
  "polars enc:BYTE_STREAM_SPLIT:FIXED_LEN_BYTE_ARRAY Polars 0.25: 'Decoding FixedLenByteArray ByteStreamSplit-encoded optional parquet pages not yet supported'"
  "polars enc:DELTA_BYTE_ARRAY:FIXED_LEN_BYTE_ARRAY Polars 0.25: 'Decoding FixedLenByteArray DeltaByteArray-encoded optional parquet pages not yet supported'"
  "polars type:UUID Polars 0.25 cannot read the arrow.uuid extension type of basalt's ARROW:schema (input and output): 'activate dtype-extension feature'"
  "duckdb codec:LZ4 DuckDB 1.5 does not read the Hadoop-framed LZ4 codec (LZ4_RAW it reads): 'Unsupported compression codec'"
  "duckdb enc:BYTE_STREAM_SPLIT:INT32 DuckDB 1.5: 'BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE data'"
  "duckdb enc:BYTE_STREAM_SPLIT:INT64 DuckDB 1.5: as INT32"
  "duckdb enc:BYTE_STREAM_SPLIT:FIXED_LEN_BYTE_ARRAY DuckDB 1.5: as INT32"
)

seed=${BASALT_RANDOM_SEED:-1}
count=${BASALT_RANDOM_TABLES:-200}
count_duckdb=${BASALT_RANDOM_DUCKDB_TABLES:-50}
mkdir -p "$tmp/polars" "$tmp/duckdb" "$tmp/duckdb.orig"
have_duckdb=1
(cd "$pq" && node -e "import('@duckdb/node-api')" 2>/dev/null) || have_duckdb=0
checks=$((checks + 1))
if ! node "$pq/random_tables_polars.mjs" "$seed" "$count" "$tmp/polars" >"$tmp/polars.txt" 2>"$tmp/gen.err"; then
  echo "FAIL: seed $seed: Polars could not write the tables: $(grep -m1 Error "$tmp/gen.err")"
  failures=$((failures + 1)); finish; exit
fi
checks=$((checks + 1))
if [ "$count_duckdb" -gt 0 ]; then
  if [ $have_duckdb = 0 ]; then
    echo "skipped: the DuckDB tables (@duckdb/node-api is not installed)"
    count_duckdb=0
  elif ! node "$pq/random_tables.mjs" "$seed" "$count_duckdb" "$tmp/duckdb.orig" >"$tmp/duckdb.txt" 2>"$tmp/gen.err"; then
    echo "FAIL: seed $seed: DuckDB could not write the tables: $(grep -m1 Error "$tmp/gen.err")"
    failures=$((failures + 1)); finish; exit
  fi
fi
for ((i = 0; i < count_duckdb; i++)); do
  checks=$((checks + 1))
  if ! "$basalt" parquet rewrite "$tmp/duckdb.orig/t$i.parquet" "$tmp/duckdb/t$i.parquet" 2>"$tmp/err"; then
    echo "FAIL: seed $seed DuckDB table t$i.parquet: rewrite with defaults: $(cat "$tmp/err")"
    failures=$((failures + 1))
  fi
done

rewritten=()
for leg in polars duckdb; do
  d=$tmp/$leg
  n=$count; [ $leg = duckdb ] && n=$count_duckdb
  [ "$n" -gt 0 ] || continue
  checks=$((checks + 1))
  if ! node "$pq/writer_random.mjs" "$basalt" "$seed" "$d" "$n" >"$tmp/$leg.cases" 2>"$tmp/cases.err"; then
    echo "FAIL: seed $seed: writer_random.mjs ($leg tables): $(grep -m1 -i error "$tmp/cases.err")"
    failures=$((failures + 1)); continue
  fi
  while IFS=$'\t' read -r name opts features; do
    i=${name%.parquet}
    [ -f "$d/$name" ] || continue
    # shellcheck disable=SC2086 # the options are words
    if ! "$basalt" parquet rewrite "$d/$name" "$d/$i.out.parquet" $opts 2>"$d/$i.rewrite.err"; then
      checks=$((checks + 1)); failures=$((failures + 1))
      echo "FAIL: seed $seed $leg table $name: rewrite $opts: $(cat "$d/$i.rewrite.err")"
      continue
    fi
    rewritten+=("$d/$name" "$d/$i.out.parquet")
  done <"$tmp/$leg.cases"
done

if [ ${#rewritten[@]} -gt 0 ]; then
  node "$pq/polars_json.mjs" --each "${rewritten[@]}" 2>"$tmp/polars.err" ||
    echo "FAIL: polars_json.mjs: $(head -1 "$tmp/polars.err")"
  node "$pq/hyparquet_json.mjs" --each "${rewritten[@]}" 2>"$tmp/hyparquet.err" ||
    echo "FAIL: hyparquet_json.mjs: $(head -1 "$tmp/hyparquet.err")"
fi
# DuckDB's reading of the Polars files (FILE.duckdb.json or FILE.duckdb.err
# each), two processes at a time.
if [ $have_duckdb = 1 ]; then
  polars_files=()
  for f in "${rewritten[@]}"; do [[ $f == "$tmp/polars/"* ]] && polars_files+=("$f"); done
  if [ ${#polars_files[@]} -gt 0 ]; then
    printf '%s\0' "${polars_files[@]}" |
      xargs -0 -n 100 -P 2 node "$pq/duckdb_json.mjs" --each 2>"$tmp/duckdb_each.err" ||
      echo "FAIL: duckdb_json.mjs: $(head -1 "$tmp/duckdb_each.err")"
  fi
else
  echo "skipped: DuckDB as a reader of the rewritten Polars tables (@duckdb/node-api is not installed)"
fi

# same WHAT A B: files A and B hold the same text.
same() {
  checks=$((checks + 1))
  if [ -f "$2" ] && [ -f "$3" ] && cmp -s "$2" "$3"; then return 0; fi
  failures=$((failures + 1))
  echo "FAIL: $1"
  for f in "$2" "$3"; do
    [ -f "$f" ] || echo "  ${f##*/}: $(cat "${f%.json}.err" 2>/dev/null || echo missing)"
  done
  [ -f "$2" ] && [ -f "$3" ] && diff "$2" "$3" | head -4 | cut -c1-300 | sed 's/^/  /'
  return 1
}

# skip_for READER FEATURES: the first listed feature of the case that the
# reader cannot read.
skip_for() {
  local reader=$1 features=" $2 " entry
  for entry in "${skips[@]}"; do
    set -- $entry
    if [ "$1" = "$reader" ] && [[ $features == *" $2 "* ]]; then echo "$2"; return 0; fi
  done
  return 1
}

cases=0 ok_basalt=0 ok_polars=0 ok_hyparquet=0 ok_duckdb=0
declare -A skipped=()
for leg in polars duckdb; do
  d=$tmp/$leg
  [ -f "$tmp/$leg.cases" ] || continue
  while IFS=$'\t' read -r name opts features; do
    i=${name%.parquet}
    in=$d/$name out=$d/$i.out.parquet
    [ -f "$out" ] || continue
    cases=$((cases + 1))
    what="seed $seed $leg table $name (rewrite $opts; table: $(grep -m1 "^$name " "$tmp/$leg.txt" | cut -d' ' -f2- | cut -c1-300))"
    "$basalt" parquet cat "$in" --format json >"$in.basalt.json" 2>"$in.basalt.err" || rm -f "$in.basalt.json"
    "$basalt" parquet cat "$out" --format json >"$out.basalt.json" 2>"$out.basalt.err" || rm -f "$out.basalt.json"
    if [ $leg = polars ]; then
      same "$what: basalt reads the input as Polars does" "$in.polars.json" "$in.basalt.json" || continue
      same "$what: basalt reads the input as hyparquet does" "$in.hyparquet.json" "$in.basalt.json" || continue
    fi
    same "$what: basalt reads other rows from the rewritten file" "$in.basalt.json" "$out.basalt.json" &&
      ok_basalt=$((ok_basalt + 1))
    readers=(polars hyparquet)
    [ $leg = polars ] && [ $have_duckdb = 1 ] && readers+=(duckdb)
    for reader in "${readers[@]}"; do
      if feature=$(skip_for "$reader" "$features"); then
        skipped[$reader $feature]=$((${skipped[$reader $feature]:-0} + 1))
        continue
      fi
      if same "$what: $reader reads other rows from the rewritten file" "$in.$reader.json" "$out.$reader.json"; then
        case $reader in
          polars) ok_polars=$((ok_polars + 1)) ;;
          hyparquet) ok_hyparquet=$((ok_hyparquet + 1)) ;;
          duckdb) ok_duckdb=$((ok_duckdb + 1)) ;;
        esac
      fi
    done
  done <"$tmp/$leg.cases"
done

summary="seed $seed: $cases of $((count + count_duckdb)) tables ($count Polars, $count_duckdb DuckDB) rewritten; identical rows from basalt $ok_basalt, Polars $ok_polars, hyparquet $ok_hyparquet, DuckDB $ok_duckdb (Polars tables)"
if [ ${#skipped[@]} -gt 0 ]; then
  summary+="; skipped:"
  for k in "${!skipped[@]}"; do summary+=" $k x${skipped[$k]}"; done
fi
echo "$summary"
finish
