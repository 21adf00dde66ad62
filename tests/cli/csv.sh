#!/usr/bin/env bash
# basalt csv schema / cat / convert: sniffed dialects and types, options,
# errors naming the file, line and column, and conversion to Parquet and back
# to CSV. Expected values are written by hand from the input text.
source "$(dirname "$0")/lib.bash"

printf 'id;name;price;day\r\n1;"a;b";1.5;2024-01-02\r\n2;"say ""hi""";-2;2024-02-29\r\n3;;3e2;\r\n' >"$tmp/semi.csv"
expect 0 "$basalt" csv schema "$tmp/semi.csv" &&
  check "sniffed dialect" grep -q "^# delimiter ';', quote '\"', escape doubled, header yes" "$tmp/out" &&
  check "sniffed types" test "$(tail -n +2 "$tmp/out" | tr -s ' ' | tr '\n' '/')" = \
    "column type/id int64/name string/price double/day date/"
expect 0 "$basalt" csv schema "$tmp/semi.csv" --format json &&
  check "schema as JSON" grep -q '"columns":\[{"name":"id","type":"int64"},{"name":"name","type":"string"}' "$tmp/out"
expect 0 "$basalt" csv cat "$tmp/semi.csv" --format json &&
  check "rows as JSON" test "$(cat "$tmp/out")" = '{"id":1,"name":"a;b","price":1.5,"day":"2024-01-02"}
{"id":2,"name":"say \"hi\"","price":-2,"day":"2024-02-29"}
{"id":3,"name":null,"price":300,"day":null}'
expect 0 "$basalt" csv cat "$tmp/semi.csv" --format json --limit 1 &&
  check "--limit" test "$(wc -l <"$tmp/out")" = 1
expect 1 "$basalt" csv cat "$tmp/semi.csv" --format json --types 'price=decimal(6,1),id=string' &&
  check "a decimal has no exponent" grep -q "line 4, column 3 ('price'): value '3e2' is not a decimal" "$tmp/err"
expect 0 "$basalt" csv cat "$tmp/semi.csv" --format json --types 'price=float,id=string' &&
  check "--types by name" grep -q '{"id":"2","name":"say \\"hi\\"","price":-2,' "$tmp/out"
expect 0 "$basalt" csv cat "$tmp/semi.csv" --format json --no-header --types string,string,string,string &&
  check "--no-header: the header is a row" grep -q '{"column0":"id","column1":"name"' "$tmp/out"
expect 0 "$basalt" csv cat "$tmp/semi.csv" --format csv --threads 2 --chunk-size 8 --reader-stats &&
  check "--stats counts chunks" grep -qE '^csv: chunks ([2-9]|[1-9][0-9]+), windows' "$tmp/err" &&
  check "csv output" test "$(sed -n 2p "$tmp/out")" = '1,a;b,1.5,2024-01-02'

# The same file through SQL's read_csv with options (DuckDB's names): types
# by position, names replacing the header's, a line skipped, no header.
expect 0 "$basalt" sql "DESCRIBE SELECT * FROM read_csv('$tmp/semi.csv', delim = ';', types = ['VARCHAR', 'string', 'DECIMAL(6, 1)', 'DATE'], names = ['k', 'who'])" --format csv &&
  check "read_csv types and names" test "$(tail -n +2 "$tmp/out" | tr '\n' '/')" = \
    'k,VARCHAR/who,VARCHAR/price,"DECIMAL(6,1)"/day,DATE/'
expect 1 "$basalt" sql "SELECT * FROM read_csv('$tmp/semi.csv', types = ['BIGINT', 'VARCHAR', 'DECIMAL(6,1)'])" &&
  check "read_csv types: a value that does not fit names its place" grep -q "line 4, column 3 ('price'): value '3e2' is not a decimal" "$tmp/err"
expect 0 "$basalt" sql "SELECT * FROM read_csv('$tmp/semi.csv', skip = 1, header = false, types = ['string', 'string', 'double', 'date'])" --format csv &&
  check "read_csv skip and header = false: the rows after the header" test "$(tail -n +2 "$tmp/out" | tr '\n' '/')" = \
    '1,a;b,1.5,2024-01-02/2,"say ""hi""",-2,2024-02-29/3,,300,/'
expect 1 "$basalt" sql "SELECT * FROM read_csv('$tmp/semi.csv', types = ['BIGINT', 'TINYINTEGER'])" &&
  check "read_csv types: an unknown type is named with its place" grep -q "unknown CSV column type 'tinyinteger'.*(at position" "$tmp/err"
expect 1 "$basalt" sql "SELECT * FROM read_csv('$tmp/semi.csv', names = 'k')" &&
  check "read_csv names must be a list" grep -q "names must be a list of strings" "$tmp/err"

# Errors: one line, naming file, line and column.
printf 'a,b\n1,2\n3,x"y\n' >"$tmp/badq.csv"
expect 1 "$basalt" csv cat "$tmp/badq.csv" --quote '"' &&
  check "a stray quote names line and column" \
    grep -q "^basalt: CORRUPT: $tmp/badq.csv: line 3, column 2 ('b'): quote inside an unquoted field$" "$tmp/err" &&
  check "one line on stderr" one_line_stderr
printf 'a,b\n1,2\n3\n' >"$tmp/ragged.csv"
expect 1 "$basalt" csv cat "$tmp/ragged.csv" &&
  check "a ragged row names the line" grep -q "line 3: expected 2 fields, found 1" "$tmp/err"
expect 0 "$basalt" csv cat "$tmp/ragged.csv" --fill-ragged --format json &&
  check "--fill-ragged" grep -q '{"a":3,"b":null}' "$tmp/out"
{ echo v; for i in $(seq 1 50); do echo $i; done; echo oops; } >"$tmp/late.csv"
expect 1 "$basalt" csv cat "$tmp/late.csv" --sample 10 &&
  check "a value after the sample that does not fit" \
    grep -q "line 52, column 1 ('v'): value 'oops' is not an int64" "$tmp/err"
expect 0 "$basalt" csv cat "$tmp/late.csv" --sample -1 --format csv &&
  check "--sample -1 sees it" test "$(tail -1 "$tmp/out")" = oops
expect 2 "$basalt" csv cat "$tmp/late.csv" --types 'v=intt'
expect 1 "$basalt" csv cat "$tmp/nope.csv"

# Options: backslash escapes, comments, skipped lines, null strings, tabs.
printf 'title line\n# comment "\nk\tv\n"a\\"b"\tNA\nc\t2\n' >"$tmp/misc.tsv"
expect 0 "$basalt" csv cat "$tmp/misc.tsv" --skip 1 --comment '#' --escape backslash --null NA \
  --delimiter tab --format json &&
  check "backslash, comment, skip, null" test "$(cat "$tmp/out")" = '{"k":"a\"b","v":null}
{"k":"c","v":2}'

# convert: CSV -> Parquet -> CSV.
expect 0 "$basalt" csv convert "$tmp/semi.csv" "$tmp/semi.parquet" &&
  check "convert reports rows" grep -q "wrote 3 rows" "$tmp/err"
expect 0 "$basalt" parquet schema "$tmp/semi.parquet" &&
  check "Parquet types" grep -qi "date" "$tmp/out"
expect 0 "$basalt" csv convert "$tmp/semi.parquet" "$tmp/back.csv" &&
  check "CSV written back" test "$(cat "$tmp/back.csv")" = 'id,name,price,day
1,a;b,1.5,2024-01-02
2,"say ""hi""",-2.0,2024-02-29
3,,300.0,'
finish
