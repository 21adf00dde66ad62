#!/usr/bin/env bash
# What DuckDB skips in files basalt writes, proven by making the skipped
# bytes unreadable: a page's compressed body is overwritten with garbage
# (tests/parquet/page_corrupt.mjs), so a query that returns the right rows
# without error did not decompress that page, and the same query over the
# same bytes made unreadable elsewhere must fail (the controls).
#   - row groups: a range filter outside row group 0 skips it (chunk
#     statistics);
#   - bloom filters: an equality filter on a value absent from row group 0
#     but inside its min/max skips it when the chunk has a bloom filter, and
#     fails without one;
#   - pages: a range filter that excludes a page of a row group it reads.
#     DuckDB 1.5.x decompresses every page of such a row group (it has no
#     page skipping; page skipping from page header statistics came later),
#     so this case reports which of "page header statistics", "the page
#     index" or "no page skipping" holds for the DuckDB installed, and with
#     page skipping requires the controls;
#   - basalt's own reader skips that page with the ColumnIndex (and reads
#     it, failing, when the same bytes have no page index);
#   - the page index, page header statistics and size statistics of files
#     written with both page versions agree with the pages' contents as
#     hyparquet and DuckDB read them (tests/parquet/page_index_check.mjs),
#     and a file whose header statistics were hidden is seen without them.
# Skipped, saying so, when node, @duckdb/node-api or hyparquet is missing.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null ||
   ! (cd "$pq" && node -e "import('@duckdb/node-api').then(() => import('hyparquet'))" 2>/dev/null); then
  echo "skipped: node, @duckdb/node-api or hyparquet is not installed"
  exit 0
fi
q() { node "$pq/duckdb_query.mjs" "$@"; }
corrupt() { node "$pq/page_corrupt.mjs" "$@" || { echo "FAIL: page_corrupt.mjs $*"; exit 1; }; }
version=$(q --version)
echo "DuckDB $version"

# x = 2 * row (sorted, even), n nullable with a run of nulls, s strings.
in=$tmp/in.parquet
q - "COPY (SELECT (2 * i)::BIGINT AS x,
  CASE WHEN i BETWEEN 30000 AND 45000 OR i % 7 = 3 THEN NULL ELSE (i % 1000)::INTEGER END AS n,
  CASE WHEN i % 11 = 5 THEN NULL ELSE 'k' || lpad(i::VARCHAR, 6, '0') || repeat('z', (i % 5)::INTEGER) END AS s
  FROM range(0, 100000) t(i)) TO '$in' (FORMAT parquet)" >/dev/null || { echo "FAIL: DuckDB cannot write the input"; exit 1; }

# answer NAME FILE WHERE WANT: the query's count(*), min(x), max(x) are WANT.
answer() {
  local name=$1 file=$2 where=$3 want=$4 got
  checks=$((checks + 1))
  got=$(q "$file" "SELECT count(*), min(x), max(x) FROM f WHERE $where" 2>&1)
  if [ "$got" != "$want" ]; then
    echo "FAIL: $name: '$where' gave '$got', expected '$want'"; failures=$((failures + 1)); return 1
  fi
}
# fails NAME FILE WHERE: the query errors (it read the corrupted page).
fails() {
  local name=$1 file=$2 where=$3 got
  checks=$((checks + 1))
  if got=$(q "$file" "SELECT count(*), min(x), max(x) FROM f WHERE $where" 2>&1); then
    echo "FAIL: $name: '$where' read the corrupted page without error: $got"; failures=$((failures + 1)); return 1
  fi
  if ! grep -qi 'decompress\|corrupt\|invalid\|error' <<<"$got"; then
    echo "FAIL: $name: unexpected error: $got"; failures=$((failures + 1)); return 1
  fi
}
# page_rows LISTING PAGE: "first_row last_row" of PAGE in a page_corrupt listing.
page_rows() { awk -v p="$2" '$1 == p { print $2, $3 }' "$1"; }

# --- row groups: chunk statistics
rg=$tmp/rg.parquet
expect 0 "$basalt" parquet rewrite "$in" "$rg" --codec zstd --page-size 8192 --row-group-size 50000 --dictionary off
corrupt "$rg" "$tmp/rg_c.parquet" x 0 0 >"$tmp/rg.pages"
answer "row group skipped by its statistics" "$tmp/rg_c.parquet" "x BETWEEN 150000 AND 150010" "6 150000 150010"
fails "control: row group 0 read" "$tmp/rg_c.parquet" "x BETWEEN 10 AND 20"

# --- bloom filters: x = 50001 is odd (absent) and inside row group 0's and
# its page's min/max; only a bloom filter can say it is not there.
bl=$tmp/bloom.parquet nobl=$tmp/nobloom.parquet
expect 0 "$basalt" parquet rewrite "$in" "$bl" --codec zstd --page-size 8192 --row-group-size 50000 --dictionary off --bloom x
expect 0 "$basalt" parquet rewrite "$in" "$nobl" --codec zstd --page-size 8192 --row-group-size 50000 --dictionary off
corrupt "$bl" "$tmp/bloom.pages.parquet" x 0 -1 >"$tmp/bl.pages"
page=$(awk '$2 <= 25000 && $3 >= 25000 { print $1 }' "$tmp/bl.pages")
[ -n "$page" ] || { echo "FAIL: no page holds row 25000"; exit 1; }
corrupt "$bl" "$tmp/bl_c.parquet" x 0 "$page" >/dev/null
corrupt "$nobl" "$tmp/nobl_c.parquet" x 0 "$page" >/dev/null
answer "bloom filter skips row group 0" "$tmp/bl_c.parquet" "x = 50001" "0 null null"
fails "control: the value's page read" "$tmp/bl_c.parquet" "x = 50000"
fails "control: no bloom filter, row group 0 read" "$tmp/nobl_c.parquet" "x = 50001"

