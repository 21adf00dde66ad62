#!/usr/bin/env bash
# basalt ipc schema|cat|convert. The Feather v2 golden files (R arrow 0.17,
# 1.0.1, 2.0.0; uncompressed, LZ4 and ZSTD) must all print the one row their
# README gives; IPC -> Parquet -> IPC keeps the values; usage errors exit 2.
set -euo pipefail
basalt=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
data=${BASALT_TESTDATA_DIR:-$root/testdata}/arrow-ipc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

want='{"a":"one","b":2,"c":{"c1":"inner","c2":4,"c3":50},"d":"four"}'
for f in "$data"/feather-golden/*.feather; do
  got=$("$basalt" ipc cat "$f" --format json)
  [ "$got" = "$want" ] || fail "$(basename "$f"): $got"
done
"$basalt" ipc schema "$data/feather-golden/data-arrow_2.0.0_zstd.feather" > "$tmp/schema.txt"
grep -q "format: file, little-endian, 1 record batches" "$tmp/schema.txt" || fail "schema header"
grep -q "^  c1: string" "$tmp/schema.txt" || fail "nested field"
grep -q "metadata r = " "$tmp/schema.txt" || fail "schema metadata"

# Big-endian files print the same rows as the little-endian ones.
be=$data/integration/1.0.0-bigendian le=$data/integration/1.0.0-littleendian
for c in generated_primitive generated_datetime generated_nested; do
  "$basalt" ipc cat "$be/$c.stream" --format csv > "$tmp/be.csv"
  "$basalt" ipc cat "$le/$c.stream" --format csv > "$tmp/le.csv"
  cmp -s "$tmp/be.csv" "$tmp/le.csv" || fail "$c: big-endian differs"
done
"$basalt" ipc schema "$be/generated_primitive.arrow_file" | grep -q "big-endian" || fail "endianness"

# --limit
n=$("$basalt" ipc cat "$le/generated_primitive.arrow_file" --format csv --limit 7 | wc -l)
[ "$n" = 8 ] || fail "--limit 7 printed $n lines"

# IPC -> Parquet -> IPC (LZ4 and ZSTD bodies) keeps every value.
src=$data/integration/cpp-21.0.0/generated_primitive.arrow_file
"$basalt" ipc convert "$src" "$tmp/p.parquet"
"$basalt" parquet schema "$tmp/p.parquet" > /dev/null
for c in lz4_frame zstd none; do
  "$basalt" ipc convert "$tmp/p.parquet" "$tmp/back-$c.arrow" --compression $c
  "$basalt" ipc cat "$src" --format json > "$tmp/a.json"
  "$basalt" ipc cat "$tmp/back-$c.arrow" --format json > "$tmp/b.json"
  cmp -s "$tmp/a.json" "$tmp/b.json" || fail "IPC -> Parquet -> IPC ($c) changed values"
done
"$basalt" ipc convert "$src" "$tmp/s.stream" --ipc-format stream
"$basalt" ipc schema "$tmp/s.stream" | grep -q "format: stream" || fail "stream format"

# Errors: a bad file fails with one line and status 1; usage errors exit 2.
printf 'garbage!' > "$tmp/bad.arrow"
set +e
"$basalt" ipc cat "$tmp/bad.arrow" 2> "$tmp/err"; rc=$?
[ $rc = 1 ] || fail "bad file exit $rc"
[ "$(wc -l < "$tmp/err")" = 1 ] || fail "error is not one line"
"$basalt" ipc cat; rc=$?
[ $rc = 2 ] || fail "missing FILE exit $rc"
"$basalt" ipc convert a b --compression snappy; rc=$?
[ $rc = 2 ] || fail "bad compression exit $rc"
set -e
"$basalt" ipc --help | grep -q convert || fail "help"
echo ok
