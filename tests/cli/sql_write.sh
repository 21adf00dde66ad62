#!/usr/bin/env bash
# basalt sql statements that write: COPY TO Parquet and CSV (read back by
# DuckDB), CREATE TABLE AS / CREATE TABLE / INSERT / DROP TABLE on a SQLite
# catalog (read back through basalt's Iceberg scan and SQL), and their errors.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
duck() { node "$here/sql/duckdb_query.mjs" "$1"; }
cd "$tmp"

# a source table: 1000 rows, v = i * 1.5, s = 'k' || (i % 7), some NULLs
duck "COPY (SELECT range AS i, range * 1.5 AS v, CASE WHEN range % 10 = 0 THEN NULL ELSE 'k' || (range % 7) END AS s, DATE '2024-01-01' + range::INT AS dt FROM range(1000)) TO '$tmp/src.parquet'" >/dev/null

expect 0 "$basalt" sql "COPY (SELECT i, v, s, dt FROM 'src.parquet' WHERE i % 3 = 0) TO 'out.parquet'"
check "COPY reports the rows written" grep -q '334' "$tmp/out"
check "DuckDB reads the COPY output: same count, sums and nulls" \
  test "$(duck "SELECT count(*), sum(i), sum(v), count(s), min(dt)::VARCHAR FROM '$tmp/out.parquet'")" = '["334","166833","250249.5","300","2024-01-01"]'

# --format parquet: the rows of the query as a Parquet file (--output needed)
expect 0 "$basalt" sql "SELECT i, v, s, dt FROM 'src.parquet' WHERE i % 3 = 0" --format parquet --output rows.parquet
check "DuckDB reads --format parquet's file: same count, sums and nulls" \
  test "$(duck "SELECT count(*), sum(i), sum(v), count(s), min(dt)::VARCHAR FROM '$tmp/rows.parquet'")" = '["334","166833","250249.5","300","2024-01-01"]'
expect 2 "$basalt" sql "SELECT 1" --format parquet
check "--format parquet without --output: a usage error" grep -q 'needs --output FILE' "$tmp/err"

expect 0 "$basalt" sql "COPY (SELECT s, count(*) AS n FROM 'src.parquet' GROUP BY s ORDER BY s NULLS LAST) TO 'out.csv' (HEADER, DELIMITER ';')"
check "COPY TO CSV: header, delimiter, rows in order, null as empty" \
  test "$(cat out.csv | tr '\n' '|')" = 's;n|k0;128|k1;129|k2;129|k3;128|k4;129|k5;129|k6;128|;100|'

cat=sqlite:$tmp/cat.db
expect 0 "$basalt" sql --catalog "$cat" "CREATE TABLE db.t AS SELECT i, v, s FROM 'src.parquet' WHERE i < 500"
check "CTAS reports its rows" grep -q '500' "$tmp/out"
expect 0 "$basalt" sql --catalog "$cat" "INSERT INTO db.t SELECT i, v, s FROM 'src.parquet' WHERE i >= 990"
expect 0 "$basalt" sql --catalog "$cat" --format csv "SELECT count(*), sum(i), count(s) FROM db.t"
check "the table holds both commits" test "$(tail -1 "$tmp/out")" = '510,134695,459'
expect 0 "$basalt" iceberg snapshots db.t --catalog "$cat"
check "two snapshots: create-as and insert each commit once" test "$(grep -c append "$tmp/out")" -eq 2
# Time travel to the first snapshot (the CTAS's 500 rows): by id, by a time
# in milliseconds and as a timestamp literal just before the second commit,
# and through iceberg_scan on the table's directory; before any snapshot,
# an error.
expect 0 "$basalt" iceberg snapshots db.t --catalog "$cat" --format json
snap1=$(head -1 "$tmp/out" | sed 's/.*"snapshot_id":\([0-9]*\).*/\1/')
ms1=$(head -1 "$tmp/out" | sed 's/.*"timestamp_ms":\([0-9]*\).*/\1/')
ms2=$(sed -n 2p "$tmp/out" | sed 's/.*"timestamp_ms":\([0-9]*\).*/\1/')
at=$(date -u -d "@$(((ms2 - 1) / 1000)).$(printf %03d $(((ms2 - 1) % 1000)))" '+%Y-%m-%d %H:%M:%S.%3N')
for travel in "FOR VERSION AS OF $snap1" "FOR TIMESTAMP AS OF $((ms2 - 1))" "FOR TIMESTAMP AS OF TIMESTAMP '$at'"; do
  expect 0 "$basalt" sql --catalog "$cat" --format csv "SELECT count(*), sum(i) FROM db.t $travel"
  check "$travel: the first snapshot's rows" test "$(tail -1 "$tmp/out")" = '500,124750'
