#!/usr/bin/env bash
# basalt json schema / cat / convert, read_json in SQL and COPY TO (FORMAT
# json): inferred types, explicit columns, errors naming the file, line and
# column. Expected values are written by hand from the input text.
source "$(dirname "$0")/lib.bash"

printf '{"id":1,"name":"a\\"b","price":1.5,"day":"2024-01-02","tags":["x"],"o":{"k":true}}\n{"id":2,"name":null,"price":-2,"day":"2024-02-29","tags":[],"o":null}\n\n{"id":3,"price":3e2,"extra":"e"}\n' >"$tmp/t.json"
expect 0 "$basalt" json schema "$tmp/t.json" &&
  check "inferred types" test "$(tr -s ' ' <"$tmp/out" | tr '\n' '/')" = \
    "column type/id BIGINT/name VARCHAR/price DOUBLE/day DATE/tags VARCHAR[]/o STRUCT(k BOOLEAN)/extra VARCHAR/"
expect 0 "$basalt" json schema "$tmp/t.json" --format json &&
  check "schema as JSON" grep -q '^{"columns":\[{"name":"id","type":"BIGINT"},{"name":"name","type":"VARCHAR"}' "$tmp/out"
expect 0 "$basalt" json cat "$tmp/t.json" --format json &&
  check "rows as JSON" test "$(cat "$tmp/out")" = '{"id":1,"name":"a\"b","price":1.5,"day":"2024-01-02","tags":["x"],"o":{"k":true},"extra":null}
{"id":2,"name":null,"price":-2,"day":"2024-02-29","tags":[],"o":null,"extra":null}
{"id":3,"name":null,"price":300,"day":null,"tags":null,"o":null,"extra":"e"}'
expect 0 "$basalt" json cat "$tmp/t.json" --format json --threads 3 --chunk-size 5 --batch-size 1 --reader-stats &&
  check "small chunks, several threads" test "$(wc -l <"$tmp/out")" = 3 &&
  check "--reader-stats" grep -qE '^json: chunks [0-9]+, windows [0-9]+, rows 3, sampled 3$' "$tmp/err"
expect 0 "$basalt" json cat "$tmp/t.json" --format csv --columns 'price=DOUBLE,id=VARCHAR,o=STRUCT(k BOOLEAN)' &&
  check "--columns" test "$(cat "$tmp/out")" = 'price,id,o
1.5,1,"{""k"":true}"
-2,2,
300,3,'

# Errors: one line naming the file, line and column.
printf '{"a":1}\n{"a":2}\n{"a":"x"}\n' >"$tmp/bad.json"
expect 1 "$basalt" json cat "$tmp/bad.json" --sample 2 &&
  check "a value that does not fit" \
    grep -q "^basalt: CORRUPT: $tmp/bad.json: line 3, column 6: column 'a': string \"x\" is not a BIGINT$" "$tmp/err" &&
  check "one line on stderr" one_line_stderr
printf '{"a":1}\n{"a":[1,}\n' >"$tmp/syntax.json"
expect 1 "$basalt" json schema "$tmp/syntax.json" &&
  check "a syntax error in the sample" grep -q "line 2, column 9: unexpected character '}'" "$tmp/err"
printf '[{"a":1}]\n' >"$tmp/array.json"
expect 1 "$basalt" json cat "$tmp/array.json" &&
  check "a top-level array" grep -q "UNSUPPORTED: .*format 'array'" "$tmp/err"
expect 2 "$basalt" json cat "$tmp/t.json" --columns 'id' &&
  check "bad --columns" grep -q "name=TYPE" "$tmp/err"

# Convert: to Parquet and back to JSON lines.
expect 0 "$basalt" json convert "$tmp/t.json" "$tmp/t.parquet" &&
  expect 0 "$basalt" json convert "$tmp/t.parquet" "$tmp/back.jsonl" &&
  check "round trip through Parquet" test "$(sed -n 3p "$tmp/back.jsonl")" = \
    '{"id":3,"name":null,"price":300,"day":null,"tags":null,"o":null,"extra":"e"}'

# SQL: read_json, bare .json paths, COPY TO (FORMAT json).
expect 0 "$basalt" sql "SELECT id, price FROM read_json_auto('$tmp/t.json') WHERE price > 0 ORDER BY id" --format json &&
  check "read_json_auto with a filter" test "$(cat "$tmp/out")" = '{"id":1,"price":1.5}
{"id":3,"price":300}'
expect 0 "$basalt" sql "SELECT count(*) AS n, max(day) AS d FROM '$tmp/t.json'" --format json &&
  check "a .json path" test "$(cat "$tmp/out")" = '{"n":3,"d":"2024-02-29"}'
expect 1 "$basalt" sql "SELECT * FROM read_ndjson('$tmp/t.json', format => 'array')" &&
  check "format 'array'" grep -q "format 'array' is not supported" "$tmp/err"
expect 0 "$basalt" sql "COPY (SELECT id, name, day FROM read_json('$tmp/t.json', sample_size => 1)) TO '$tmp/c.out' (FORMAT json)" &&
  check "COPY TO (FORMAT json)" test "$(cat "$tmp/c.out")" = '{"id":1,"name":"a\"b","day":"2024-01-02"}
{"id":2,"name":null,"day":"2024-02-29"}
{"id":3,"name":null,"day":null}'
finish
