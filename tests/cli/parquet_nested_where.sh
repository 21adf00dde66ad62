#!/usr/bin/env bash
# --where on fields inside lists and maps, with --columns narrowing what
# prints, against DuckDB's answer to the same question:
#   - a term on a path into a list element or a map key/value holds for a
#     row when it holds for some element (ANY; a null or empty list has
#     none): DuckDB's `len(list_filter(LIST, x -> x OP v)) > 0` over l,
#     map_keys(m), map_values(m), a list of structs; paths in the Arrow form
#     (l.element, m.key_value.key) and the Parquet form (l.list.element);
#   - the rows kept are DuckDB's (ids compared), and only the --columns
#     print: not the filter column, not even beside a printed field of the
#     same struct or list element;
#   - row groups are pruned by the list leaf's statistics: the data of a row
#     group that cannot match is overwritten (tests/parquet/page_corrupt.mjs
#     on a basalt rewrite with a page index) and the filtered read still
#     answers, while one that reads that row group fails.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
if ! command -v node >/dev/null ||
   ! (cd "$pq" && node -e "Promise.all(['@duckdb/node-api', 'hyparquet'].map((m) => import(m)))" 2>/dev/null); then
  echo "skipped: node, @duckdb/node-api or hyparquet is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
  exit 0
fi
query() { node "$pq/duckdb_query.mjs" "$@"; }

