#!/usr/bin/env bash
# basalt iceberg create / append: tables made from a file's schema or schema
# text, partitioned, appended to from Parquet files (casts, missing optional
# columns), read back by our scan, by DuckDB (the data files) and by icebird
# (the whole table, over HTTP), at every snapshot; refused input leaves no
# trace; four processes appending at once lose nothing. Expected rows come
# from DuckDB reading the input files, never from basalt.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
py=/usr/bin/python3

# --------------------------------------------------------------- create
expect 0 "$basalt" iceberg create db.events --like "$in/a.parquet" \
  --partition 'month(ts), bucket(4, id)' --sort 'ts desc' $cat &&
  check "create names the location" grep -q "created db.events at $tmp/wh/db/events" "$tmp/out"
expect 0 "$basalt" iceberg describe db.events $cat
check "the file's columns, with fresh ids" grep -qE '^  1 id: optional long$' "$tmp/out"
check "decimal and date columns" grep -qE '^  4 amount: optional decimal\(10,2\)$' "$tmp/out"
check "month partition field" grep -qE '1000 ts_month: month\(2 ts\)' "$tmp/out"
check "bucket partition field" grep -qE '1001 id_bucket: bucket\[4\]\(1 id\)' "$tmp/out"
check "sort order 1" grep -qE 'order 1 \(default\)' "$tmp/out"
expect 1 "$basalt" iceberg create db.events --like "$in/a.parquet" $cat &&
  check "creating it twice is a conflict" grep -q "already exists" "$tmp/err"
expect 1 "$basalt" iceberg create db.bad --schema 'id long' --partition 'month(id)' $cat &&
  check "a transform that does not apply is refused" grep -q "month cannot apply to 'id'" "$tmp/err"
expect 0 "$basalt" iceberg create db.named --schema 'id long, ts timestamp' \
  --partition 'month(ts) AS pickup_month, id as id' $cat
expect 0 "$basalt" iceberg describe db.named $cat
check "AS names a partition field" grep -qE '1000 pickup_month: month\(2 ts\)' "$tmp/out"
check "identity may keep its column's name" grep -qE '1001 id: identity\(1 id\)' "$tmp/out"
expect 1 "$basalt" iceberg create db.bad --schema 'id long, ts timestamp' --partition 'month(ts) AS id' $cat &&
  check "a partition name that is another column is refused" grep -q "the name 'id' is a column" "$tmp/err"
expect 1 "$basalt" iceberg create db.bad --schema 'id lng' $cat &&
  check "bad schema text names the place" grep -q "unknown type 'lng'" "$tmp/err"

# --------------------------------------------------------------- append
expect 0 "$basalt" iceberg append db.events "$in/a.parquet" $cat &&
  check "first append: 3000 rows" grep -q "appended 3000 rows" "$tmp/out"
expect 0 "$basalt" iceberg append db.events "$in/b.parquet" "$in/c.parquet" $cat &&
  check "second append: 2500 rows (an int id cast to long, no score column)" \
    grep -q "appended 2500 rows" "$tmp/out"
expect 0 "$basalt" iceberg count db.events $cat && check "count" test "$(cat "$tmp/out")" = 5500

