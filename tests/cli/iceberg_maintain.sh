#!/usr/bin/env bash
# basalt iceberg remove-orphans, rewrite-manifests, cherry-pick: orphans
# older than the cut-off go and nothing reachable does; manifests are
# regrouped with the rows unchanged; an append on a branch is picked onto
# main (fast-forward, or a new snapshot naming its source) and never
# twice. Expected rows: DuckDB over the input files; metadata read with
# python3's json and avro modules, never with basalt.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
py=/usr/bin/python3
t=db.events
dir=$tmp/wh/db/events
rows_are() { # WHERE-SQL FILES...: the table's rows are those of the files where SQL holds
  local where=$1; shift
  "$basalt" iceberg scan $t --format csv $cat >"$tmp/scan.csv"
  canon csv "$tmp/scan.csv" >"$tmp/got"
  canon --where "$where" parquet "$@" >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got"
}
current() { # KEY: a value of the latest metadata file's current snapshot (summary keys too;
  # latest by name, NNNNN-uuid: the orphan tests make every mtime the same)
  $py -c '
import json, os, sys
d = sys.argv[1]
f = os.path.join(d, max(n for n in os.listdir(d) if n.endswith(".metadata.json")))
m = json.load(open(f))
s = [s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]][0]
print(s.get(sys.argv[2], s["summary"].get(sys.argv[2], "-")))' "$dir/metadata" "$1"
}
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'bucket(4, id)' $cat
for f in a b c; do expect 0 "$basalt" iceberg append $t "$in/$f.parquet" $cat; done
expect 0 "$basalt" iceberg delete $t --where 'id < 10' $cat

# ------------------------------------------------ remove-orphans
reachable=$(find "$dir" -type f | sort)
echo junk >"$dir/data/old-orphan.parquet"
mkdir -p "$dir/data/id_bucket=9"
echo junk >"$dir/data/id_bucket=9/nested-orphan.parquet"
echo junk >"$dir/metadata/old-orphan-m0.avro"
touch -d '10 days ago' "$dir/data/old-orphan.parquet" "$dir/data/id_bucket=9/nested-orphan.parquet" \
  "$dir/metadata/old-orphan-m0.avro"
echo junk >"$dir/data/young-orphan.parquet"
# Every reachable file made old too: only reachability may keep them.
find "$dir" -type f ! -name 'young-*' -exec touch -d '10 days ago' {} +
expect 0 "$basalt" iceberg remove-orphans $t --dry-run --list $cat &&
  check "a dry run finds the three old orphans" grep -q "dry run: $t: .* 3 orphans to delete, 1 too young kept" "$tmp/out"
check "and deletes nothing" test -f "$dir/data/old-orphan.parquet"
check "it lists them" test "$(grep -c 'orphan' "$tmp/out")" = 4
expect 0 "$basalt" iceberg remove-orphans $t $cat &&
  check "three orphans deleted" grep -q "3 orphans deleted, 1 too young kept" "$tmp/out"
check "the old orphans are gone" test ! -e "$dir/data/old-orphan.parquet" -a ! -e "$dir/data/id_bucket=9/nested-orphan.parquet" -a ! -e "$dir/metadata/old-orphan-m0.avro"
check "the young orphan is kept" test -f "$dir/data/young-orphan.parquet"
check "every reachable file is kept" test "$(echo "$reachable" | while read -r f; do test -f "$f" && echo y; done | wc -l)" = "$(echo "$reachable" | wc -l)"
expect 0 "$basalt" iceberg remove-orphans $t --older-than "$(date -d '1 hour' +%s%3N)" $cat &&
  check "a later cut-off takes the young one" grep -q "1 orphans deleted" "$tmp/out"
check "earlier snapshots' files too: every snapshot still reads" \
  bash -c "for s in \$('$basalt' iceberg snapshots $t $cat | awk '\$1 ~ /^[0-9]+\$/ { print \$1 }'); do '$basalt' iceberg count $t --snapshot \$s $cat >/dev/null || exit 1; done"
check "the table reads the same rows" rows_are "id >= 10" "$in/a.parquet" "$in/b.parquet" "$in/c.parquet"

