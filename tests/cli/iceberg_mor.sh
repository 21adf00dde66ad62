#!/usr/bin/env bash
# basalt iceberg delete --mode mor and basalt iceberg update: merge-on-read
# deletes as position-delete files (v2), deletion vectors in Puffin files
# (v3) and equality deletes, and row-level updates copy-on-write and
# merge-on-read. Expected rows come from DuckDB over the input files with
# the same condition in SQL, never from basalt. The v2 tables are also read
# whole by icebird (an independent reader applying position and equality
# deletes), and the v3 deletion vectors are decoded by
# tests/iceberg/check_deletes.py (python3-avro for the manifests, its own
# Puffin and Roaring decoders) and compared with DuckDB's row positions.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
py=/usr/bin/python3
wh=$tmp/wh
mkdir -p "$tmp/web"
if ! start_nginx "$tmp/web"; then
  check "nginx starts" false
  finish
fi
web="--catalog sqlite:$tmp/web/catalog.db --map $HTTP_ENDPOINT=$tmp/web"
ab=("$in/a.parquet" "$in/b.parquet")
q="'"

latest_metadata() { # TABLE-DIR: its newest metadata file
  ls "$1/metadata/"*.metadata.json | sort | tail -n 1
}
summary() { # TABLE-DIR KEY: the current snapshot's summary value ("" when absent)
  node -e '
    const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const s = m.snapshots.find((x) => x["snapshot-id"] === m["current-snapshot-id"]);
    console.log(s.summary[process.argv[2]] ?? "");' "$(latest_metadata "$1")" "$2"
}
expected_count() { # WHERE-SQL: input rows of a and b where it holds
  canon --where "$1" parquet "${ab[@]}" | wc -l
}
holds() { # TABLE CATALOG WHERE [SELECT]: our scan gives a+b's rows where WHERE (columns as SELECT)
  "$basalt" iceberg scan "$1" --format csv $2 >"$tmp/scan.csv"
  canon csv "$tmp/scan.csv" >"$tmp/got"
  canon --where "$3" --select "${4:-*}" parquet "${ab[@]}" >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got"
}
icebird_holds() { # NAME WHERE [SELECT]: icebird reads web table db.NAME as a+b's rows where WHERE
  local meta
  meta=$(basename "$(latest_metadata "$tmp/web/db/$1")")
  node "$here/iceberg/icebird_read.mjs" "$HTTP_ENDPOINT/db/$1" "$meta" >"$tmp/got" 2>"$tmp/icebird.err"
  canon --where "$2" --select "${3:-*}" parquet "${ab[@]}" >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got"
}
dvs_are() { # TABLE-DIR WHERE-SQL: the live DVs delete exactly the rows DuckDB finds in its data files
  "$py" "$here/iceberg/check_deletes.py" "$(latest_metadata "$1")" >"$tmp/deletes" 2>"$tmp/deletes.err" ||
    return 1
  grep '^dv ' "$tmp/deletes" | sed 's/^dv //' | LC_ALL=C sort >"$tmp/got"
  node "$here/iceberg/row_positions.mjs" "$2" $(find "$1/data" -name '*.parquet' | sort) |
    LC_ALL=C sort >"$tmp/want"
  cmp -s "$tmp/want" "$tmp/got"
}
data_files() { find "$1/data" -name '*.parquet' ! -name '*deletes*' | sort; }

# ------------------------------------------------ v2: position-delete files
t=db.p2
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'month(ts)' \
  --location "$HTTP_ENDPOINT/db/p2" $web
expect 0 "$basalt" iceberg append $t "${ab[@]}" $web
data_files "$tmp/web/db/p2" >"$tmp/files-before"
cond1="id < 100 OR name = 'name-5'"
keep1="NOT (id < 100 OR coalesce(name = 'name-5', false))"
expect 0 "$basalt" iceberg delete $t --mode mor --where "$cond1" $web &&
  check "one position-delete file per data file, nothing rewritten" \
    grep -q "deleted $(expected_count "$cond1") rows: 0 files removed, 0 written, 3 delete files" "$tmp/out"
