#!/usr/bin/env bash
# CSV input for the table-writing verbs: DuckDB writes the write tests' rows
# (tests/iceberg/make_write_input.mjs) as CSV; `basalt iceberg append` reads
# it as the table's types (decimal amount, NaN scores, NULL names) and the
# table then holds exactly the rows DuckDB reads from the same CSV;
# `create --like` takes a CSV's sniffed schema; overwrite takes CSV too; a
# malformed CSV fails the append naming file, line and column, and leaves no
# snapshot. Expected rows come from DuckDB, never from basalt.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"

# DuckDB writes a.parquet's and b.parquet's rows as CSV (NaN as nan, NULL as
# an empty field, timestamps as 'YYYY-MM-DD HH:MM:SS').
node --input-type=module -e "
import { createRequire } from 'node:module';
const require = createRequire('$here/../package.json');
const { DuckDBInstance } = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
await c.run(\"COPY (SELECT * FROM read_parquet('$in/a.parquet')) TO '$in/a.csv' (HEADER)\");
await c.run(\"COPY (SELECT * FROM read_parquet('$in/b.parquet')) TO '$in/b.csv' (HEADER, DELIMITER ';')\");
" && check "DuckDB writes the CSV inputs" test -s "$in/b.csv"

expect 0 "$basalt" iceberg create db.events --like "$in/a.parquet" $cat
expect 0 "$basalt" iceberg append db.events "$in/a.csv" $cat &&
  check "append of a CSV: 3000 rows" grep -q "appended 3000 rows" "$tmp/out"
canon csv "$in/a.csv" >"$tmp/want-a"
check "DuckDB reads the CSV: 3000 rows" test "$(wc -l <"$tmp/want-a")" = 3000
check "DuckDB reads the CSV as the Parquet rows" cmp -s "$tmp/want-a" <(canon parquet "$in/a.parquet")
canon glob "$tmp/wh/db/events/data/**/*.parquet" >"$tmp/got"
check "the table's data files hold the CSV's rows" cmp -s "$tmp/want-a" "$tmp/got"
expect 0 "$basalt" iceberg scan db.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
check "our scan gives them too" cmp -s "$tmp/want-a" <(canon csv "$tmp/scan.csv")

# A semicolon-delimited CSV, with a Parquet file in the same append.
expect 0 "$basalt" iceberg append db.events "$in/b.csv" "$in/c.parquet" --threads 2 $cat &&
  check "CSV and Parquet in one append" grep -q "appended 2500 rows" "$tmp/out"
canon glob "$tmp/wh/db/events/data/**/*.parquet" >"$tmp/got"
check "every row" cmp -s <(canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet") "$tmp/got"

# overwrite from a CSV
expect 0 "$basalt" iceberg overwrite db.events "$in/a.csv" --where 'id < 3000' $cat
canon glob "$tmp/wh/db/events/data/**/*.parquet" >"$tmp/got"
expect 0 "$basalt" iceberg scan db.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
check "overwrite with a CSV" cmp -s <(canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet") \
  <(canon csv "$tmp/scan.csv")

# create --like a CSV: the sniffed types.
expect 0 "$basalt" iceberg create db.fromcsv --like "$in/a.csv" $cat
expect 0 "$basalt" iceberg describe db.fromcsv $cat &&
  check "sniffed long id" grep -qE '^  1 id: optional long$' "$tmp/out" &&
  check "sniffed timestamp" grep -qE '^  2 ts: optional timestamp$' "$tmp/out" &&
  check "sniffed date" grep -qE '^  5 d: optional date$' "$tmp/out"
expect 0 "$basalt" iceberg append db.fromcsv "$in/a.csv" $cat &&
  check "append to the table made from the CSV" grep -q "appended 3000 rows" "$tmp/out"

# A value that does not fit the table's type: a clear error, no new snapshot.
{ head -n 20 "$in/a.csv"; echo '77,2024-01-01 00:00:00,x,12.5x,2024-01-01,1.5'; } >"$tmp/bad.csv"
expect 0 "$basalt" iceberg count db.events $cat && before=$(cat "$tmp/out")
expect 1 "$basalt" iceberg append db.events "$tmp/bad.csv" $cat &&
  check "the error names file, line and column" \
    grep -q "bad.csv: line 21, column 4 ('amount'): value '12.5x' is not a decimal" "$tmp/err" &&
  check "one line on stderr" one_line_stderr
expect 0 "$basalt" iceberg count db.events $cat && check "nothing appended" test "$(cat "$tmp/out")" = "$before"
finish
