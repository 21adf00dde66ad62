#!/usr/bin/env bash
# v3 row lineage (the spec's "Row Lineage"): every row keeps its _row_id
# through copy-on-write deletes and updates, merge-on-read updates and
# compactions, and its _last_updated_sequence_number changes only when the
# row does. The expected values come from the spec and DuckDB, not basalt:
# a new table's next-row-id is 0, so the rows of the first append have ids
# 0.. by their position in its file (DuckDB's file_row_number), those of the
# second append follow, and each row's sequence number is that of the
# snapshot that last wrote it (1, 2, ... one per commit). The files the
# rewrites leave are read back by DuckDB, which must find the same ids stored
# in them; a v2 table gets no lineage columns.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
pq=$here/parquet
py=/usr/bin/python3
t=db.lineage

duck() { node "$pq/duckdb_query.mjs" "$@"; }
duck_copy() { duck - "$1" >/dev/null; }
# lineage: the table's rows as "id,_row_id,_last_updated_sequence_number", sorted.
lineage() {
  "$basalt" iceberg scan "$1" --columns id,_row_id,_last_updated_sequence_number --format csv $cat |
    tail -n +2 | sort
}
# expect_now: the expected rows, "id,row_id,seq", sorted, into expected.sorted.
expect_now() { sort "$tmp/expected" >"$tmp/expected.sorted"; }
same_as_expected() { expect_now; cmp -s <(lineage $t) "$tmp/expected.sorted"; }
# set_seq SEQ AWK_CONDITION: the expected rows matching the condition (on $1, the id) get SEQ.
set_seq() { awk -F, -v OFS=, -v s="$1" "{ if ($2) \$3 = s; print }" "$tmp/expected" >"$tmp/e" && mv "$tmp/e" "$tmp/expected"; }
drop_rows() { awk -F, "!($1)" "$tmp/expected" >"$tmp/e" && mv "$tmp/e" "$tmp/expected"; }

# Ids by position in the appended files: a.parquet first, then b.parquet.
check "DuckDB numbers the input rows" duck_copy "COPY (
  SELECT id, file_row_number AS row_id, 1 AS seq FROM read_parquet('$in/a.parquet', file_row_number = true)
  UNION ALL
  SELECT id, file_row_number + (SELECT count(*) FROM read_parquet('$in/a.parquet')), 2
  FROM read_parquet('$in/b.parquet', file_row_number = true)
) TO '$tmp/expected' (HEADER false)"

expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --format-version 3 $cat
expect 0 "$basalt" iceberg append $t "$in/a.parquet" $cat
expect 0 "$basalt" iceberg append $t "$in/b.parquet" $cat
check "after two appends: ids by position, sequence numbers 1 and 2" same_as_expected

# 3: copy-on-write delete; the rewritten file's other rows move.
expect 0 "$basalt" iceberg delete $t --where 'id >= 100 AND id < 200' --mode cow $cat
drop_rows '$1 >= 100 && $1 < 200'
check "copy-on-write delete: the moved rows keep id and sequence number" same_as_expected
# 4: copy-on-write update: changed rows keep their id, get sequence number 4.
expect 0 "$basalt" iceberg update $t --set "name = 'changed'" --where 'id < 10' --mode cow $cat
set_seq 4 '$1 < 10'
check "copy-on-write update: changed rows keep their id, sequence number 4" same_as_expected
# 5: merge-on-read update (a deletion vector and the new rows in a new file).
expect 0 "$basalt" iceberg update $t --set "name = 'again'" --where 'id >= 4900' --mode mor $cat
set_seq 5 '$1 >= 4900'
check "merge-on-read update: changed rows keep their id, sequence number 5" same_as_expected
# 6: merge-on-read delete.
expect 0 "$basalt" iceberg delete $t --where 'id >= 2000 AND id < 2100' --mode mor $cat
drop_rows '$1 >= 2000 && $1 < 2100'
check "merge-on-read delete" same_as_expected
# 7: compaction of everything, deletes applied.
expect 0 "$basalt" iceberg compact $t --all $cat
check "compaction: every row keeps id and sequence number" same_as_expected
# 8: a sorted compaction moves rows again.
expect 0 "$basalt" iceberg compact $t --all --strategy sort --sort 'name desc, id' $cat
check "sorted compaction: every row keeps id and sequence number" same_as_expected

# DuckDB reads the ids stored in the files the compaction wrote.
"$basalt" iceberg scan $t --columns _file --format csv $cat | tail -n +2 | sort -u >"$tmp/files"
check "the compacted table has data files" test -s "$tmp/files"
list=$(sed "s/.*/'&'/" "$tmp/files" | paste -sd, -)
check "DuckDB reads _row_id and _last_updated_sequence_number from the files" duck_copy "COPY (
  SELECT id, _row_id, _last_updated_sequence_number FROM read_parquet([$list])
) TO '$tmp/stored' (HEADER false)"
check "the files store every row's id and sequence number" cmp -s <(sort "$tmp/stored") "$tmp/expected.sorted"

# Ids are unique and below the table's next-row-id (python3's json, not basalt).
rows=$(wc -l <"$tmp/expected")
check "no id is given twice" test "$(cut -d, -f2 "$tmp/expected" | sort -u | wc -l)" = "$rows"
next=$($py -c '
import json, os, sys
d = sys.argv[1]
f = max((os.path.join(d, n) for n in os.listdir(d) if n.endswith(".metadata.json")), key=os.path.getmtime)
print(json.load(open(f))["next-row-id"])' "$tmp/wh/db/lineage/metadata")
max_id=$(cut -d, -f2 "$tmp/expected" | sort -n | tail -1)
check "next-row-id ($next) is past every id ($max_id)" test "$next" -gt "$max_id"

# A v2 table has no lineage: null ids, and rewrites store no lineage columns.
expect 0 "$basalt" iceberg create db.v2 --like "$in/a.parquet" $cat
expect 0 "$basalt" iceberg append db.v2 "$in/a.parquet" $cat
expect 0 "$basalt" iceberg delete db.v2 --where 'id < 100' --mode cow $cat
"$basalt" iceberg scan db.v2 --columns _row_id,_last_updated_sequence_number --format csv $cat |
  tail -n +2 | sort -u >"$tmp/v2"
check "v2: _row_id and _last_updated_sequence_number are null" test "$(cat "$tmp/v2")" = ","
f2=$("$basalt" iceberg scan db.v2 --columns _file --format csv $cat | tail -n +2 | head -1)
check "v2: the rewritten file has no _row_id column" \
  test "$(duck "$f2" "SELECT count(*) FROM (DESCRIBE f) WHERE column_name = '_row_id'")" = 0

finish
