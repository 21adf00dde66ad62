#!/usr/bin/env bash
# basalt sql --memory-limit: ORDER BY, GROUP BY, joins and windows over 1M rows (DuckDB
# writes them) spill to disk under a limit the in-memory operators need
# several times over; the output is byte-identical to the run without a
# limit, EXPLAIN ANALYZE shows runs and partitions written, DuckDB gives the
# same rows (tests/sql/spill_duckdb.mjs), SET temp_directory takes the files
# and nothing is left in it. tests/unit/sql/spill_test.c checks the order
# and the aggregates in more detail. Results larger than the limit stream
# to --output and COPY ... TO.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
cd "$tmp"
node "$here/sql/duckdb_query.mjs" "COPY (SELECT range AS id, hash(range) % 1000 AS k,
    CASE WHEN range % 13 = 5 THEN NULL ELSE 's' || (hash(range * 3) % 50000)::VARCHAR END AS s,
    CASE WHEN range % 17 = 3 THEN NULL ELSE (hash(range * 5) % 100000) / 8.0 END AS d,
    hash(range * 7) % 200003 AS g
  FROM range(1000000)) TO '$tmp/t.parquet' (ROW_GROUP_SIZE 100000)" >/dev/null
mkdir -p "$tmp/spill"

# query LIMIT COUNTER MODE DUCKDB_SQL (spill_duckdb.mjs)
spills() {
  local q=$1 limit=$2 counter=$3 mode=$4 duck=$5
  expect 0 "$basalt" sql "$q" --format json || return
  mv "$tmp/out" "$tmp/plain.json"
  expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; $q" --memory-limit "$limit" --format json || return
  mv "$tmp/out" "$tmp/limited.json"
  check "$counter: the same bytes with and without the limit" cmp -s "$tmp/plain.json" "$tmp/limited.json"
  expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; EXPLAIN ANALYZE $q" --memory-limit "$limit"
  check "$counter: it spilled under $limit" grep -Eq "$counter=[1-9]" "$tmp/out"
  check "$counter: nothing left in temp_directory" test -z "$(ls -A "$tmp/spill")"
  checks=$((checks + 1))
  if ! node "$here/sql/spill_duckdb.mjs" "$tmp/limited.json" "$mode" "$duck" >"$tmp/cmp" 2>&1; then
    echo "FAIL: $counter: DuckDB disagrees: $(head -3 "$tmp/cmp")"
    failures=$((failures + 1))
  fi
}

q="SELECT k, s, id FROM 't.parquet' ORDER BY k DESC, s NULLS FIRST, id"
spills "$q" 48MB spilled_runs digest "SELECT md5(string_agg(k::VARCHAR || '|' || coalesce(s, '\\N') || '|' ||
    id::VARCHAR, chr(10) ORDER BY k DESC, s NULLS FIRST, id)) FROM 't.parquet'"
q="SELECT g, count(*) AS n, count(s) AS ns, sum(k) AS sk, min(s) AS mins, max(d) AS maxd,
     avg(d) AS avgd, count(DISTINCT k) AS dk, median(d) AS med, min(id) AS lo, max(id) AS hi
   FROM 't.parquet' GROUP BY g"
spills "$q" 40MB spilled_partitions rows "$q"
# A string key read as dictionary indices (EXPLAIN ANALYZE says so without a
# limit); the rows that spill have their keys decoded first.
q="SELECT s, count(*) AS n, sum(k) AS sk, max(d) AS maxd, min(id) AS lo, max(id) AS hi
   FROM 't.parquet' GROUP BY s"
expect 0 "$basalt" sql "EXPLAIN ANALYZE $q"
check "the string key is read as dictionary indices" grep -Eq "HASH_GROUP_BY.*dictionary_batches=[1-9]" "$tmp/out"
spills "$q" 24MB spilled_partitions rows "$q"
# DISTINCT aggregates without GROUP BY are grouped by their argument first
# (bind_distinct.c), and that grouping spills: the one group of 857,143
# values they had needed over 20MB.
q="SELECT count(DISTINCT id) AS did, sum(DISTINCT id) AS sid, max(DISTINCT id) AS mid
   FROM 't.parquet' WHERE id % 7 <> 3"
