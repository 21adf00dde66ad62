#!/usr/bin/env bash
# Pruning soundness: for every corpus table with data and a set of filters,
# the pruned scan (`scan --where`) must hold exactly the rows of the unpruned,
# unfiltered scan (`scan --no-prune`) filtered afterwards by an independent
# oracle (tests/iceberg/post_filter.py, Python over the JSON rows); the
# unpruned filtered scan and `count` must agree. The number of planned tasks
# is written down per filter, derived from the partition layout of each table
# (corpus/iceberg/*/EXPECTED.md) and, where a column's min/max rules a file
# out, from the file's values.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
corpus=$testdata/iceberg
post=$here/../iceberg/post_filter.py

# case TABLE TASKS WHERE PYTHON
case_() {
  local table=$1 tasks=$2 where=$3 py=$4
  "$basalt" iceberg scan "$table" --no-prune --format json >"$tmp/all.json" 2>"$tmp/err" ||
    { check "$table: unpruned scan" false; return; }
  python3 "$post" "$py" <"$tmp/all.json" | sort >"$tmp/want.json"
  expect 0 "$basalt" iceberg scan "$table" --where "$where" --format json || return
  sort "$tmp/out" >"$tmp/got.json"
  check "$(basename "$table") [$where]: pruned scan = unpruned scan filtered afterwards ($(wc -l <"$tmp/want.json") rows)" \
    cmp -s "$tmp/got.json" "$tmp/want.json"
  expect 0 "$basalt" iceberg scan "$table" --where "$where" --no-prune --format json --threads 2 || return
  sort "$tmp/out" >"$tmp/got2.json"
  check "$(basename "$table") [$where]: unpruned filtered scan agrees" cmp -s "$tmp/got2.json" "$tmp/want.json"
  expect 0 "$basalt" iceberg count "$table" --where "$where" &&
    check "$(basename "$table") [$where]: count" [ "$(cat "$tmp/out")" = "$(wc -l <"$tmp/want.json")" ]
  expect 0 "$basalt" iceberg files "$table" --where "$where" &&
    check "$(basename "$table") [$where]: $tasks tasks planned ($(tail -1 "$tmp/out"))" grep -q "^# tasks $tasks," "$tmp/out"
}

# glaredb lineitem_partitioned: identity(l_shipmode), one file per mode:
# AIR FOB MAIL RAIL "REG AIR" SHIP TRUCK; l_orderkey >= 1 in every file.
for v in 1 2; do
  T=$corpus/glaredb/iceberg/tables-v$v/lineitem_partitioned
  case_ $T 1 "l_shipmode = 'AIR'" 'r["l_shipmode"] == "AIR"'
  case_ $T 2 "l_shipmode IN ('AIR', 'REG AIR')" 'r["l_shipmode"] in ("AIR", "REG AIR")'
  case_ $T 2 "l_shipmode STARTS WITH 'R'" 'nn(r["l_shipmode"]) and r["l_shipmode"].startswith("R")'
  case_ $T 0 "l_shipmode IS NULL" 'r["l_shipmode"] is None'
  case_ $T 3 "l_shipmode > 'RAIL'" 'nn(r["l_shipmode"]) and r["l_shipmode"] > "RAIL"'
  case_ $T 5 "l_shipmode >= 'MAIL' AND l_quantity < 10" 'nn(r["l_shipmode"]) and r["l_shipmode"] >= "MAIL" and nn(r["l_quantity"]) and dec(r["l_quantity"]) < 10'
  case_ $T 6 "l_shipmode NOT IN ('AIR')" 'nn(r["l_shipmode"]) and r["l_shipmode"] != "AIR"'
  case_ $T 5 "l_shipmode NOT STARTS WITH 'R'" 'nn(r["l_shipmode"]) and not r["l_shipmode"].startswith("R")'
  case_ $T 7 "l_shipmode = 'AIR' OR l_shipdate < '1992-06-01'" 'r["l_shipmode"] == "AIR" or (nn(r["l_shipdate"]) and r["l_shipdate"] < "1992-06-01")'
  case_ $T 0 "l_orderkey < 0" 'nn(r["l_orderkey"]) and r["l_orderkey"] < 0'
done

# glaredb lineitem_simple: one unpartitioned file.
T=$corpus/glaredb/iceberg/tables-v2/lineitem_simple
case_ $T 1 "l_quantity = 1" 'nn(r["l_quantity"]) and dec(r["l_quantity"]) == 1'
case_ $T 1 "l_shipdate >= '1995-01-01' AND l_shipdate < '1995-02-01'" 'nn(r["l_shipdate"]) and "1995-01-01" <= r["l_shipdate"] < "1995-02-01"'
case_ $T 1 "l_returnflag IN ('R', 'A')" 'r["l_returnflag"] in ("R", "A")'
case_ $T 0 "l_comment IS NULL" 'r["l_comment"] is None'
case_ $T 1 "l_shipinstruct STARTS WITH 'DELIVER'" 'nn(r["l_shipinstruct"]) and r["l_shipinstruct"].startswith("DELIVER")'
case_ $T 1 "l_discount > 0.05 AND NOT l_linestatus = 'F'" 'nn(r["l_discount"]) and dec(r["l_discount"]) > 0.05 and nn(r["l_linestatus"]) and r["l_linestatus"] != "F"'

