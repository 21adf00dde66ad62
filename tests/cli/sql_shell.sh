#!/usr/bin/env bash
# basalt sql's interactive shell, driven through a pseudo-terminal (script(1)):
# multi-line statements, dot commands, errors that keep the shell going, and
# the history file.
source "$(dirname "$0")/lib.bash"
if ! command -v script >/dev/null; then
  echo "FAIL: script(1) is missing (bsdutils)"; exit 1
fi
export HOME=$tmp
shell() { printf '%b' "$1" | script -qec "'$basalt' sql" /dev/null 2>&1 | tr -d '\r'; return "${PIPESTATUS[1]}"; }

shell 'SELECT 1\n  + 1 AS two;\n.mode csv\nSELECT '"'"'a;b'"'"' AS s, 3 AS n;\nSELECT nosuch;\nSELECT 40 + 2 AS answer;\n.quit\n' >"$tmp/out"
check "a statement over two lines runs once complete" grep -q '^  2$' "$tmp/out"
check "the continuation prompt shows" grep -q '^   \.\.\.>   + 1 AS two;' "$tmp/out"
check ".mode csv, and a ';' inside quotes does not end the statement" grep -qx 'a;b,3' "$tmp/out"
check "an error is printed with its position" grep -q 'Error: NOT_FOUND: column "nosuch" not found (at position 7)' "$tmp/out"
check "the shell goes on after an error" grep -qx '42' "$tmp/out"
check "history is written (libedit escapes its spaces)" grep -q 'answer;' "$tmp/.basalt_history"
shell '.timer on\nSELECT 1 AS x;\n.frobnicate\n' >"$tmp/out"
status=$?
check ".timer prints run times" grep -q '^Run Time: ' "$tmp/out"
check "an unknown dot command is named" grep -q "unknown command '.frobnicate'" "$tmp/out"
check "end of input (Ctrl-D) leaves the shell with status 0" test "$status" = 0
# .tables and .schema over a catalog: a table made by CREATE TABLE AS in
# the shell itself, and a file's columns.
"$basalt" sql "COPY (SELECT 1::BIGINT AS id, 'x' AS name, 2.5::DOUBLE AS w) TO '$tmp/one.parquet'" >/dev/null
shelled() { printf '%b' "$1" | script -qec "'$basalt' sql --catalog sqlite:$tmp/cat.db" /dev/null 2>&1 | tr -d '\r'; }
shelled "CREATE TABLE db.people AS SELECT * FROM '$tmp/one.parquet';\n.tables\n.schema db.people\n.mode csv\n.schema '$tmp/one.parquet'\n.schema\n" >"$tmp/out"
check ".tables lists the catalog's table" grep -qx 'db.people' "$tmp/out"
check ".schema NAME shows a table's columns and types" grep -Eq '^name +VARCHAR$' "$tmp/out"
check ".schema 'file' shows a file's columns" grep -qx 'w,DOUBLE' "$tmp/out"
check ".schema alone says what it needs" grep -q '.schema needs a table or a file' "$tmp/out"
finish
