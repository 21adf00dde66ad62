#!/usr/bin/env bash
# GROUPING SETS, ROLLUP and CUBE over 200,000 rows (DuckDB writes them): the
# same rows with 1, 2 and 4 threads, and under a memory limit that makes
# their aggregation spill (EXPLAIN ANALYZE shows the partitions written), as
# DuckDB gives them (tests/sql/spill_duckdb.mjs). Aggregates that roll up
# (count, sum, avg, min) are aggregated once by all the keys and the sets
# from those groups: 5MB is enough with 1 and 2 threads, as for the plain
# GROUP BY (with 4 threads that one fails at 5MB too). median and
# count(DISTINCT) see every input row once per set: 24MB. The query lists of
# tests/sql/functions/grouping.txt check the forms one by one.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
cd "$tmp"
node "$here/sql/duckdb_query.mjs" "COPY (SELECT range AS id, hash(range) % 1000 AS k,
    CASE WHEN range % 17 = 3 THEN NULL ELSE (hash(range * 5) % 100000) / 8.0 END AS d,
    CASE WHEN range % 11 = 4 THEN NULL ELSE hash(range * 7) % 200003 END AS g
  FROM range(200000)) TO '$tmp/t.parquet' (ROW_GROUP_SIZE 5000)" >/dev/null
mkdir -p "$tmp/spill"

# QUERY LIMIT THREADS...: the rows (sorted) of every thread count, with and
# without LIMIT, are the same bytes; under LIMIT the aggregation spilled;
# DuckDB agrees.
same_everywhere() {
  local q=$1 limit=$2; shift 2
  expect 0 "$basalt" sql "$q" --threads 1 --format json || return
  sort "$tmp/out" >"$tmp/want.json"
  for t in "$@"; do
    expect 0 "$basalt" sql "$q" --threads "$t" --format json || return
    sort "$tmp/out" >"$tmp/got.json"
    check "$t threads: the rows of 1 thread" cmp -s "$tmp/want.json" "$tmp/got.json"
    expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; $q" --threads "$t" \
      --memory-limit "$limit" --format json || return
    sort "$tmp/out" >"$tmp/got.json"
    check "$t threads, $limit: the rows without the limit" cmp -s "$tmp/want.json" "$tmp/got.json"
    expect 0 "$basalt" sql "SET temp_directory = '$tmp/spill'; EXPLAIN ANALYZE $q" \
      --threads "$t" --memory-limit "$limit"
    check "$t threads: it spilled under $limit" grep -Eq "spilled_partitions=[1-9]" "$tmp/out"
    check "nothing left in temp_directory" test -z "$(ls -A "$tmp/spill")"
  done
  checks=$((checks + 1))
  if ! node "$here/sql/spill_duckdb.mjs" "$tmp/want.json" rows "$q" >"$tmp/cmp" 2>&1; then
    echo "FAIL: DuckDB disagrees: $(head -3 "$tmp/cmp")"
    failures=$((failures + 1))
  fi
}

same_everywhere "SELECT k % 100 AS a, g % 7 AS b, count(*) AS n, sum(k) AS sk, avg(d) AS ad,
    min(d) AS lo, GROUPING(a, b) AS gr
  FROM 't.parquet' GROUP BY ROLLUP (a, b)" 5MB 1 2
same_everywhere "SELECT k % 100 AS a, g % 7 AS b, count(*) AS n, sum(d) AS sd, GROUPING(a, b) AS gr
  FROM 't.parquet' GROUP BY CUBE (a, b)" 5MB 1 2
same_everywhere "SELECT k % 100 AS a, g % 7 AS b, count(*) AS n, median(d) AS med,
    count(DISTINCT k) AS dk, GROUPING(a, b) AS gr
  FROM 't.parquet' GROUP BY CUBE (a, b)" 24MB 1 2 4
# An empty input still gives the row of the set without keys.
expect 0 "$basalt" sql "SELECT k % 100 AS a, count(*) AS n, sum(k) AS sk FROM 't.parquet'
  WHERE id < 0 GROUP BY ROLLUP (a)" --format json
check "an empty input: one row, count 0" grep -qx '{"a":null,"n":0,"sk":null}' "$tmp/out"
finish
