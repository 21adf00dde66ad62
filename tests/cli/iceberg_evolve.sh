#!/usr/bin/env bash
# basalt iceberg evolve / branch / tag: schema changes (add, rename, promote,
# drop, move) and partition evolution on a table with data, checked through
# describe and scans of the old files under the new schema; refused changes;
# branches written to, fast-forwarded and tags for time travel. Expected
# values are the inputs' known rows (tests/iceberg/make_write_input.mjs).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
t=db.schema
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'bucket(4, id)' $cat
expect 0 "$basalt" iceberg append $t "$in/a.parquet" $cat
ev() { expect "$1" "$basalt" iceberg evolve $t "${@:2}" $cat; }
desc() { "$basalt" iceberg describe $t $cat >"$tmp/desc"; }
row22() { "$basalt" iceberg scan $t --where 'id = 22' --format csv $cat "$@"; }

# ---------------------------------------------------------------- schema
ev 0 add-column region string
ev 0 add-column tags 'list<string>'
desc
check "new columns take ids from last-column-id on" grep -qE '^  7 region: optional string$' "$tmp/desc"
check "a nested type numbers its element after" grep -qE '^  8 tags: optional list$' "$tmp/desc"
check "the element gets the next id" grep -qE '^    9 element: optional string$' "$tmp/desc"
check "old rows read the new column as null" test "$(row22 --columns id,region | tail -n 1)" = "22,"
ev 0 rename-column name customer
check "a renamed column keeps its values (read by id)" \
  test "$(row22 --columns id,customer | tail -n 1)" = "22,name-22"
ev 0 update-column amount 'decimal(12, 2)'
desc
check "decimal widened" grep -qE '^  4 amount: optional decimal\(12,2\)$' "$tmp/desc"
check "old values read at the new precision" test "$(row22 --columns amount | tail -n 1)" = "8.14"
ev 1 update-column score int && check "double -> int refused" grep -q "not a type promotion" "$tmp/err"
ev 1 drop-column id && check "a partition source cannot be dropped" grep -q "source of the partition spec" "$tmp/err"
ev 1 add-column customer string && check "a taken name is refused" grep -q "already exists" "$tmp/err"
ev 1 rename-column nope x && check "an unknown column is named" grep -q "no column 'nope'" "$tmp/err"
ev 0 drop-column score
ev 0 move-column region first
desc
check "the dropped column is gone" bash -c "! grep -q ' score:' '$tmp/desc'"
check "moved first" test "$(grep -E '^  [0-9]+ [a-z_]+:' "$tmp/desc" | head -n 1 | awk '{print $2}')" = "region:"
check "one schema per change" grep -q "schema 6 (current; 7 schemas)" "$tmp/desc"
expect 0 "$basalt" iceberg scan $t --limit 1 --format csv $cat &&
  check "scans have the new column order" test "$(head -n 1 "$tmp/out")" = "region,id,ts,customer,amount,d,tags"

# ------------------------------------------------------------- partitions
# A second table keeps the inputs' column names, so more files append.
t=db.events
expect 0 "$basalt" iceberg create $t --like "$in/a.parquet" --partition 'bucket(4, id)' $cat
expect 0 "$basalt" iceberg append $t "$in/a.parquet" $cat
ev 0 add-partition-field 'month(ts)'
desc
check "kept fields keep their ids, the new one comes next" grep -qE '1001 ts_month: month\(2 ts\)' "$tmp/desc"
expect 0 "$basalt" iceberg append $t "$in/b.parquet" $cat
check "new files are laid out by the new spec" \
  bash -c "ls -d '$tmp'/wh/db/events/data/id_bucket=*/ts_month=2024-* >/dev/null"
ev 0 drop-partition-field id_bucket
desc
check "spec 2 is the default" grep -qE 'spec 2 \(default\)' "$tmp/desc"
ev 1 drop-partition-field nope && check "an unknown partition field" grep -q "no partition field 'nope'" "$tmp/err"
expect 0 "$basalt" iceberg count $t $cat && check "all rows across specs" test "$(cat "$tmp/out")" = 5000
expect 0 "$basalt" iceberg count $t --where "ts >= '2024-03-01T00:00:00'" $cat
march=$(cat "$tmp/out")
expect 0 "$basalt" iceberg files $t --where "ts >= '2024-03-01T00:00:00'" $cat &&
  check "files of other months are pruned" grep -qE 'skipped [1-9][0-9]* by (partition|metrics)' "$tmp/out"
# 26-minute steps from 2024-01-01: row i is in March from i = ceil(60 days / 26 min).
check "the March rows" test "$march" = $((5000 - (60 * 24 * 60 + 25) / 26))

# ------------------------------------------------------------- properties
ev 0 set-property owner=analytics
ev 0 set-property 'note=a "quoted" value'
desc
check "properties set" grep -qE 'owner += analytics' "$tmp/desc"
ev 0 remove-property owner
desc
check "property removed" bash -c "! grep -q 'owner' '$tmp/desc'"

# --------------------------------------------------------- branches, tags
first=$("$basalt" iceberg snapshots $t $cat | awk 'NR == 2 { print $1 }')
expect 0 "$basalt" iceberg tag $t create v1 --snapshot "$first" $cat
expect 0 "$basalt" iceberg count $t --ref v1 $cat && check "the tag reads the first snapshot" test "$(cat "$tmp/out")" = 3000
expect 0 "$basalt" iceberg branch $t create dev $cat
expect 0 "$basalt" iceberg append $t "$in/c.parquet" --branch dev $cat
expect 0 "$basalt" iceberg count $t $cat && check "main is untouched by a write to dev" test "$(cat "$tmp/out")" = 5000
expect 0 "$basalt" iceberg count $t --ref dev $cat && check "dev has the new rows" test "$(cat "$tmp/out")" = 5500
expect 1 "$basalt" iceberg branch $t create dev $cat && check "creating a branch twice" grep -q "already exists" "$tmp/err"
expect 0 "$basalt" iceberg branch $t fast-forward main dev $cat
expect 0 "$basalt" iceberg count $t $cat && check "main fast-forwarded to dev" test "$(cat "$tmp/out")" = 5500
expect 1 "$basalt" iceberg branch $t fast-forward v1 main $cat &&
  check "a tag is not fast-forwarded" grep -q "is a tag" "$tmp/err"
expect 0 "$basalt" iceberg branch $t create old --snapshot "$first" $cat
expect 0 "$basalt" iceberg append $t "$in/c.parquet" --branch old $cat
expect 1 "$basalt" iceberg branch $t fast-forward main old $cat &&
  check "no fast-forward to a branch that diverged" grep -q "not an ancestor" "$tmp/err"
expect 0 "$basalt" iceberg tag $t drop v1 $cat
expect 1 "$basalt" iceberg count $t --ref v1 $cat
expect 1 "$basalt" iceberg branch $t drop main $cat && check "main cannot be dropped" grep -q "cannot be dropped" "$tmp/err"
finish
