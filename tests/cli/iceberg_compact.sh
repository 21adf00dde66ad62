#!/usr/bin/env bash
# basalt iceberg compact: small files of each partition rewritten into one
# "replace" snapshot; every snapshot reads the rows it read before; the
# independent icebird reader reads the compacted table as DuckDB reads the
# inputs; a corpus table with position and equality deletes (written by
# Java) compacts to the rows it had, its delete files removed; the sort
# strategy orders rows; appends racing a compaction both land. Summaries
# are read with python3's json module, never with basalt.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
source "$(dirname "$0")/../servers/servers.bash"
py=/usr/bin/python3

# last_summary METADATA_DIR KEY: the newest metadata file's current snapshot summary value.
last_summary() {
  $py -c '
import json, os, sys
d = sys.argv[1]
f = max((os.path.join(d, n) for n in os.listdir(d) if n.endswith(".metadata.json")), key=os.path.getmtime)
m = json.load(open(f))
s = [s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]][0]
print(s["summary"].get(sys.argv[2], "-"))' "$1" "$2"
}
# seq_of METADATA_DIR: the current snapshot's and its parent's sequence numbers.
seqs() {
  $py -c '
import json, os, sys
d = sys.argv[1]
f = max((os.path.join(d, n) for n in os.listdir(d) if n.endswith(".metadata.json")), key=os.path.getmtime)
m = json.load(open(f)); by = {s["snapshot-id"]: s for s in m["snapshots"]}
s = by[m["current-snapshot-id"]]; print(s["sequence-number"], by[s["parent-snapshot-id"]]["sequence-number"])' "$1"
}

# ------------------------------------------------ small files, icebird
mkdir -p "$tmp/web"
start_nginx "$tmp/web" || check "nginx starts" false
web="--catalog sqlite:$tmp/web/catalog.db --map $HTTP_ENDPOINT=$tmp/web"
t=db.events
dir=$tmp/web/db/events
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'month(ts)' \
  --location "$HTTP_ENDPOINT/db/events" $web
for f in a b c; do expect 0 "$basalt" iceberg append $t "$in/$f.parquet" $web; done
expect 0 "$basalt" iceberg delete $t --where 'id >= 2900 AND id < 3100' $web
snaps=$("$basalt" iceberg snapshots $t $web | awk '$1 ~ /^[0-9]+$/ { print $1 }')
for s in $snaps; do "$basalt" iceberg scan $t --snapshot "$s" --format csv $web | sort >"$tmp/before-$s"; done
data_before=$(find "$dir/data" -name '*.parquet' | sort)
expect 0 "$basalt" iceberg compact $t --min-input-files 2 $web &&
  check "compaction reports its work" grep -qE "compacted [0-9]+ partitions: [0-9]+ data files" "$tmp/out"
removed=$(sed -nE 's/.*: ([0-9]+) data files \(.* rewritten into ([0-9]+) .*/\1/p' "$tmp/out")
added=$(sed -nE 's/.* rewritten into ([0-9]+) .*/\1/p' "$tmp/out")
check "several files became fewer" test "$removed" -gt "$added"
check "summary: operation replace" test "$(last_summary "$dir/metadata" operation)" = replace
check "summary: deleted-data-files" test "$(last_summary "$dir/metadata" deleted-data-files)" = "$removed"
check "summary: added-data-files" test "$(last_summary "$dir/metadata" added-data-files)" = "$added"
check "summary: records kept" test "$(last_summary "$dir/metadata" added-records)" = "$(last_summary "$dir/metadata" deleted-records)"
check "summary: total-records unchanged" test "$(last_summary "$dir/metadata" total-records)" = 5300
read -r new_seq parent_seq < <(seqs "$dir/metadata")
check "the replace snapshot has its own sequence number" test "$new_seq" = $((parent_seq + 1))
for s in $snaps; do
  "$basalt" iceberg scan $t --snapshot "$s" --format csv $web | sort >"$tmp/after-$s"
  check "snapshot $s reads the same rows" cmp -s "$tmp/before-$s" "$tmp/after-$s"
done
"$basalt" iceberg scan $t --format csv $web | sort >"$tmp/now"
check "the compacted table reads the rows it had" cmp -s "$tmp/before-${snaps##*$'\n'}" "$tmp/now"
check "the old data files are still on disk (earlier snapshots use them)" \
  test "$(echo "$data_before" | while read -r f; do test -f "$f" && echo y; done | wc -l)" = "$(echo "$data_before" | wc -l)"
meta=$(ls -t "$dir/metadata/" | grep 'metadata.json$' | head -n 1)
node "$here/iceberg/icebird_read.mjs" "$HTTP_ENDPOINT/db/events" "$meta" >"$tmp/got" 2>"$tmp/icebird.err"
canon --where "NOT (id >= 2900 AND id < 3100)" parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet" >"$tmp/want"
check "icebird reads the compacted table: DuckDB's rows of the inputs" cmp -s "$tmp/want" "$tmp/got"
expect 0 "$basalt" iceberg files $t $web
check "one data file a month now" test "$(grep -c 'ts_month=' "$tmp/out")" = 4
expect 0 "$basalt" iceberg compact $t --min-input-files 2 $web &&
  check "a compacted table has nothing to compact" grep -q "nothing to compact" "$tmp/out"