spills "$q" 16MB spilled_partitions rows "$q"
# The aggregates that pick a row or keep an order (arg_min, first/last/
# any_value and string_agg with ORDER BY: the order key is a spilled column)
# and count_if, bit_xor, product, mode; order keys free of ties (id).
# The same bytes at 1 and 4 threads too.
q="SELECT g, arg_min(s, id) AS ams, arg_max(s, id) AS axs, first(s ORDER BY id DESC) AS fs,
     last(d ORDER BY k, id) AS ld, any_value(s ORDER BY d NULLS FIRST, id) AS avs,
     string_agg(s, ',' ORDER BY id) AS sa, count_if(k < 500) AS ck, bit_xor(k) AS bx,
     product(k % 3 + 1) AS pk, mode(g % 10) AS mg
   FROM 't.parquet' GROUP BY g"
spills "$q" 40MB spilled_partitions rows "$q"
for threads in 1 4; do
  expect 0 "$basalt" sql "$q" --format json --threads $threads &&
    check "ordered aggregates: the same bytes at $threads threads" cmp -s "$tmp/out" "$tmp/plain.json"
done
# array_agg: each row's element and order key are spilled columns; the
# lists' element order is the ORDER BY's (ties free: id), and the same
# bytes at 1 and 4 threads.
q="SELECT g, array_agg(s ORDER BY id) AS ls, list(k ORDER BY k DESC, id) AS lk,
     array_agg(d ORDER BY id) FILTER (WHERE k < 500) AS ld FROM 't.parquet' GROUP BY g"
spills "$q" 40MB spilled_partitions rows "$q"
for threads in 1 4; do
  expect 0 "$basalt" sql "$q" --format json --threads $threads &&
    check "array_agg: the same bytes at $threads threads" cmp -s "$tmp/out" "$tmp/plain.json"
done
# Joins: the build side spills past a third of the limit (grace hash join).
for kind in "LEFT JOIN" "SEMI JOIN"; do
  cols="sum(b.id) AS sb, min(b.s) AS ms"
  [ "$kind" = "SEMI JOIN" ] && cols="min(a.s) AS ms"
  q="SELECT a.g, count(*) AS n, sum(a.id) AS sa, $cols FROM 't.parquet' a $kind
       (SELECT * FROM 't.parquet' WHERE id % 3 <> 0) b ON a.g = b.g AND a.k < b.k GROUP BY a.g"
  spills "$q" 32MB "HASH_JOIN.*spilled_partitions" rows "$q"
done
# Windows with PARTITION BY: the input through the external sort, computed a
# chunk of whole partitions at a time (two windows, one above the other).
q="SELECT id, g, sum(k) OVER (PARTITION BY g ORDER BY id) AS rs, lag(s) OVER (PARTITION BY g ORDER BY id) AS ls,
     row_number() OVER (PARTITION BY id % 7 ORDER BY s DESC NULLS LAST, id) AS rn FROM 't.parquet'"
spills "$q" 24MB "WINDOW.*spilled_runs" rows "$q"
# A window without PARTITION BY is one partition: computed a stretch of rows
# at a time, each held with the rows around it that LAG, LEAD and the frames
# read, cut where the order keys change, the rows so far carried over (and
# the partition's size, known from the sort: NTILE, PERCENT_RANK, CUME_DIST).
q="SELECT id, k, s, d, row_number() OVER w AS rn, rank() OVER (ORDER BY k) AS rk,
     dense_rank() OVER (ORDER BY k) AS dr, lag(d, 3) OVER w AS lg, lead(s) OVER w AS ld,
     sum(d) OVER w AS rs, count(s) OVER (ORDER BY k) AS cs, max(s) OVER (ORDER BY k) AS mx,
     min(d) OVER w AS mn, sum(k) OVER (w ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING) AS fs,
     ntile(7) OVER w AS nt, percent_rank() OVER (ORDER BY k) AS pr, cume_dist() OVER (ORDER BY k) AS cd,
     first_value(s) OVER w AS fr, nth_value(d, 300000) OVER w AS nr
   FROM 't.parquet' WHERE id < 400000 WINDOW w AS (ORDER BY k, id)"
