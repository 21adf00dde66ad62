#!/usr/bin/env bash
# basalt parquet: help and usage errors, exact output of schema, meta, head
# and cat on small corpus files (values as DuckDB's parquet_metadata() and
# read_parquet() give them), --where, scan, and clean failures.
source "$(dirname "$0")/lib.bash"
data=$testdata/parquet-testing/data
nulls=$data/nulls.snappy.parquet
plain=$data/alltypes_plain.parquet
tiny=$data/alltypes_tiny_pages.parquet

# same FILE: $tmp/out must equal FILE's contents.
same() { diff -u "$1" "$tmp/out" >"$tmp/diff" || { sed 's/^/  /' "$tmp/diff" | head -20; return 1; }; }

# Help at every level, usage errors exit 2 with one line.
expect 0 "$basalt" parquet --help && check "group help lists the verbs" \
  bash -c "for v in schema meta head cat scan; do grep -q \"^  \$v \" '$tmp/out' || exit 1; done"
expect 2 "$basalt" parquet && check "no verb: usage on stderr" grep -q usage "$tmp/err"
expect 0 "$basalt" --help && check "main help lists parquet" grep -q '^  parquet ' "$tmp/out"
for verb in schema meta head cat scan; do
  expect 0 "$basalt" parquet $verb --help && check "$verb --help" grep -q "usage: basalt parquet $verb" "$tmp/out"
done
expect 2 "$basalt" parquet frobnicate "$nulls" && check "unknown verb: one line" one_line_stderr
expect 2 "$basalt" parquet cat && check "cat without FILE: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$nulls" --bogus && check "unknown option: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$nulls" "$nulls" && check "two files: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$nulls" --format xml && check "bad format: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$nulls" --format && check "format without value: one line" one_line_stderr
expect 2 "$basalt" parquet head "$nulls" -n -3 && check "bad -n: one line" one_line_stderr
expect 2 "$basalt" parquet scan "$nulls" --threads 0 && check "bad --threads: one line" one_line_stderr
expect 2 "$basalt" parquet schema "$nulls" --where "x = 1" && check "option of another verb" one_line_stderr
expect 2 "$basalt" parquet cat "$plain" --columns nope && check "unknown column: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$plain" --where "id ==" && check "malformed --where: one line" one_line_stderr
expect 2 "$basalt" parquet cat "$plain" --where "id = 1 OR id = 2" && check "OR is not supported" one_line_stderr
expect 2 "$basalt" parquet cat "$plain" --where "nope = 1" && check "--where on an unknown column" one_line_stderr
expect 2 "$basalt" parquet cat "$plain" --where "id = 'x'" && check "--where literal of the wrong type" one_line_stderr

# Failures exit 1 with one line naming the file.
expect 1 "$basalt" parquet schema "$data/no-such.parquet" && check "missing file: one line" one_line_stderr
printf 'PAR1 not really parquet PAR2' >"$tmp/bad.parquet"
expect 1 "$basalt" parquet meta "$tmp/bad.parquet" && check "bad magic: one line naming the file" \
  bash -c "one_line() { [ \$(wc -l <'$tmp/err') -eq 1 ]; }; one_line && grep -q 'CORRUPT: $tmp/bad.parquet: ' '$tmp/err'"
expect 1 "$basalt" parquet cat "$data/uniform_encryption.parquet.encrypted" && check "encrypted: UNSUPPORTED" \
  grep -q '^basalt: UNSUPPORTED: ' "$tmp/err"
expect 1 "$basalt" parquet cat "$data/datapage_v1-corrupt-checksum.parquet" && check "CRC mismatch names the page" \
  grep -q "row group 0: column 'a': page 0: " "$tmp/err"

# schema
cat >"$tmp/want" <<'END'
message spark_schema {
  optional group b_struct {
    optional int32 b_c_int;
  }
}

arrow schema:
  b_struct: struct<b_c_int: int32>
END
expect 0 "$basalt" parquet schema "$nulls" && check "schema of nulls.snappy.parquet" same "$tmp/want"
cat >"$tmp/want" <<'END'
message schema {
  optional int32 id;
  optional boolean bool_col;
  optional int32 tinyint_col;
  optional int32 smallint_col;
  optional int32 int_col;
  optional int64 bigint_col;
  optional float float_col;
  optional double double_col;
  optional binary date_string_col;
  optional binary string_col;
  optional int96 timestamp_col;
}

arrow schema:
  id: int32
  bool_col: bool
  tinyint_col: int32
  smallint_col: int32
  int_col: int32
  bigint_col: int64
  float_col: float
  double_col: double
  date_string_col: binary
  string_col: binary
  timestamp_col: timestamp[ns]
END
expect 0 "$basalt" parquet schema "$plain" && check "schema of alltypes_plain.parquet" same "$tmp/want"

# meta: DuckDB's parquet_metadata() says SNAPPY, encodings PLAIN, BIT_PACKED,
# RLE, 8 values, 29 bytes compressed, 27 uncompressed, null count 8.
cat >"$tmp/want" <<END
file: $nulls
created_by: parquet-mr version 1.8.2 (build c6522788629e590a53eb79874b95f6c3ff11f16c)
version: 1
rows: 8
row groups: 1
columns: 1
metadata: org.apache.spark.sql.parquet.row.metadata (180 bytes)
row group 0: 8 rows, 27 bytes

row_group  column            type   codec   encodings             values  compressed  uncompressed  min   max   nulls  page_index  bloom
---------  ----------------  -----  ------  --------------------  ------  ----------  ------------  ----  ----  -----  ----------  -----
        0  b_struct.b_c_int  INT32  SNAPPY  PLAIN,BIT_PACKED,RLE       8          29            27  NULL  NULL      8  none        no