# --- pages: one row group, page 2 corrupted, a range in a later page asked for
one=$tmp/one.parquet
expect 0 "$basalt" parquet rewrite "$in" "$one" --codec zstd --page-size 8192 --row-group-size 1000000 --dictionary off
corrupt "$one" "$tmp/one_c.parquet" x 0 2 >"$tmp/one.pages"
corrupt "$one" "$tmp/strip_c.parquet" x 0 2 --strip-stats >/dev/null
npages=$(wc -l <"$tmp/one.pages")
check "many pages in one row group ($npages)" test "$npages" -ge 10
read -r bad_first bad_last < <(page_rows "$tmp/one.pages" 2)
read -r far_first far_last < <(page_rows "$tmp/one.pages" $((npages - 2)))
lo=$((2 * far_first)) hi=$((2 * far_first + 20))
fails "control: the corrupted page read" "$tmp/one_c.parquet" "x BETWEEN $((2 * bad_first)) AND $((2 * bad_first + 20))"
fails "control: the corrupted page read (no header statistics)" "$tmp/strip_c.parquet" "x BETWEEN $((2 * bad_first)) AND $((2 * bad_first + 20))"
if got=$(q "$tmp/one_c.parquet" "SELECT count(*), min(x), max(x) FROM f WHERE x BETWEEN $lo AND $hi" 2>&1); then
  answer "pages skipped" "$tmp/one_c.parquet" "x BETWEEN $lo AND $hi" "11 $lo $hi"
  if q "$tmp/strip_c.parquet" "SELECT count(*) FROM f WHERE x BETWEEN $lo AND $hi" >/dev/null 2>&1; then
    echo "DuckDB $version skips pages with the page index"
  else
    echo "DuckDB $version skips pages with page header statistics (not without them)"
  fi
else
  echo "DuckDB $version: no page skipping (a filter excluding page 2 of $npages still decompressed it: $got)"
  fails "no page skipping without header statistics either" "$tmp/strip_c.parquet" "x BETWEEN $lo AND $hi"
fi

# --- pages, read by basalt's reader, which prunes pages with the ColumnIndex:
# the same range skips page 2; the same file bytes with the page index left
# out of the footer (the pages are identical, so the corrupted data of
# one_c.parquet is spliced before the index-less footer) must fail.
nopi=$tmp/nopi.parquet
expect 0 "$basalt" parquet rewrite "$in" "$nopi" --codec zstd --page-size 8192 --row-group-size 1000000 --dictionary off --page-index off
same_at=$(cmp "$one" "$nopi" | awk '{ print $5 }' | tr -d ,)
check "without the page index only the footer differs" test "${same_at:-0}" -gt $((8192 * npages / 2))
{ head -c $((same_at - 1)) "$tmp/one_c.parquet"; tail -c +"$same_at" "$nopi"; } >"$tmp/nopi_c.parquet"
where="x >= $lo AND x <= $hi"
checks=$((checks + 1))
if ! "$basalt" parquet cat "$tmp/one_c.parquet" --where "$where" --format csv >"$tmp/cat.csv" 2>"$tmp/cat.err"; then
  echo "FAIL: basalt did not skip the corrupted page with the page index: $(cat "$tmp/cat.err")"; failures=$((failures + 1))
elif [ "$(tail -n +2 "$tmp/cat.csv" | cut -d, -f1 | sort -n | sed -n '1p;$p' | tr '\n' ' ')" != "$lo $hi " ]; then
  echo "FAIL: basalt's rows for '$where': $(head -3 "$tmp/cat.csv")"; failures=$((failures + 1))
fi
expect 1 "$basalt" parquet cat "$tmp/nopi_c.parquet" --where "$where" --format csv
check "control: without the page index basalt reads the corrupted page" grep -q "page 2" "$tmp/err"

# --- the page index against the pages' contents, both page versions
for pv in 1 2; do
  f=$tmp/pv$pv.parquet
  expect 0 "$basalt" parquet rewrite "$in" "$f" --codec snappy --page-size 8192 --row-group-size 60000 --dictionary off --page-version "$pv"
  checks=$((checks + 1))
  if ! node "$pq/page_index_check.mjs" "$f" >"$tmp/check.out" 2>&1; then
    echo "FAIL: page v$pv: the page index does not match the pages:"; head -5 "$tmp/check.out"; failures=$((failures + 1))
  fi
done
corrupt "$tmp/pv1.parquet" "$tmp/strip.parquet" x 0 -1 --strip-stats >/dev/null
checks=$((checks + 1))
if node "$pq/page_index_check.mjs" "$tmp/strip.parquet" >"$tmp/check.out" 2>&1 ||
   ! grep -q 'column x, page 0: no header statistics' "$tmp/check.out"; then
  echo "FAIL: control: hidden header statistics went unnoticed"; failures=$((failures + 1))
fi
expect 0 "$basalt" parquet rewrite "$in" "$tmp/nostats.parquet" --codec snappy --page-size 8192 --page-statistics off
checks=$((checks + 1))
if node "$pq/page_index_check.mjs" "$tmp/nostats.parquet" >"$tmp/check.out" 2>&1 ||
   ! grep -q 'column x, page 0: no header statistics' "$tmp/check.out"; then
  echo "FAIL: --page-statistics off still wrote header statistics"; failures=$((failures + 1))
fi
finish
