#!/usr/bin/env bash
# basalt sql under a memory limit: a sorted result six times the limit
# streams out; a query that needs more fails with one clear line instead of
# exhausting the machine, and a cross join (every probe row meets every
# build row) runs in bounded memory with DuckDB's answer.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v node >/dev/null || [ ! -d "$here/../node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or @duckdb/node-api is missing (scripts/setup installs them)"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
duck() { node "$here/sql/duckdb_query.mjs" "$1"; }
cd "$tmp"
duck "COPY (SELECT range AS id, hash(range) % 1000003 AS x, repeat('v', 40) AS pad FROM range(2000000)) TO '$tmp/t.parquet' (ROW_GROUP_SIZE 100000)" >/dev/null

# The sort spills its runs and its merge streams out: 120 MB of sorted rows
# under 24 MB (before, the merged result was held and this failed).
expect 0 "$basalt" sql "SELECT * FROM 't.parquet' ORDER BY x" --memory-limit 24MB --format csv
check "the sorted rows stream out under the limit" test "$(wc -l <"$tmp/out")" -eq 2000001
check "in order" sort -s -t, -k2,2n -c <(tail -n +2 "$tmp/out")
# A window without PARTITION BY is one partition: a running sum is computed
# a stretch of rows at a time, its sum so far carried from one to the next;
# the last row's is the column's sum.
expect 0 "$basalt" sql "SELECT id, sum(x) OVER (ORDER BY id) AS rs FROM 't.parquet'" --memory-limit 20MB --format csv
check "the running sum streams out under the limit" test "$(wc -l <"$tmp/out")" -eq 2000001
check "its last row is DuckDB's sum" test "[\"$(tail -1 "$tmp/out" | cut -d, -f2)\"]" = "$(duck "SELECT sum(x) FROM '$tmp/t.parquet'")"
# A frame to the partition's end: the partition is first read to its end
# (its rows spooled to a file), its sum kept, and each row's sum is that
# less the rows before it; the first row's is the column's sum, the last
# row's its own x.
expect 0 "$basalt" sql "SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS sf FROM 't.parquet'" --memory-limit 20MB --format csv
check "the sums to the end stream out under the limit" test "$(wc -l <"$tmp/out")" -eq 2000001
check "its first row is DuckDB's sum" test "[\"$(sed -n 2p "$tmp/out" | cut -d, -f2)\"]" = "$(duck "SELECT sum(x) FROM '$tmp/t.parquet'")"
check "its last row is the last x" test "[\"$(tail -1 "$tmp/out" | cut -d, -f2)\"]" = "$(duck "SELECT x::VARCHAR FROM '$tmp/t.parquet' ORDER BY id DESC LIMIT 1")"
# The least x from each row to the end needs the rows after the ones held:
# such a window is computed whole, and fails naming the call.
expect 1 "$basalt" sql "SELECT id, min(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM 't.parquet'" --memory-limit 20MB --format csv
check "the limit is named, and why" grep -q 'LIMIT: .*WINDOW (.*to the partition.s end that starts after its start): memory limit of 20.0 MiB exceeded' "$tmp/err"
check "one line on stderr" one_line_stderr
check "nothing on stdout" test ! -s "$tmp/out"

expect 0 "$basalt" sql "SELECT count(*) FROM 't.parquet'" --memory-limit 20MB --format csv
check "a streaming query fits in 20 MB" test "$(tail -1 "$tmp/out")" = 2000000

q="SELECT count(*) FROM 't.parquet' a, 't.parquet' b WHERE a.x < b.x AND a.id < 3000 AND b.id < 5000"
expect 0 /usr/bin/time -f '%M' "$basalt" sql "$q" --memory-limit 200MB --format csv
check "the cross join agrees with DuckDB" test "[\"$(tail -1 "$tmp/out")\"]" = "$(duck "$q")"
# (AddressSanitizer's shadow memory and quarantine make RSS meaningless there)
if ! grep -q __asan_init "$basalt"; then
  check "and stays small (peak RSS under 150 MB)" test "$(tail -1 "$tmp/err")" -lt 150000
fi
finish