END
expect 0 "$basalt" parquet meta "$nulls" && check "meta of nulls.snappy.parquet" same "$tmp/want"
expect 0 "$basalt" parquet meta "$tiny" --format csv && check "meta csv: id's statistics" \
  grep -qx '0,id,INT32,UNCOMPRESSED,"PLAIN,RLE,BIT_PACKED",7300,37325,37325,0,7299,0,column+offset,no' "$tmp/out"
expect 0 "$basalt" parquet meta "$data/data_index_bloom_encoding_stats.parquet" --format json && check "meta json: bloom filter" \
  grep -q '"column":"String",.*"min":"Hello","max":"today",.*"bloom":"yes"' "$tmp/out"

# head and cat (values as DuckDB reads them).
cat >"$tmp/want" <<'END'
id  bool_col  double_col  timestamp_col
--  --------  ----------  -----------------------------
 4  true               0  2009-03-01T00:00:00.000000000
 5  false           10.1  2009-03-01T00:01:00.000000000
END
expect 0 "$basalt" parquet head "$plain" -n 2 --columns id,bool_col,double_col,timestamp_col &&
  check "head -n 2 as a table" same "$tmp/want"
expect 0 "$basalt" parquet head "$plain" && check "head prints 10 rows at most" \
  bash -c "[ \$(wc -l <'$tmp/out') -eq 10 ]"
cat >"$tmp/want" <<'END'
id,float_col,string_col
4,0,MA==
5,1.1,MQ==
END
expect 0 "$basalt" parquet head "$plain" -n 2 --columns string_col,float_col,id --format csv &&
  check "head as CSV (file order, binary as base64)" same "$tmp/want"
cat >"$tmp/want" <<'END'
{"b_struct":{"b_c_int":null}}
{"b_struct":{"b_c_int":null}}
END
expect 0 "$basalt" parquet head "$nulls" -n 2 --format json && check "json of a null struct member" same "$tmp/want"
expect 0 "$basalt" parquet cat "$nulls" && check "cat prints a header, a rule and 8 rows" \
  bash -c "[ \$(wc -l <'$tmp/out') -eq 10 ]"

# --where: rows filtered after pruning; columns it needs are read but not printed.
printf 'id\n7\n' >"$tmp/want"
expect 0 "$basalt" parquet cat "$tiny" --columns id --where "id = 7" --format csv && check "--where id = 7" same "$tmp/want"
printf 'string_col\n3\n3\n' >"$tmp/want"
expect 0 "$basalt" parquet cat "$tiny" --columns string_col --where "id <= 13 AND string_col = '3'" --format csv &&
  check "--where on two columns, one not printed" same "$tmp/want"
printf 'id\n7296\n7297\n7298\n7299\n' >"$tmp/want"
expect 0 "$basalt" parquet cat "$tiny" --columns id --where "id > 7295 AND timestamp_col >= '2010-12-31'" --format csv &&
  check "--where with a timestamp literal" same "$tmp/want"
expect 0 "$basalt" parquet cat "$tiny" --columns id --where "id IS NULL" --format csv && check "IS NULL: none" \
  bash -c "[ \"\$(cat '$tmp/out')\" = id ]"
expect 0 "$basalt" parquet cat "$data/int32_with_null_pages.parquet" --where "int32_field IS NULL" --format csv &&
  check "IS NULL counts DuckDB's 275 nulls" bash -c "[ \$(wc -l <'$tmp/out') -eq 276 ]"
expect 0 "$basalt" parquet cat "$data/int32_with_null_pages.parquet" --where "int32_field IS NOT NULL AND int32_field < 0" --format csv &&
  check "IS NOT NULL AND < 0: DuckDB counts 357" bash -c "[ \$(wc -l <'$tmp/out') -eq 358 ]"

# scan
expect 0 "$basalt" parquet scan "$tiny" --repeat 3 --threads 2 && check "scan reports rows and times" \
  bash -c "grep -qx 'rows: 7300' '$tmp/out' && grep -qx 'reads: 3' '$tmp/out' && grep -q '^p90: [0-9.]* ms$' '$tmp/out'"
expect 0 "$basalt" parquet scan "$tiny" --columns id && check "scan of one column: 7300 int32 + validity" \
  bash -c "grep -qx 'decoded bytes: 29200' '$tmp/out'"

# FLOAT16 bounds as numbers (data/README.md: min b'\x00\xc0' = -2, max b'\x00@' = 2;
# zeros only: min -0, max +0), and --where on half floats
expect 0 "$basalt" parquet meta "$data/float16_nonzeros_and_nans.parquet" --format csv && check "meta: float16 bounds" \
  grep -qx '0,x,FIXED_LEN_BYTE_ARRAY,UNCOMPRESSED,"PLAIN,RLE,RLE_DICTIONARY",8,76,76,-2,2,1,none,no' "$tmp/out"
expect 0 "$basalt" parquet meta "$data/float16_zeros_and_nans.parquet" --format csv && check "meta: float16 zero bounds" \
  grep -qx '0,x,FIXED_LEN_BYTE_ARRAY,UNCOMPRESSED,"PLAIN,RLE,RLE_DICTIONARY",3,64,64,-0,0,1,none,no' "$tmp/out"
expect 0 "$basalt" parquet cat "$data/float16_nonzeros_and_nans.parquet" --format json --where 'x < -1.5' && check "where on float16" \
  [ "$(cat "$tmp/out")" = '{"x":-2}' ]
# GEOMETRY: the geo column of meta (geospatial.yaml's "point" group, row group 3)
expect 0 "$basalt" parquet meta "$data/geospatial/geospatial.parquet" --format json && check "meta: GeospatialStatistics" \
  grep -q '"row_group":3,"column":"geometry",.*"geo":"x 30..40 y 10..20; types 1"' "$tmp/out"
finish