spills "$q" 24MB "WINDOW.*stretches" rows "$q"
# Frames to the partition's end: the partition is read to its end first (its
# sums, its best, last and n-th rows), then computed in stretches; without
# ORDER BY too (the input's order).
q="SELECT id, d, sum(d) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS sf,
     count(*) OVER (w ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING) AS cf,
     last_value(s) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lv,
     min(d) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS mn,
     nth_value(s, 123456) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS nv,
     d / sum(d) OVER () AS share, avg(k) OVER () AS ak, max(s) OVER () AS mx
   FROM 't.parquet' WHERE id < 400000 WINDOW w AS (ORDER BY k, id)"
spills "$q" 24MB "WINDOW.*stretches" rows "$q"
# Results larger than the limit stream out as they are made: the sort's
# merge (runs merged into longer runs first: more runs than one merge may
# hold under the limit) to --output, a spilled GROUP BY's result file
# through COPY ... TO. DuckDB finds the same rows, the sort's in order; a
# query that fails half way leaves no partial --output file.
q="SELECT k, s, id FROM 't.parquet' ORDER BY s NULLS FIRST, k DESC, id"
expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; $q" --memory-limit 12MB --format json \
  --output "$tmp/sorted.json"
check "the sorted result streamed to --output" test "$(wc -l <"$tmp/sorted.json")" -eq 1000000
checks=$((checks + 1))
if ! node "$here/sql/spill_duckdb.mjs" "$tmp/sorted.json" digest "SELECT md5(string_agg(k::VARCHAR || '|' ||
    coalesce(s, '\\N') || '|' || id::VARCHAR, chr(10) ORDER BY s NULLS FIRST, k DESC, id)) FROM 't.parquet'" >"$tmp/cmp" 2>&1; then
  echo "FAIL: streamed sort: DuckDB disagrees: $(head -3 "$tmp/cmp")"
  failures=$((failures + 1))
fi
expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; EXPLAIN ANALYZE $q" --memory-limit 12MB
check "the runs were merged into longer runs under 12MB" grep -Eq "merge_passes=[1-9]" "$tmp/out"
q="SELECT id, count(*) AS n, sum(k) AS sk, min(s) AS mins FROM 't.parquet' GROUP BY id"
expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; COPY ($q) TO '$tmp/grouped.parquet'" --memory-limit 24MB
check "COPY wrote every group" grep -q "1000000" "$tmp/out"
expect 0 "$basalt" sql "SELECT * FROM '$tmp/grouped.parquet'" --format json --output "$tmp/grouped.json"
checks=$((checks + 1))
if ! node "$here/sql/spill_duckdb.mjs" "$tmp/grouped.json" rows "$q" >"$tmp/cmp" 2>&1; then
  echo "FAIL: streamed GROUP BY: DuckDB disagrees: $(head -3 "$tmp/cmp")"
  failures=$((failures + 1))
fi
check "nothing left in temp_directory" test -z "$(ls -A "$tmp/spill")"
# (the cast fails in the last window, after 262,144 rows were written)
expect 1 "$basalt" sql "SELECT *, CAST(CASE WHEN id = 999999 THEN 'x' ELSE '1' END AS INTEGER) AS c
    FROM (SELECT k, s, id FROM 't.parquet' ORDER BY id LIMIT 2000000)" --format csv --output "$tmp/failed.csv"
check "a query failing half way leaves no --output file" test -z "$(ls "$tmp" | grep failed)"
finish