# The rewritten files go when the snapshots that used them expire.
expect 0 "$basalt" iceberg expire $t --older-than "$(date +%s%3N)" --retain 1 $web
check "expiry deletes every file the compaction replaced: only the live four are left" \
  test "$(find "$dir/data" -name '*.parquet' | wc -l)" = 4
"$basalt" iceberg scan $t --format csv $web | sort >"$tmp/now2"
check "and the table still reads the same" cmp -s "$tmp/now" "$tmp/now2"

# ------------------------------------------------ a table with deletes (Java wrote it)
bun=$tmp/bunnies
cp -r "$testdata/iceberg/icebird/hyperparam-iceberg/java/bunnies" "$bun"
bcat="--catalog sqlite:$tmp/b.db --map s3a://hyperparam-iceberg/java/bunnies=$bun"
expect 0 "$basalt" iceberg register db.bunnies "$bun" $bcat
"$basalt" iceberg scan db.bunnies --format csv $bcat | sort >"$tmp/b-before"
expect 0 "$basalt" iceberg files db.bunnies $bcat &&
  check "the corpus table has two delete files" grep -q "delete files 2" "$tmp/out"
expect 0 "$basalt" iceberg compact db.bunnies $bcat &&
  check "files with deletes are compacted, their delete files removed" grep -q "2 delete files removed" "$tmp/out"
"$basalt" iceberg scan db.bunnies --format csv $bcat | sort >"$tmp/b-after"
check "the deletes were applied: same rows" cmp -s "$tmp/b-before" "$tmp/b-after"
check "15 rows (21 + 1 written, 6 position and 1 equality deletes)" test "$(($(wc -l <"$tmp/b-after") - 1))" = 15
expect 0 "$basalt" iceberg files db.bunnies $bcat &&
  check "no delete file is left" grep -q "delete files 0" "$tmp/out"
check "summary: removed-position-delete-files" test "$(last_summary "$bun/metadata" removed-position-delete-files)" = 1
check "summary: removed-equality-delete-files" test "$(last_summary "$bun/metadata" removed-equality-delete-files)" = 1
check "summary: removed-position-deletes" test "$(last_summary "$bun/metadata" removed-position-deletes)" = 6
check "summary: total-delete-files" test "$(last_summary "$bun/metadata" total-delete-files)" = 0
check "summary: total-records" test "$(last_summary "$bun/metadata" total-records)" = 15
read -r new_seq parent_seq < <(seqs "$bun/metadata")
m0=$(ls -t "$bun"/metadata/*-m0.avro | head -n 1)
check "the new files keep the starting snapshot's data sequence number" \
  $py -c '
import sys, avro.datafile, avro.io
r = avro.datafile.DataFileReader(open(sys.argv[1], "rb"), avro.io.DatumReader())
seqs = {e["sequence_number"] for e in r}
sys.exit(0 if seqs == {int(sys.argv[2])} else 1)' "$m0" "$parent_seq"

# ------------------------------------------------ sort strategy
expect 0 "$basalt" iceberg create db.sorted --like "$in/a.parquet" --sort 'id desc' $web
for f in c a b; do expect 0 "$basalt" iceberg append db.sorted "$in/$f.parquet" $web; done
expect 1 "$basalt" iceberg compact db.sorted --strategy sort --sort 'nope' --all $web &&
  check "an unknown sort column is named" grep -q "nope" "$tmp/err"
expect 0 "$basalt" iceberg compact db.sorted --strategy sort --all $web
"$basalt" iceberg scan db.sorted --columns id --format csv $web | tail -n +2 >"$tmp/ids"
check "one file, rows in the table's order (id desc)" cmp -s "$tmp/ids" <(sort -rn "$tmp/ids")
expect 0 "$basalt" iceberg compact db.sorted --sort 'name nulls last, id' --all $web
"$basalt" iceberg scan db.sorted --columns name,id --format csv $web | tail -n +2 >"$tmp/names"
check "sorted by --sort: nulls last" test "$(tail -n 1 "$tmp/names" | cut -d, -f1)" = ""
check "sorted by --sort: names ascending" cmp -s <(grep -v '^,' "$tmp/names" | cut -d, -f1) <(grep -v '^,' "$tmp/names" | cut -d, -f1 | LC_ALL=C sort)
"$basalt" iceberg scan db.sorted --format csv $web >"$tmp/sorted.csv"
canon csv "$tmp/sorted.csv" >"$tmp/got"
canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet" >"$tmp/want"
check "sorting keeps every row" cmp -s "$tmp/want" "$tmp/got"

# ------------------------------------------------ appends racing a compaction
expect 0 "$basalt" iceberg create db.race --like "$in/a.parquet" \
  --property commit.retry.num-retries=50 --property commit.retry.min-wait-ms=5 $web
for k in 1 2 3 4 5 6; do expect 0 "$basalt" iceberg append db.race "$in/c.parquet" $web; done
( for k in 1 2 3; do "$basalt" iceberg append db.race "$in/c.parquet" $web || exit 1; done ) >"$tmp/ra.out" 2>&1 &
pa=$!
"$basalt" iceberg compact db.race $web >"$tmp/rc.out" 2>&1; rc=$?
wait $pa; ra=$?
check "appends and a compaction at once all succeed" test "$ra$rc" = 00
expect 0 "$basalt" iceberg count db.race $web && check "every appended row once" test "$(cat "$tmp/out")" = 4500
finish