data_files "$tmp/web/db/p2" >"$tmp/files-after"
check "the data files stay" cmp -s "$tmp/files-before" "$tmp/files-after"
check "our scan applies the deletes" holds $t "$web" "$keep1"
check "icebird applies them too" icebird_holds p2 "$keep1"
check "summary: added-position-delete-files 3" test "$(summary "$tmp/web/db/p2" added-position-delete-files)" = 3
check "summary: added-position-deletes counts the rows" \
  test "$(summary "$tmp/web/db/p2" added-position-deletes)" = "$(expected_count "$cond1")"
check "summary: total-delete-files 3" test "$(summary "$tmp/web/db/p2" total-delete-files)" = 3
check "summary: operation delete" test "$(summary "$tmp/web/db/p2" operation)" = delete
# A second delete adds files of its own; both sets apply.
expect 0 "$basalt" iceberg delete $t --mode mor --where 'id >= 4900' $web
check "two rounds of deletes apply" holds $t "$web" "$keep1 AND id < 4900"
check "icebird agrees" icebird_holds p2 "$keep1 AND id < 4900"
check "summary: total-position-deletes is both rounds" \
  test "$(summary "$tmp/web/db/p2" total-position-deletes)" = "$(expected_count "$cond1 OR id >= 4900")"
# A month whose live rows all match: its data file goes whole, with the
# position deletes that only it used.
expect 0 "$basalt" iceberg delete $t --mode mor --where "ts < '2024-02-01T00:00:00'" $web &&
  check "the January file is removed, no delete file written" \
    grep -q "1 files removed, 0 written, 0 delete files" "$tmp/out"
feb="ts >= epoch_us(TIMESTAMP '2024-02-01')"
check "January is gone" holds $t "$web" "$keep1 AND id < 4900 AND $feb"
check "icebird agrees" icebird_holds p2 "$keep1 AND id < 4900 AND $feb"
check "summary: removed-position-delete-files 1" \
  test "$(summary "$tmp/web/db/p2" removed-position-delete-files)" = 1
expect 0 "$basalt" iceberg delete $t --mode mor --where 'id < 0' $web &&
  check "no match, no snapshot" grep -q "nothing deleted" "$tmp/out"

# ------------------------------------------------ v3: deletion vectors
t=db.p3
d3=$wh/db/p3
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'month(ts)' \
  --format-version 3 $cat
expect 0 "$basalt" iceberg append $t "${ab[@]}" $cat
expect 0 "$basalt" iceberg delete $t --mode mor --where 'id < 100' $cat &&
  check "one DV: only January matches" grep -q "0 files removed, 0 written, 1 delete files" "$tmp/out"
check "summary: added-dvs 1" test "$(summary "$d3" added-dvs)" = 1
check "the DV holds the matching rows' positions" dvs_are "$d3" 'id < 100'
# The same files again: each new DV merges the old one, which is removed.
expect 0 "$basalt" iceberg delete $t --mode mor --where "name = 'name-5'" $cat &&
  check "three DVs, one per file" grep -q "3 delete files" "$tmp/out"
check "one live DV per data file, holding both deletes" dvs_are "$d3" "$cond1"
check "python reads three live DVs" grep -q "^files 3 position 3 equality 0" "$tmp/deletes"
check "summary: removed-dvs 1" test "$(summary "$d3" removed-dvs)" = 1
check "summary: total-position-deletes" \
  test "$(summary "$d3" total-position-deletes)" = "$(expected_count "$cond1")"
check "our scan applies the DVs" holds $t "$cat" "$keep1"
# A whole month goes with its DV.
expect 0 "$basalt" iceberg delete $t --mode mor --where "ts < '2024-02-01T00:00:00'" $cat &&
  check "January's file is removed" grep -q "1 files removed" "$tmp/out"
