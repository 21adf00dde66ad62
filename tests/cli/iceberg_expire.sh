#!/usr/bin/env bash
# basalt iceberg expire: snapshots past retention go, branch heads and
# --retain stay, files only expired snapshots used are deleted (and no file
# a kept snapshot uses), a dry run changes nothing; the table reads the same
# rows afterwards (DuckDB reads the inputs for the expected rows).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
t=db.events
dir=$tmp/wh/db/events
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'bucket(2, id)' $cat
for f in a b c; do expect 0 "$basalt" iceberg append $t "$in/$f.parquet" $cat; done
first=$("$basalt" iceberg snapshots $t $cat | awk 'NR == 2 { print $1 }')
count_files() { find "$dir/$1" -type f -name "$2" | wc -l; }
lists_before=$(count_files metadata 'snap-*.avro')
data_before=$(count_files data '*.parquet')

expect 0 "$basalt" iceberg expire $t --older-than "$(date +%s%3N)" --retain 1 --dry-run $cat &&
  check "a dry run counts" grep -q "dry run: $t: 2 snapshots expired" "$tmp/out"
check "and deletes nothing" test "$(count_files metadata 'snap-*.avro')" = "$lists_before"
expect 0 "$basalt" iceberg expire $t --older-than "$(date +%s%3N)" --retain 2 $cat &&
  check "--retain 2 keeps two of three" grep -q "1 snapshots expired" "$tmp/out"
check "its manifest list is deleted" test "$(count_files metadata 'snap-*.avro')" = $((lists_before - 1))
check "no data file is (every one is still live)" test "$(count_files data '*.parquet')" = "$data_before"
expect 1 "$basalt" iceberg count $t --snapshot "$first" $cat
expect 0 "$basalt" iceberg expire $t $cat &&
  check "the default cut-off (5 days) keeps young snapshots" grep -q "0 snapshots expired" "$tmp/out"

# A branch's own files: written on the branch, the branch dropped, expired.
expect 0 "$basalt" iceberg branch $t create side $cat
expect 0 "$basalt" iceberg append $t "$in/b.parquet" --branch side $cat
side_files=$(( $(count_files data '*.parquet') - data_before ))
check "the side branch wrote files" test "$side_files" -gt 0
expect 0 "$basalt" iceberg branch $t drop side $cat
expect 0 "$basalt" iceberg expire $t --older-than "$(date +%s%3N)" --retain 1 $cat &&
  check "the unreferenced side snapshot and the older main one expire" grep -q "2 snapshots expired" "$tmp/out"
check "the side branch's data files are deleted" grep -q "deleted $side_files data files, 1 manifests, 2 manifest lists" "$tmp/out"
check "main's data files are all there" test "$(count_files data '*.parquet')" = "$data_before"
expect 0 "$basalt" iceberg snapshots $t $cat && check "one snapshot left" test "$(grep -cE '^ *[0-9]+ ' "$tmp/out")" = 1
canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet" >"$tmp/want"
expect 0 "$basalt" iceberg scan $t --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
check "the table reads the same rows" cmp -s "$tmp/want" "$tmp/got"
finish
