#!/usr/bin/env bash
# basalt sql over a partitioned Iceberg table (month(ts)): conditions pushed
# into Iceberg planning prune files, and a file whose partition proves the
# whole filter true is passed through without testing its rows (EXPLAIN
# ANALYZE counts those batches as `unfiltered`), read without the filter's
# own columns, or not read at all for count(*) (its record count). Answers
# are DuckDB's over
# the same rows; merge-on-read deletes still apply; NULL timestamps (their
# own partition) never pass a range; a condition Iceberg cannot take keeps
# every row tested.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
duck() { node "$here/sql/duckdb_query.mjs" "$1"; }
cd "$tmp"

# 300,000 rows over 2024-01..03 in ts order, every 97th ts NULL; zone 1..7.
duck "COPY (SELECT range AS id, CASE WHEN range % 97 = 0 THEN NULL ELSE TIMESTAMP '2024-01-01' + to_seconds((range * 26)::BIGINT) END AS ts, (range % 7) + 1 AS zone, round((range % 1000) * 0.37, 2) AS amount FROM range(300000)) TO '$tmp/src.parquet'" >/dev/null
cat="--catalog sqlite:$tmp/cat.db"
expect 0 "$basalt" iceberg create db.t --like src.parquet --partition 'month(ts)' $cat
expect 0 "$basalt" iceberg append db.t src.parquet $cat

# same QUERY_TAIL on basalt (db.t) and DuckDB (src.parquet): one CSV line each
same() {
  local what=$1 tail=$2 want got
  want=$(duck "SELECT count(*), coalesce(sum(amount), 0)::DECIMAL(18,2)::VARCHAR FROM '$tmp/src.parquet' $tail" |
    tr -d '[]"')
  expect 0 "$basalt" sql $cat --format csv "SELECT count(*), CAST(coalesce(sum(amount), 0) AS DECIMAL(18,2)) FROM db.t $tail"
  got=$(tail -n 1 "$tmp/out")
  check "$what: $got = DuckDB's $want" test "$got" = "$want"
}
explain() {
  expect 0 "$basalt" sql $cat --format csv "EXPLAIN ANALYZE SELECT count(*), sum(amount) FROM db.t $1"
}

full="WHERE ts >= TIMESTAMP '2024-02-01 00:00:00' AND ts < TIMESTAMP '2024-04-01 00:00:00'"
same "two whole months" "$full"
explain "$full"
check "two whole months: two files planned" grep -q 'files=2' "$tmp/out"
check "two whole months: their batches pass unfiltered" grep -qE 'FILTER.* unfiltered=[1-9]' "$tmp/out"
check "two whole months: both files read without ts" grep -qE 'ICEBERG_SCAN .* direct=2([ "]|$)' "$tmp/out"
want=$(duck "SELECT count(*) FROM '$tmp/src.parquet' $full" | tr -d '[]"')
expect 0 "$basalt" sql $cat --format csv "SELECT count(*) FROM db.t $full"
check "count(*) of two whole months from their record counts: $want" test "$(tail -n 1 "$tmp/out")" = "$want"
expect 0 "$basalt" sql $cat --format csv "EXPLAIN ANALYZE SELECT count(*) FROM db.t $full"
check "count(*): two files not read, each one batch of its record count" \
  grep -qE 'FILTER.* unfiltered=2$' "$tmp/out"

part="WHERE ts >= TIMESTAMP '2024-02-10 12:00:00' AND ts < TIMESTAMP '2024-04-01 00:00:00'"
same "a month and a half" "$part"
explain "$part"
check "a month and a half: two files" grep -q 'files=2' "$tmp/out"
check "a month and a half: February's rows tested, March's passed" grep -qE 'FILTER.* unfiltered=[1-9]' "$tmp/out"
check "a month and a half: March read without ts" grep -qE 'ICEBERG_SCAN .* direct=1([ "]|$)' "$tmp/out"
rows=$(duck "SELECT count(*) FROM '$tmp/src.parquet' $part" | tr -d '[]"')
check "EXPLAIN ANALYZE: the filter kept $rows rows" grep -qE "FILTER.* rows=$rows( |$)" "$tmp/out"

mixed="WHERE ts >= TIMESTAMP '2024-02-01 00:00:00' AND ts < TIMESTAMP '2024-04-01 00:00:00' AND amount * 2 > 100"
same "a condition Iceberg cannot take" "$mixed"
explain "$mixed"
check "a condition Iceberg cannot take: every row tested" bash -c "! grep -q unfiltered '$tmp/out'"

same "no rows: a range before the table" "WHERE ts < TIMESTAMP '2023-01-01 00:00:00'"
same "NULL timestamps never pass a range" "WHERE ts >= TIMESTAMP '2000-01-01 00:00:00'"
same "IS NULL finds them" "WHERE ts IS NULL"

# merge-on-read deletes still drop rows of files passed unfiltered
expect 0 "$basalt" iceberg delete db.t --where "zone = 3" --mode mor $cat
same "after a merge-on-read delete, two whole months" "$full AND zone <> 3"
want=$(duck "SELECT count(*), CAST(sum(amount) AS DECIMAL(18,2))::VARCHAR FROM '$tmp/src.parquet' $full AND zone <> 3" | tr -d '[]"')
expect 0 "$basalt" sql $cat --format csv "SELECT count(*), CAST(sum(amount) AS DECIMAL(18,2)) FROM db.t $full"
check "after the delete, the files read without ts still drop the deleted rows" \
  test "$(tail -n 1 "$tmp/out")" = "$want"
explain "$full"
check "after the delete: still passed unfiltered" grep -qE 'FILTER.* unfiltered=[1-9]' "$tmp/out"
want=$(duck "SELECT count(*) FROM '$tmp/src.parquet' $full AND zone <> 3" | tr -d '[]"')
expect 0 "$basalt" sql $cat --format csv "SELECT count(*) FROM db.t $full"
check "after the delete: $want rows" test "$(tail -n 1 "$tmp/out")" = "$want"
finish