check "its DV went with it" dvs_are "$d3" "($cond1) AND ts >= TIMESTAMP '2024-02-01'"
check "two live DVs left" grep -q "^files 2 position 2 equality 0" "$tmp/deletes"
check "January is gone" holds $t "$cat" "$keep1 AND $feb"

# ------------------------------------------------ updates
# Merge-on-read on v3: the old rows are deleted by DV, the changed ones appended.
up="id >= 4000 AND id < 4010"
expect 0 "$basalt" iceberg update $t --set "name = 'changed'" --set 'score = NULL' \
  --where "$up" --mode mor $cat &&
  check "ten rows updated into one new file" grep -q "updated 10 rows: 0 files removed, 1 written" "$tmp/out"
check "the updated rows read changed" holds $t "$cat" "$keep1 AND $feb" \
  "id, ts, CASE WHEN $up THEN 'changed' ELSE name END AS name, amount, d, CASE WHEN $up THEN NULL ELSE score END AS score"
check "summary: operation overwrite" test "$(summary "$d3" operation)" = overwrite
# Copy-on-write on v2, read by icebird.
expect 0 "$basalt" iceberg create db.up --like "$in/a.parquet" --location "$HTTP_ENDPOINT/db/up" $web
expect 0 "$basalt" iceberg append db.up "${ab[@]}" $web
expect 0 "$basalt" iceberg update db.up --set 'amount = 1.5' --where 'id < 40' --mode cow $web &&
  check "copy-on-write rewrites the file" grep -q "updated 40 rows: 1 files removed, 1 written, 0 delete files" "$tmp/out"
sel="id, ts, name, CASE WHEN id < 40 THEN '1.50' ELSE amount END AS amount, d, score"
check "the rows read updated" holds db.up "$web" true "$sel"
check "icebird agrees" icebird_holds up true "$sel"
# Merge-on-read with position deletes (v2), read by icebird.
expect 0 "$basalt" iceberg update db.up --set "name = 'renamed'" --where "name = 'name-5'" --mode mor $web
sel2="id, ts, CASE WHEN name = 'name-5' THEN 'renamed' ELSE name END AS name, CASE WHEN id < 40 THEN '1.50' ELSE amount END AS amount, d, score"
check "merge-on-read update reads right" holds db.up "$web" true "$sel2"
check "icebird agrees" icebird_holds up true "$sel2"
# SET expressions, computed by the SQL engine and cast to the columns' types.
old_name="CASE WHEN name = 'name-5' THEN 'renamed' ELSE name END"
in_up="id >= 100 AND id < 140"
expect 0 "$basalt" iceberg update db.up --set 'score = score * 2 + 1' \
  --set "name = upper(name) || '!'" --where "$in_up" --mode mor $web &&
  check "expressions: 40 rows updated" grep -q "updated 40 rows" "$tmp/out"
sel3="id, ts, CASE WHEN $in_up THEN upper($old_name) || '!' ELSE $old_name END AS name, CASE WHEN id < 40 THEN '1.50' ELSE amount END AS amount, d, CASE WHEN $in_up THEN score * 2 + 1 ELSE score END AS score"
check "expression update reads right" holds db.up "$web" true "$sel3"
check "icebird agrees" icebird_holds up true "$sel3"
expect 1 "$basalt" iceberg update db.up --set 'score = nope + 1' --where 'id < 3' $web &&
  check "an unknown column in an expression is named" grep -q 'column "nope" not found' "$tmp/err"
expect 1 "$basalt" iceberg update db.up --set 'nope = score + 1' --where 'id < 3' $web &&
  check "an unknown SET column with an expression is named" grep -q "no column 'nope'" "$tmp/err"
check "failed updates change nothing" holds db.up "$web" true "$sel3"
expect 1 "$basalt" iceberg update db.up --set 'nope = 1' --where 'id < 3' $web &&
  check "an unknown column is named" grep -q "nope" "$tmp/err"
expect 1 "$basalt" iceberg update db.up --set "amount = 'abc'" --where 'id < 3' $web &&
  check "a value that does not convert is refused" grep -q "amount" "$tmp/err"