# 400 rows in four row groups: l's elements lie in [100 g, 100 g + 40] for
# row group g, with null lists, empty lists and null elements; m maps
# 'k<n>' keys to values with nulls; ls is a list of structs; s a struct.
f=$tmp/nested.parquet
query - "COPY (SELECT i AS id,
    CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN []::BIGINT[]
         ELSE [100 * (i // 100) + i % 37, CASE WHEN i % 5 = 0 THEN NULL ELSE 100 * (i // 100) + (i * 7) % 41 END]
    END AS l,
    CASE WHEN i % 9 = 0 THEN NULL
         ELSE MAP {'k' || (i % 6): CASE WHEN i % 4 = 0 THEN NULL ELSE i % 50 END, 'z': i} END AS m,
    CASE WHEN i % 17 = 0 THEN NULL
         ELSE [{'x': i % 7, 'y': 'v' || (i % 10)}, CASE WHEN i % 3 = 0 THEN NULL ELSE {'x': NULL, 'y': 'w'} END] END AS ls,
    {'a': i, 'b': 'b' || (i % 4)} AS s
  FROM range(400) t(i) ORDER BY i) TO '$f' (FORMAT parquet, ROW_GROUP_SIZE 100)" >/dev/null

# basalt term | DuckDB condition
cases=(
  "l.element = 7|len(list_filter(l, x -> x = 7)) > 0"
  "l.list.element > 330|len(list_filter(l, x -> x > 330)) > 0"
  "l.element IS NULL|len(list_filter(l, x -> x IS NULL)) > 0"
  "l.element IS NOT NULL|len(list_filter(l, x -> x IS NOT NULL)) > 0"
  "l.element != 105|len(list_filter(l, x -> x <> 105)) > 0"
  "m.key_value.key = 'k3'|len(list_filter(map_keys(m), x -> x = 'k3')) > 0"
  "m.key_value.value >= 45|len(list_filter(map_values(m), x -> x >= 45)) > 0"
  "m.key_value.value IS NULL|len(list_filter(map_values(m), x -> x IS NULL)) > 0"
  "ls.element.x < 2|len(list_filter(ls, e -> e.x < 2)) > 0"
  "ls.list.element.y = 'v5'|len(list_filter(ls, e -> e.y = 'v5')) > 0"
  "ls.element.x IS NULL|len(list_filter(ls, e -> e.x IS NULL)) > 0"
  "l.element = 7 AND m.key_value.key = 'k1' AND id < 300|len(list_filter(l, x -> x = 7)) > 0 AND len(list_filter(map_keys(m), x -> x = 'k1')) > 0 AND id < 300"
  "s.b = 'b2' AND ls.element.y = 'w'|s.b = 'b2' AND len(list_filter(ls, e -> e.y = 'w')) > 0"
)
for c in "${cases[@]}"; do
  w=${c%%|*}; sql=${c#*|}
  query "$f" "SELECT id FROM f WHERE $sql ORDER BY id" >"$tmp/want"
  expect 0 "$basalt" parquet cat "$f" --columns id --where "$w" --format csv &&
    check "[$w]: DuckDB's rows ($(wc -l <"$tmp/want"))" cmp -s <(tail -n +2 "$tmp/out") "$tmp/want" &&
    check "[$w]: only id printed" [ "$(head -1 "$tmp/out")" = id ]
done
check "the cases select some rows and not all" \
  [ "$(query "$f" "SELECT count(*) FROM f WHERE len(list_filter(l, x -> x = 7)) > 0")" -gt 0 ]

# Only the --columns print, when the filter reads a sibling field: of a
# struct, and of the struct elements of a list.
all_json() { "$basalt" parquet cat "$f" --columns "$1" --format json; }
query "$f" "SELECT id FROM f WHERE s.b = 'b1' ORDER BY id" >"$tmp/want"
expect 0 "$basalt" parquet cat "$f" --columns id,s.a --where "s.b = 'b1'" --format json &&
  check "s.a printed alone under a filter on s.b" \
    cmp -s "$tmp/out" <(all_json id,s.a | grep -F -f <(sed 's/.*/{"id":&,/' "$tmp/want"))
query "$f" "SELECT id FROM f WHERE len(list_filter(ls, e -> e.x < 2)) > 0 ORDER BY id" >"$tmp/want"
expect 0 "$basalt" parquet cat "$f" --columns id,ls.element.y --where "ls.element.x < 2" --format json &&
  check "ls.element.y printed alone under a filter on ls.element.x" \
    cmp -s "$tmp/out" <(all_json id,ls.element.y | grep -F -f <(sed 's/.*/{"id":&,/' "$tmp/want")) &&
  check "no x in the output" bash -c "! grep -q '\"x\"' '$tmp/out'"
expect 0 "$basalt" parquet cat "$f" --columns id --where "m.key_value.value IS NULL" --format table &&
  check "table: the id column alone" [ "$(head -1 "$tmp/out" | tr -d ' ')" = id ]

# Paths that are not there.
expect 2 "$basalt" parquet cat "$f" --columns id --where "l.nope = 1" && check "unknown element field: usage" one_line_stderr
expect 2 "$basalt" parquet cat "$f" --columns id --where "m.key_value = 1" &&
  check "a map's entries cannot be compared" one_line_stderr

# Row groups pruned by the list leaf's statistics: rewritten by basalt (one
# row group per 100 rows, a page index), then row group 1's id page made
# unreadable. l.element > 330 cannot match row group 1 ([100, 140]).
expect 0 "$basalt" parquet rewrite "$f" "$tmp/rw.parquet" --row-group-size 100 &&
  node "$pq/page_corrupt.mjs" "$tmp/rw.parquet" "$tmp/bad.parquet" id 1 0 >/dev/null
query "$f" "SELECT id FROM f WHERE len(list_filter(l, x -> x > 330)) > 0 ORDER BY id" >"$tmp/want"
expect 0 "$basalt" parquet cat "$tmp/bad.parquet" --columns id --where "l.element > 330" --format csv &&
  check "pruned by list statistics: row group 1 not read, DuckDB's rows" \
    cmp -s <(tail -n +2 "$tmp/out") "$tmp/want"
expect 1 "$basalt" parquet cat "$tmp/bad.parquet" --columns id --where "l.element > 130" --format csv &&
  check "control: a filter that row group 1 may match reads it and fails" one_line_stderr
expect 0 "$basalt" parquet cat "$tmp/bad.parquet" --columns id --where "m.key_value.value >= 1000" --format csv &&
  check "pruned by map value statistics: nothing read" [ "$(cat "$tmp/out")" = id ]

finish