# ------------------------------------------------ rewrite-manifests
list_manifests() { # the current snapshot's manifests: path|content|added|existing per line
  $py -c '
import sys, avro.datafile, avro.io, warnings
warnings.simplefilter("ignore")
for e in avro.datafile.DataFileReader(open(sys.argv[1], "rb"), avro.io.DatumReader()):
    print(e["manifest_path"], e["content"], e["added_files_count"], e["existing_files_count"], sep="|")' "$(current manifest-list)"
}
before=$(list_manifests | grep -c '|0|')
check "several data manifests before" test "$before" -gt 2
live_before=$("$basalt" iceberg files $t $cat | grep -c '^/')
expect 0 "$basalt" iceberg rewrite-manifests $t $cat &&
  check "rewrite-manifests reports" grep -q "$before data manifests rewritten into 1" "$tmp/out"
check "one data manifest now" test "$(list_manifests | grep -c '|0|')" = 1
check "its entries are EXISTING" test "$(list_manifests | cut -d'|' -f3,4)" = "0|$live_before"
check "summary: operation replace" test "$(current operation)" = replace
check "summary: manifests-replaced" test "$(current manifests-replaced)" = "$before"
check "summary: manifests-created" test "$(current manifests-created)" = 1
check "summary: entries-processed" test "$(current entries-processed)" = "$live_before"
check "summary: total-records carried" test "$(current total-records)" = 5490
check "rows unchanged" rows_are "id >= 10" "$in/a.parquet" "$in/b.parquet" "$in/c.parquet"
expect 0 "$basalt" iceberg rewrite-manifests $t --target-size 1 $cat &&
  check "a tiny target: a manifest an entry" grep -q "rewritten into $live_before " "$tmp/out"
check "rows unchanged again" rows_are "id >= 10" "$in/a.parquet" "$in/b.parquet" "$in/c.parquet"

# ------------------------------------------------ cherry-pick
expect 0 "$basalt" iceberg create db.cp --like "$in/a.parquet" $cat
dir=$tmp/wh/db/cp
t=db.cp
expect 0 "$basalt" iceberg append $t "$in/a.parquet" $cat
expect 0 "$basalt" iceberg branch $t create side $cat
expect 0 "$basalt" iceberg append $t "$in/b.parquet" --branch side $cat
side1=$(sed -nE 's/.*snapshot ([0-9]+).*/\1/p' "$tmp/out")
expect 0 "$basalt" iceberg cherry-pick $t "$side1" $cat &&
  check "main at side's parent: fast-forward" grep -q "main fast-forwarded to snapshot $side1" "$tmp/out"
check "main's head is the picked snapshot" test "$(current snapshot-id)" = "$side1"
expect 1 "$basalt" iceberg cherry-pick $t "$side1" $cat &&
  check "an ancestor is refused" grep -q "already an ancestor" "$tmp/err"
expect 0 "$basalt" iceberg append $t "$in/c.parquet" --branch side $cat
side2=$(sed -nE 's/.*snapshot ([0-9]+).*/\1/p' "$tmp/out")
expect 0 "$basalt" iceberg append $t "$in/a.parquet" $cat
expect 0 "$basalt" iceberg cherry-pick $t "$side2" $cat &&
  check "main moved on: a new snapshot" grep -q "picked snapshot $side2 onto main: 1 files" "$tmp/out"
check "summary: source-snapshot-id" test "$(current source-snapshot-id)" = "$side2"
check "summary: operation append" test "$(current operation)" = append
check "summary: added-records" test "$(current added-records)" = 500
check "main holds a, b, a and c" rows_are true "$in/a.parquet" "$in/b.parquet" "$in/a.parquet" "$in/c.parquet"
expect 1 "$basalt" iceberg cherry-pick $t "$side2" $cat &&
  check "a snapshot picked once is refused" grep -q "already picked" "$tmp/err"
expect 1 "$basalt" iceberg cherry-pick $t 12345 $cat && check "an unknown snapshot" grep -q "not found" "$tmp/err"
finish