expect 2 "$basalt" iceberg update db.up --where 'id < 3' $web

# ------------------------------------------------ equality deletes
t=db.eq
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'month(ts)' \
  --location "$HTTP_ENDPOINT/db/eq" $web
expect 0 "$basalt" iceberg append $t "${ab[@]}" $web
cond3="id < 30 OR id IN (3500, 4500)"
expect 0 "$basalt" iceberg delete $t --mode mor --equality id --where "$cond3" $web &&
  check "one equality-delete file per partition touched" grep -q "2 delete files" "$tmp/out"
check "our scan applies them" holds $t "$web" "NOT ($cond3)"
check "icebird applies them" icebird_holds eq "NOT ($cond3)"
check "summary: added-equality-deletes" \
  test "$(summary "$tmp/web/db/eq" added-equality-deletes)" = "$(expected_count "$cond3")"
# Keyed by name: every older row of January named like row 40 goes, and
# only in January (equality deletes are scoped to their partition).
expect 0 "$basalt" iceberg delete $t --mode mor --equality name --where 'id = 40' $web
eqkeep="NOT ($cond3) AND NOT (coalesce(name = 'name-40', false) AND ts < epoch_us(TIMESTAMP '2024-02-01'))"
check "rows sharing the key in that partition go" holds $t "$web" "$eqkeep"
# (icebird 0.3.1 applies equality deletes to every partition, against the
# spec's scope rule, so it is no judge of this one.)
expect 2 "$basalt" iceberg delete $t --equality id --where 'id = 1' $web

# ------------------------------------------------ table default, v1, races
expect 0 "$basalt" iceberg create db.dflt --like "$in/a.parquet" \
  --property write.delete.mode=merge-on-read $cat
expect 0 "$basalt" iceberg append db.dflt "$in/a.parquet" $cat
expect 0 "$basalt" iceberg delete db.dflt --where 'id < 10' $cat &&
  check "write.delete.mode=merge-on-read is the default mode" grep -q "0 written, 1 delete files" "$tmp/out"
expect 0 "$basalt" iceberg create db.v1 --like "$in/a.parquet" --format-version 1 $cat
expect 0 "$basalt" iceberg append db.v1 "$in/a.parquet" $cat
expect 1 "$basalt" iceberg delete db.v1 --mode mor --where 'id < 10' $cat &&
  check "v1 tables refuse merge-on-read" grep -q "format version 2" "$tmp/err"

# Two merge-on-read deletes of the same file and an append at once: all
# land, and the file still has one DV holding both deletes.
expect 0 "$basalt" iceberg create db.race --like "$in/a.parquet" --format-version 3 \
  --property commit.retry.num-retries=20 --property commit.retry.min-wait-ms=5 $cat
expect 0 "$basalt" iceberg append db.race "$in/a.parquet" $cat
"$basalt" iceberg delete db.race --mode mor --where 'id < 1000' $cat >"$tmp/r1" 2>&1 &
p1=$!
"$basalt" iceberg delete db.race --mode mor --where 'id >= 2000 AND id < 3000' $cat >"$tmp/r2" 2>&1 &
p2=$!
"$basalt" iceberg append db.race "$in/b.parquet" $cat >"$tmp/r3" 2>&1 &
p3=$!
wait $p1; r1=$?
wait $p2; r2=$?
wait $p3; r3=$?
check "both deletes and the append succeed" test "$r1$r2$r3" = 000
expect 0 "$basalt" iceberg count db.race $cat &&
  check "every change took effect once" test "$(cat "$tmp/out")" = 3000
"$py" "$here/iceberg/check_deletes.py" "$(latest_metadata "$wh/db/race")" >"$tmp/deletes" 2>"$tmp/deletes.err"
check "one DV for the file with both deletes" \
  test "$(grep -c "^dv " "$tmp/deletes") $(grep '^files' "$tmp/deletes")" = "2000 files 1 position 1 equality 0"
finish
