#!/usr/bin/env bash
# basalt iceberg delete / overwrite (copy-on-write): the rows a filter
# matches go, files wholly matching are removed without a rewrite, partly
# matching ones are written again; an overwrite adds new rows in the same
# snapshot; earlier snapshots still read every row; two deletes racing on
# the same files both land. Expected rows: DuckDB over the input files with
# the same condition in SQL, never basalt.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
t=db.events
scan_is() { # WHERE-SQL (over the canonical columns) FILES...: the table holds those rows
  local where=$1; shift
  "$basalt" iceberg scan $t --format csv $cat >"$tmp/scan.csv"
  canon csv "$tmp/scan.csv" >"$tmp/got"
  canon --where "$where" parquet "$@" >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got"
}
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'month(ts)' $cat
expect 0 "$basalt" iceberg append $t "$in/a.parquet" "$in/b.parquet" $cat
before=$("$basalt" iceberg snapshots $t $cat | awk 'NR == 2 { print $1 }')

# Partly matching files are rewritten.
expect 0 "$basalt" iceberg delete $t --where 'id < 100 OR name = '"'"'name-5'"'"'' $cat &&
  check "the matching rows are counted" grep -qE "deleted [0-9]+ rows" "$tmp/out"
check "the table holds the other rows" scan_is "NOT (id < 100 OR coalesce(name = 'name-5', false))" \
  "$in/a.parquet" "$in/b.parquet"
expect 0 "$basalt" iceberg count $t --snapshot "$before" $cat &&
  check "the earlier snapshot still has every row" test "$(cat "$tmp/out")" = 5000

# A month's files match whole: removed, nothing rewritten.
files_before=$(find "$tmp/wh/db/events/data" -name '*.parquet' | wc -l)
expect 0 "$basalt" iceberg delete $t --where "ts < '2024-02-01T00:00:00'" $cat &&
  check "whole files removed, none written" grep -qE "files removed, 0 written" "$tmp/out"
check "no data file was written" test "$(find "$tmp/wh/db/events/data" -name '*.parquet' | wc -l)" = "$files_before"
expect 0 "$basalt" iceberg snapshots $t $cat &&
  check "a delete snapshot" test "$(tail -n 1 "$tmp/out" | awk '{ print $5 }')" = delete
check "January is gone" scan_is "NOT (id < 100 OR coalesce(name = 'name-5', false)) AND ts >= epoch_us(TIMESTAMP '2024-02-01')" \
  "$in/a.parquet" "$in/b.parquet"
expect 0 "$basalt" iceberg delete $t --where 'id < 0' $cat &&
  check "no match, no snapshot" grep -q "nothing deleted" "$tmp/out"
expect 1 "$basalt" iceberg delete $t --where 'nope = 1' $cat &&
  check "an unknown column in the filter is named" grep -q "nope" "$tmp/err"
expect 1 "$basalt" iceberg delete $t --where 'id <' $cat

# Overwrite: March's rows replaced by c.parquet's rows, in one snapshot.
expect 0 "$basalt" iceberg overwrite $t "$in/c.parquet" --where "ts >= '2024-03-01T00:00:00'" $cat &&
  check "an overwrite" grep -q "overwrote" "$tmp/out"
"$basalt" iceberg scan $t --format csv $cat >"$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
{ canon --where "NOT (id < 100 OR coalesce(name = 'name-5', false)) AND ts >= epoch_us(TIMESTAMP '2024-02-01') AND ts < epoch_us(TIMESTAMP '2024-03-01')" \
    parquet "$in/a.parquet" "$in/b.parquet"; canon parquet "$in/c.parquet"; } | sort -t'|' -k1,1n >"$tmp/want"
check "the overwritten table holds February and c.parquet" cmp -s "$tmp/want" "$tmp/got"

# Dynamic overwrite: c.parquet's rows fall in March and April, so March's
# file is replaced whole and April's rows added; January and February stay.
expect 0 "$basalt" iceberg create db.dyn --like "$in/a.parquet" --partition 'month(ts)' $cat
expect 0 "$basalt" iceberg append db.dyn "$in/a.parquet" "$in/b.parquet" $cat
march=$(canon --where "ts >= epoch_us(TIMESTAMP '2024-03-01')" parquet "$in/a.parquet" "$in/b.parquet" | wc -l)
expect 0 "$basalt" iceberg overwrite db.dyn "$in/c.parquet" --dynamic $cat &&
  check "only March's file is replaced" grep -q "overwrote $march rows with 500 rows" "$tmp/out"
"$basalt" iceberg scan db.dyn --format csv $cat >"$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
{ canon --where "ts < epoch_us(TIMESTAMP '2024-03-01')" parquet "$in/a.parquet" "$in/b.parquet"
  canon parquet "$in/c.parquet"; } | sort -t'|' -k1,1n >"$tmp/want"
check "the partitions of the new rows are replaced, the others kept" cmp -s "$tmp/want" "$tmp/got"
expect 0 "$basalt" iceberg snapshots db.dyn $cat &&
  check "an overwrite snapshot" test "$(tail -n 1 "$tmp/out" | awk '{ print $5 }')" = overwrite
expect 2 "$basalt" iceberg overwrite db.dyn "$in/c.parquet" --dynamic --where 'id < 3' $cat

# Two deletes on the same files at once: one wins the first commit, the
# other starts over on the new head, and both take effect.
expect 0 "$basalt" iceberg create db.race --like "$in/a.parquet" --property commit.retry.num-retries=20 $cat
expect 0 "$basalt" iceberg append db.race "$in/a.parquet" $cat
"$basalt" iceberg delete db.race --where 'id < 1000' $cat >"$tmp/r1" 2>&1 &
p1=$!
"$basalt" iceberg delete db.race --where 'id >= 2000' $cat >"$tmp/r2" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "both racing deletes succeed" test "$r1$r2" = 00
expect 0 "$basalt" iceberg count db.race $cat && check "both took effect" test "$(cat "$tmp/out")" = 1000
finish