done
expect 0 "$basalt" sql --format csv "SELECT count(*), sum(i) FROM iceberg_scan('$tmp/db/t', snapshot_from_id => $snap1)"
check "iceberg_scan(snapshot_from_id =>): the first snapshot's rows" test "$(tail -1 "$tmp/out")" = '500,124750'
expect 0 "$basalt" sql --format csv "SELECT count(*) FROM iceberg_scan('$tmp/db/t')"
check "iceberg_scan: the current snapshot's rows" test "$(tail -1 "$tmp/out")" = 510
expect 1 "$basalt" sql --catalog "$cat" "SELECT count(*) FROM db.t FOR TIMESTAMP AS OF $((ms1 - 1))"
check "a time before the first snapshot says so" grep -q 'no snapshot at or before timestamp' "$tmp/err"
expect 0 "$basalt" sql --catalog "$cat" --format csv "SHOW TABLES"
check "SHOW TABLES lists it" grep -qx 'db.t' "$tmp/out"

expect 0 "$basalt" sql --catalog "$cat" --format csv "CREATE TABLE db.u (id BIGINT NOT NULL, name VARCHAR, amt DECIMAL(10,2)); INSERT INTO db.u VALUES (1, 'a', 2.50), (2, 'b', NULL), (3, NULL, 7); SELECT * FROM db.u ORDER BY id"
check "CREATE TABLE + INSERT VALUES by position, NULLs, decimal scale" \
  test "$(tr '\n' '|' <"$tmp/out")" = 'id,name,amt|1,a,2.50|2,b,|3,,7.00|'
expect 0 "$basalt" sql --catalog "$cat" --format csv "DESCRIBE db.u"
check "DESCRIBE names the columns and types" \
  test "$(tr '\n' '|' <"$tmp/out")" = 'column_name,column_type|id,BIGINT|name,VARCHAR|amt,"DECIMAL(10,2)"|'

# errors: one clear line each, nothing written
expect 1 "$basalt" sql "INSERT INTO db.t SELECT 1"
check "INSERT without a catalog says so" grep -q 'needs a catalog' "$tmp/err"
expect 1 "$basalt" sql --catalog "$cat" "INSERT INTO db.u SELECT 1, 2"
check "INSERT with the wrong column count says so" grep -q 'has 3 columns but the query gives 2' "$tmp/err"
check "the failed INSERT committed nothing" \
  sh -c "'$basalt' sql --catalog '$cat' --format csv 'SELECT count(*) FROM db.u' | tail -1 | grep -qx 3"
expect 1 "$basalt" sql --catalog "$cat" "CREATE TABLE db.t AS SELECT 1 AS x"
check "CTAS over an existing table is a conflict" grep -q 'CONFLICT' "$tmp/err"
expect 1 "$basalt" sql "COPY (SELECT 1) TO 'x.parquet' (FORMAT orc)"
check "an unknown COPY format is named" grep -q "format 'orc'" "$tmp/err"
expect 0 "$basalt" sql --catalog "$cat" "DROP TABLE db.u; DROP TABLE IF EXISTS db.nothing"
expect 1 "$basalt" sql --catalog "$cat" "SELECT * FROM db.u"
check "a dropped table is gone" grep -q 'NOT_FOUND' "$tmp/err"
finish
