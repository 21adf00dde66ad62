#!/usr/bin/env bash
# basalt sql: a filter keeping rows with row_number() <= K (WHERE over a
# subquery, QUALIFY, rn = K, rn < K, K >= rn) marks the window with a row
# limit, which prunes its input as it comes. Over 700,000 rows (DuckDB writes
# them; many ties in the order key, NULL partition keys) the answers equal
# DuckDB's where the rows are determined by the values (tests/sql/
# spill_duckdb.mjs), and equal basalt's own answer without the limit (the
# filter written `rn + 0 <= K`, which the rule does not read) byte for byte
# at 1, 2 and 4 threads where ties decide which rows come out. EXPLAIN
# ANALYZE shows the limit and the rows it pruned; a window with a call whose
# value depends on later rows gets no limit.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
cd "$tmp"
node "$here/sql/duckdb_query.mjs" "COPY (SELECT range AS id,
    CASE WHEN range % 101 = 7 THEN NULL ELSE (hash(range) % 5000)::INTEGER END AS g,
    (hash(range * 3) % 50)::INTEGER AS v,
    's' || (hash(range * 5) % 7)::VARCHAR AS s
  FROM range(700000)) TO '$tmp/t.parquet' (ROW_GROUP_SIZE 100000)" >/dev/null
t="'t.parquet'"

# limited NAME QUERY [CUT]: the rule fires (row_limit on the WINDOW line,
# rows pruned); with CUT, some before they were held (window_cut.c).
limited() {
  expect 0 "$basalt" sql "EXPLAIN ANALYZE $2" --threads 2
  check "$1: the window has a row limit" grep -q "row_limit=" "$tmp/out"
  check "$1: it pruned rows" grep -Eq "rows_pruned=[1-9]" "$tmp/out"
  [ -z "${3:-}" ] || check "$1: the cut dropped rows" grep -Eq "rows_cut=[1-9]" "$tmp/out"
}
# like_duckdb NAME QUERY: basalt's rows (1 and 2 threads) as DuckDB's.
like_duckdb() {
  local threads
  for threads in 1 2; do
    expect 0 "$basalt" sql "$2" --format json --threads $threads || continue
    checks=$((checks + 1))
    if ! node "$here/sql/spill_duckdb.mjs" "$tmp/out" rows "$2" >"$tmp/cmp" 2>&1; then
      echo "FAIL: $1 ($threads threads): DuckDB disagrees: $(head -3 "$tmp/cmp")"
      failures=$((failures + 1))
    fi
  done
}
# like_unlimited NAME QUERY UNLIMITED: the same bytes as the query the rule
# leaves alone, at 1, 2 and 4 threads.
like_unlimited() {
  local threads
  expect 0 "$basalt" sql "$3" --format json --threads 1 || return
  mv "$tmp/out" "$tmp/plain.json"
  expect 0 "$basalt" sql "EXPLAIN $3"
  check "$1: the unlimited form has no row limit" bash -c "! grep -q row_limit= '$tmp/out'"
  for threads in 1 2 4; do
    expect 0 "$basalt" sql "$2" --format json --threads $threads || continue
    check "$1: $threads threads, the same bytes as without the limit" cmp -s "$tmp/out" "$tmp/plain.json"
  done
}

ranked="SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS rn,
    rank() OVER (PARTITION BY g ORDER BY v DESC) AS r,
    dense_rank() OVER (PARTITION BY g ORDER BY v DESC) AS dr FROM $t"
q="SELECT * FROM ($ranked) w WHERE rn <= 3"
limited "rn <= 3" "$q" cut
like_duckdb "rn <= 3 with rank and dense_rank" "$q"
q="SELECT g, v FROM ($ranked) w WHERE rn = 1 AND v > 10"
limited "rn = 1" "$q"
like_duckdb "rn = 1" "$q"
q="SELECT g, v, rn FROM ($ranked) w WHERE 2 > rn"
limited "2 > rn" "$q"
like_duckdb "2 > rn" "$q"
q="SELECT s, v FROM $t QUALIFY row_number() OVER (PARTITION BY s, g % 3 ORDER BY v, g NULLS FIRST) < 4"
limited "QUALIFY" "$q"
like_duckdb "QUALIFY" "$q"
q="SELECT v, rn FROM (SELECT v, row_number() OVER (ORDER BY v DESC) AS rn FROM $t) w WHERE rn <= 5"
limited "no PARTITION BY" "$q" cut
like_duckdb "no PARTITION BY" "$q"
q="SELECT g, v FROM ($ranked) w WHERE rn <= 0"
like_duckdb "rn <= 0" "$q"

# Ties decide which ids come out: the same as without the limit.
inner="SELECT id, g, s, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS rn FROM $t"
like_unlimited "ties, rn <= 2" "SELECT id, g, rn FROM ($inner) w WHERE rn <= 2 ORDER BY g, rn" \
  "SELECT id, g, rn FROM ($inner) w WHERE rn + 0 <= 2 ORDER BY g, rn"
inner="SELECT id, s, row_number() OVER (PARTITION BY s ORDER BY v) AS rn FROM $t WHERE id % 3 = 0"
like_unlimited "ties, few partitions" "SELECT id, s, rn FROM ($inner) w WHERE rn < 1000 ORDER BY s, rn" \
  "SELECT id, s, rn FROM ($inner) w WHERE rn + 0 < 1000 ORDER BY s, rn"

# Calls that read later rows keep the window whole.
for call in "sum(v) OVER (PARTITION BY g ORDER BY v DESC)" "lead(v) OVER (PARTITION BY g ORDER BY v DESC)" \
            "count(*) OVER (PARTITION BY g)"; do
  q="SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS rn, $call AS c
       FROM $t) w WHERE rn <= 2"
  expect 0 "$basalt" sql "EXPLAIN $q"
  check "no row limit beside $call" bash -c "! grep -q row_limit= '$tmp/out'"
  like_duckdb "beside $call" "$q"
done
finish