canon parquet "$in/a.parquet" "$in/b.parquet" "$in/c.parquet" >"$tmp/want-all"
canon parquet "$in/a.parquet" >"$tmp/want-a"
check "DuckDB reads the inputs" test "$(wc -l <"$tmp/want-all")" = 5500
expect 0 "$basalt" iceberg scan db.events --format csv $cat && cp "$tmp/out" "$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
check "our scan gives the input rows" cmp -s "$tmp/want-all" "$tmp/got"
canon glob "$tmp/wh/db/events/data/**/*.parquet" >"$tmp/got"
check "DuckDB reads the data files: the input rows" cmp -s "$tmp/want-all" "$tmp/got"
first=$($py -c '
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
loc = db.execute("SELECT metadata_location FROM iceberg_tables WHERE table_name = ?", ("events",)).fetchone()[0]
m = json.load(open(loc))
snaps = sorted(m["snapshots"], key=lambda s: s["sequence-number"])
print(snaps[0]["snapshot-id"])
' "$tmp/wh/catalog.db")
expect 0 "$basalt" iceberg scan db.events --snapshot "$first" --format csv $cat && cp "$tmp/out" "$tmp/scan1.csv"
canon csv "$tmp/scan1.csv" >"$tmp/got"
check "the first snapshot still reads as the first file" cmp -s "$tmp/want-a" "$tmp/got"
# Partition values and metrics prune: one month, one bucket, one file.
expect 0 "$basalt" iceberg files db.events --where "ts >= '2024-03-15T00:00:00' AND id = 4000" $cat &&
  check "pruning by partition and metrics" grep -q '^# tasks 1,' "$tmp/out"
# Manifests and the snapshot, read with python3's json module.
$py - "$tmp/wh/catalog.db" >"$tmp/meta" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
loc, prev = db.execute("SELECT metadata_location, previous_metadata_location FROM iceberg_tables WHERE table_name = 'events'").fetchone()
m = json.load(open(loc))
cur = [s for s in m["snapshots"] if s["snapshot-id"] == m["current-snapshot-id"]][0]
print("seq", cur["sequence-number"], m["last-sequence-number"])
print("summary", cur["summary"]["operation"], cur["summary"]["added-records"], cur["summary"]["total-records"], cur["summary"]["total-data-files"])
print("log", len(m["metadata-log"]), m["metadata-log"][-1]["metadata-file"] == prev)
print("refs", m["refs"]["main"]["snapshot-id"] == cur["snapshot-id"])
PY
check "sequence numbers" grep -qx "seq 2 2" "$tmp/meta"
check "summary as Java writes it" grep -qE '^summary append 2500 5500 [0-9]+$' "$tmp/meta"
check "the metadata log names the previous file" grep -qx "log 2 True" "$tmp/meta"
check "main points at the current snapshot" grep -qx "refs True" "$tmp/meta"

# ------------------------------------------------ refused input, no trace
files_before=$(find "$tmp/wh/db/events" -type f | wc -l)
expect 1 "$basalt" iceberg append db.events "$in/a.parquet" "$in/extra.parquet" $cat &&
  check "a column the table lacks is named" grep -q "column 'bogus' is not in the table" "$tmp/err"
check "the failed append left no file behind" test "$(find "$tmp/wh/db/events" -type f | wc -l)" = "$files_before"
expect 0 "$basalt" iceberg count db.events $cat && check "and no rows" test "$(cat "$tmp/out")" = 5500

# ------------------------------------------ schema text, format v3 lineage
expect 0 "$basalt" iceberg create db.v3 --format-version 3 \
  --schema 'id long not null, ts timestamp, name string, amount decimal(10,2), d date, score double' $cat
expect 0 "$basalt" iceberg append db.v3 "$in/a.parquet" $cat
expect 0 "$basalt" iceberg append db.v3 "$in/b.parquet" $cat
lineage=$($py -c '
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
loc = db.execute("SELECT metadata_location FROM iceberg_tables WHERE table_name = ?", ("v3",)).fetchone()[0]
m = json.load(open(loc))
snaps = sorted(m["snapshots"], key=lambda s: s["sequence-number"])
print(m["format-version"], m["next-row-id"], [(s["first-row-id"], s["added-rows"]) for s in snaps])
' "$tmp/wh/catalog.db")
check "v3 row lineage: ids 0..2999 then 3000..4999" test "$lineage" = "3 5000 [(0, 3000), (3000, 2000)]"

# ------------------------------------------------ concurrent appends
expect 0 "$basalt" iceberg create db.conc --like "$in/b.parquet" --partition 'bucket(2, id)' \
  --property commit.retry.num-retries=100 --property commit.retry.min-wait-ms=5 \
  --property commit.retry.max-wait-ms=200 $cat
pids=()
for w in 1 2 3 4; do
  ( for k in 1 2 3; do "$basalt" iceberg append db.conc "$in/b.parquet" --threads 1 $cat || exit 1; done ) \
    >"$tmp/conc-$w.out" 2>"$tmp/conc-$w.err" &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check "four processes x three appends all succeed" test "$failed" = 0
expect 0 "$basalt" iceberg count db.conc $cat && check "every appended row once" test "$(cat "$tmp/out")" = 24000
expect 0 "$basalt" iceberg snapshots db.conc $cat &&
  check "twelve snapshots" test "$(grep -cE '^ *[0-9]+ ' "$tmp/out")" = 12

# ------------------------------------------------ sorted writes
# A table with a sort order gets its rows in that order in each data file
# (DuckDB checks every row's position against ORDER BY); --unsorted keeps
# the input order, which the same check must catch.
out_of_order() { node "$here/iceberg/sorted_check.mjs" 'name NULLS LAST, id DESC' "$@" | awk '{ s += $2 } END { print s + 0 }'; }
expect 0 "$basalt" iceberg create db.sorted --like "$in/a.parquet" --partition 'month(ts)' \
  --sort 'name nulls last, id desc' $cat
expect 0 "$basalt" iceberg append db.sorted "$in/a.parquet" "$in/b.parquet" $cat
check "every data file is in the table's sort order" \
  test "$(out_of_order $(find "$tmp/wh/db/sorted/data" -name '*.parquet'))" = 0
expect 0 "$basalt" iceberg create db.unsorted --like "$in/a.parquet" --sort 'name nulls last, id desc' $cat
expect 0 "$basalt" iceberg append db.unsorted "$in/a.parquet" --unsorted $cat
check "--unsorted keeps the input order (the check sees it)" \
  test "$(out_of_order $(find "$tmp/wh/db/unsorted/data" -name '*.parquet'))" -gt 0
"$basalt" iceberg scan db.sorted --format csv $cat >"$tmp/scan.csv"
canon csv "$tmp/scan.csv" >"$tmp/got"
canon parquet "$in/a.parquet" "$in/b.parquet" >"$tmp/want"
check "the sorted table holds the input rows" cmp -s "$tmp/want" "$tmp/got"

# ------------------------------------------------ manifest merging
# With commit.manifest.min-count-to-merge=3 the third manifest of a spec
# triggers a merge into one; merged entries keep their sequence numbers,
# so a merge-on-read delete before later merges still applies to exactly
# the rows it named.
expect 0 "$basalt" iceberg create db.merge --like "$in/a.parquet" \
  --property commit.manifest.min-count-to-merge=3 $cat
manifests_are() { "$basalt" iceberg files db.merge $cat | tail -n 1 | grep -q "manifests $1 "; }
for k in 1 2 3; do expect 0 "$basalt" iceberg append db.merge "$in/c.parquet" $cat; done
check "three data manifests merged into one" manifests_are 1
expect 0 "$basalt" iceberg delete db.merge --mode mor --where 'id < 5100' $cat
for k in 1 2 3; do expect 0 "$basalt" iceberg append db.merge "$in/c.parquet" $cat; done
c_all=$(canon parquet "$in/c.parquet" | wc -l)
c_kept=$(canon --where 'id >= 5100' parquet "$in/c.parquet" | wc -l)
expect 0 "$basalt" iceberg count db.merge $cat &&
  check "merged manifests keep the deletes applying to the old rows only" \
    test "$(cat "$tmp/out")" = $((3 * c_kept + 3 * c_all))
merge_meta=$(ls "$tmp/wh/db/merge/metadata/"*.metadata.json | sort | tail -n 1)
"$py" "$here/iceberg/check_deletes.py" "$merge_meta" >"$tmp/merge-deletes" 2>&1
check "python3-avro reads the merged manifests" grep -q '^files 3 position 3' "$tmp/merge-deletes"

# ------------------------------------------------ icebird over HTTP
mkdir -p "$tmp/web"
if start_nginx "$tmp/web"; then
  web="--catalog sqlite:$tmp/web/catalog.db --map $HTTP_ENDPOINT=$tmp/web"
  expect 0 "$basalt" iceberg create db.web --like "$in/a.parquet" --partition 'day(d)' \
    --location "$HTTP_ENDPOINT/db/web" $web
  expect 0 "$basalt" iceberg append db.web "$in/a.parquet" "$in/c.parquet" $web
  meta=$(ls "$tmp/web/db/web/metadata/" | grep '^00001-')
  node "$here/iceberg/icebird_read.mjs" "$HTTP_ENDPOINT/db/web" "$meta" >"$tmp/got" 2>"$tmp/icebird.err"
  canon parquet "$in/a.parquet" "$in/c.parquet" >"$tmp/want"
  check "icebird reads the whole table: the input rows" cmp -s "$tmp/want" "$tmp/got"
else
  check "nginx starts" false
fi
finish