# icebird rename_column (v3, column renamed date -> event_date): bucket[4](id),
# identity(date): files id_bucket=0/2022-01-01 (ids 1, 2), id_bucket=2/2022-01-02
# (id 4), id_bucket=3/null (id 3). name: 'Flopsy 🐇' only in the first file,
# whose name bounds rule the others out for STARTS WITH 'Flo'.
T=$corpus/icebird/hyperparam-iceberg/spark/rename_column
case_ $T 1 "id = 1" 'r["id"] == 1'
case_ $T 1 "id = 4" 'r["id"] == 4'
case_ $T 2 "id IN (1, 3)" 'r["id"] in (1, 3)'
case_ $T 1 "event_date = '2022-01-01'" 'r["event_date"] == "2022-01-01"'
case_ $T 1 "event_date IS NULL" 'r["event_date"] is None'
case_ $T 2 "event_date IS NOT NULL" 'r["event_date"] is not None'
case_ $T 1 "event_date > '2022-01-01'" 'nn(r["event_date"]) and r["event_date"] > "2022-01-01"'
case_ $T 1 "name STARTS WITH 'Flo'" 'nn(r["name"]) and r["name"].startswith("Flo")'
case_ $T 1 "id > 1 AND event_date = '2022-01-01'" 'r["id"] > 1 and r["event_date"] == "2022-01-01"'

# polars: day(ts), files ts_day=2023-03-01 (ids 1, 2) and 2023-03-02 (id 3);
# id bounds [1, 2] and [3, 3] let the metrics drop one file for id = 2.
T=$corpus/polars/iceberg-table/metadata/v2.metadata.json
case_ $T 1 "ts >= '2023-03-02'" 'nn(r["ts"]) and r["ts"] >= "2023-03-02"'
case_ $T 1 "ts < '2023-03-01T19:00'" 'nn(r["ts"]) and r["ts"] < "2023-03-01T19:00"'
case_ $T 0 "ts IS NULL" 'r["ts"] is None'
case_ $T 1 "id = 2" 'r["id"] == 2'
case_ $T 2 "id IN (1, 3)" 'r["id"] in (1, 3)'
case_ $T 1 "str STARTS WITH '3'" 'r["str"].startswith("3")'
case_ $T 1 "ts > '2023-03-01' AND id < 3" 'nn(r["ts"]) and r["ts"] > "2023-03-01" and r["id"] < 3'

# icebird java/bunnies v5: unpartitioned, two data files (the initial one and
# the New Zealand update), a position and an equality delete file.
T=$corpus/icebird/hyperparam-iceberg/java/bunnies
case_ $T 2 '"Popularity Rank" <= 3' 'nn(r["Popularity Rank"]) and r["Popularity Rank"] <= 3'
case_ $T 2 "\"Breed Name\" STARTS WITH 'New'" 'nn(r["Breed Name"]) and r["Breed Name"].startswith("New")'
case_ $T 2 '__happy__ IS NULL' 'r["__happy__"] is None'
case_ $T 2 "\"Breed Name\" IN ('Dutch', 'Polish', 'New Zealand')" 'r["Breed Name"] in ("Dutch", "Polish", "New Zealand")'
case_ $T 2 "Lifespan > 8 AND \"Ear Type\" = 'Lop'" 'nn(r["Lifespan"]) and r["Lifespan"] > 8 and r["Ear Type"] == "Lop"'
case_ $T 2 '"Average Weight" >= 2.5' 'nn(r["Average Weight"]) and r["Average Weight"] >= 2.5'
case_ $T 2 '__happy__ = true' 'r["__happy__"] is True'

# icebird spark/bunnies v5: one data file (20 rows, breed_name_length never null).
T=$corpus/icebird/hyperparam-iceberg/spark/bunnies
case_ $T 1 '"Popularity Rank" <= 3' 'nn(r["Popularity Rank"]) and r["Popularity Rank"] <= 3'
case_ $T 1 "\"Breed Name\" STARTS WITH 'New'" 'nn(r["Breed Name"]) and r["Breed Name"].startswith("New")'
case_ $T 0 'breed_name_length IS NULL' 'r["breed_name_length"] is None'
case_ $T 1 "\"Breed Name\" IN ('Dutch', 'Polish')" 'r["Breed Name"] in ("Dutch", "Polish")'
case_ $T 1 "Lifespan > 8 AND \"Ear Type\" = 'Lop'" 'nn(r["Lifespan"]) and r["Lifespan"] > 8 and r["Ear Type"] == "Lop"'
case_ $T 1 'breed_name_length >= 10' 'nn(r["breed_name_length"]) and r["breed_name_length"] >= 10'

# athena example and glaredb cities: one small file each.
T=$corpus/icebird/hyperparam-iceberg/athena/example
case_ $T 1 "id = 1" 'r["id"] == 1'
case_ $T 1 "name STARTS WITH 'B'" 'nn(r["name"]) and r["name"].startswith("B")'
case_ $T 1 "id IN (1, 2)" 'r["id"] in (1, 2)'
case_ $T 0 "name IS NULL" 'r["name"] is None'
case_ $T 0 "id > 2" 'nn(r["id"]) and r["id"] > 2'
case_ $T 1 "id >= 1 AND name = 'Bob'" 'nn(r["id"]) and r["id"] >= 1 and r["name"] == "Bob"'
finish
