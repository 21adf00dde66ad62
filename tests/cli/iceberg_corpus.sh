#!/usr/bin/env bash
# basalt iceberg count/scan/files over every table of the Iceberg corpus, at
# every metadata version: row counts, rows and values as the corpus's
# EXPECTED.md files give them (transcribed from the upstream projects' own
# tests and snapshot summaries), time travel, and the glaredb lineitem
# tables against DuckDB reading the same Parquet data files.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
corpus=$testdata/iceberg
I=$corpus/icebird/hyperparam-iceberg
G=$corpus/glaredb/iceberg

# ------------------------------------------------------------------ counts
# Rows after deletes, per table and metadata file (EXPECTED.md: icebird
# bunnies v4 = 21 - 6 position deletes, v5 = 15 with the equality delete
# and the new file; spark bunnies v3.. = 20; tables without a snapshot 0).
declare -A want=(
  [icebird/hyperparam-iceberg/java/bunnies/metadata/v1.metadata.json]=0
  [icebird/hyperparam-iceberg/java/bunnies/metadata/v2.metadata.json]=21
  [icebird/hyperparam-iceberg/java/bunnies/metadata/v3.metadata.json]=21
  [icebird/hyperparam-iceberg/java/bunnies/metadata/v4.metadata.json]=15
  [icebird/hyperparam-iceberg/java/bunnies/metadata/v5.metadata.json]=15
  [icebird/hyperparam-iceberg/spark/bunnies/metadata/v1.metadata.json]=21
  [icebird/hyperparam-iceberg/spark/bunnies/metadata/v2.metadata.json]=21
  [icebird/hyperparam-iceberg/spark/bunnies/metadata/v3.metadata.json]=20
  [icebird/hyperparam-iceberg/spark/bunnies/metadata/v4.metadata.json]=20
  [icebird/hyperparam-iceberg/spark/bunnies/metadata/v5.metadata.json]=20
  [icebird/hyperparam-iceberg/spark/rename_column/metadata/v1.metadata.json]=0
  [icebird/hyperparam-iceberg/spark/rename_column/metadata/v2.metadata.json]=4
  [icebird/hyperparam-iceberg/spark/rename_column/metadata/v3.metadata.json]=4
  [icebird/hyperparam-iceberg/athena/example/metadata/00000-eedf51e6-8c09-463b-8850-844ee6ec1de0.metadata.json]=0
  [icebird/hyperparam-iceberg/athena/example/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json]=2
  [glaredb/iceberg/wh/default.db/cities/metadata/00000-46e40e13-1a4e-471f-8c1c-de0d7017f33f.metadata.json]=0
  [glaredb/iceberg/wh/default.db/cities/metadata/00001-278cfebe-cfd4-4475-b30f-1b8ba1ae8eee.metadata.json]=4
  [glaredb/iceberg/tables-v1/lineitem_partitioned/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v1/lineitem_simple/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v1/lineitem_versioned/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v1/lineitem_versioned/metadata/v2.metadata.json]=2000
  [glaredb/iceberg/tables-v2/lineitem_partitioned/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v2/lineitem_simple/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v2/lineitem_versioned/metadata/v1.metadata.json]=1000
  [glaredb/iceberg/tables-v2/lineitem_versioned/metadata/v2.metadata.json]=2000
  [polars/iceberg-table/metadata/v2.metadata.json]=3
)

rows=0
while IFS=$'\t' read -r dir meta _fv _loc _specs _schemas _snaps _ops _cur _live pos eq dv before _rest; do
  [ "$dir" = table_dir ] && continue
  key=$dir/$meta
  rows=$((rows + 1))
  if [ -z "${want[$key]+x}" ]; then
    check "$key has an expected count in this test" false
    continue
  fi
  n=${want[$key]}
  # without deletes the count is the data rows of TABLES.tsv
  if [ "${pos:-0}${eq:-0}${dv:-0}" = 000 ] && [ -n "$before" ]; then
    check "$key: expected count $n = TABLES.tsv rows $before" [ "$n" = "$before" ]
  fi
  for threads in 1 3; do
    expect 0 "$basalt" iceberg count "$corpus/$key" --threads $threads &&
      check "$key: count ($threads threads) $(cat "$tmp/out") = $n" [ "$(cat "$tmp/out")" = "$n" ]
    expect 0 "$basalt" iceberg scan "$corpus/$key" --format json --threads $threads &&
      check "$key: scan ($threads threads) rows $(wc -l <"$tmp/out") = $n" [ "$(wc -l <"$tmp/out")" = "$n" ]
  done
  # a table directory reads as its latest metadata
done <"$corpus/TABLES.tsv"
check "every TABLES.tsv row was read ($rows)" [ "$rows" -eq 26 ]

# json_rows FILE... : `scan --format json` of a table, into $tmp/out
has_line() { grep -Fxq -- "$1" "$tmp/out"; }
line_n() { [ "$(sed -n "$1p" "$tmp/out")" = "$2" ]; }

# ------------------------------------------------------------------ java/bunnies
J=$I/java/bunnies/metadata
hl='{"Breed Name":"Holland Lop","Average Weight":1.8,"Fur Length":3,"Lifespan":7,"Origin Country":"The Netherlands","Ear Type":"Lop","Temperament":"Friendly","Popularity Rank":1'
expect 0 "$basalt" iceberg scan $J/v2.metadata.json --format json &&
  check "java v2 row0" line_n 1 "$hl}"
expect 0 "$basalt" iceberg scan $J/v2.metadata.json --format csv --columns "Breed Name" --where '"Popularity Rank" <= 3' &&
  check "java v2 ranks <= 3" [ "$(tr '\n' '|' <"$tmp/out")" = "Breed Name|Holland Lop|Netherland Dwarf|Flemish Giant|" ]
expect 0 "$basalt" iceberg scan $J/v3.metadata.json --format json &&
  check "java v3 row2 with __happy__ null" line_n 3 '{"Breed Name":"Flemish Giant","Average Weight":4.5,"Fur Length":4,"Lifespan":5,"Origin Country":"Belgium","Ear Type":"Lop","Temperament":"Calm","Popularity Rank":3,"__happy__":null}'
expect 0 "$basalt" iceberg scan $J/v4.metadata.json --format json &&
  check "java v4 row2 after the position deletes" line_n 3 '{"Breed Name":"American Fuzzy Lop","Average Weight":1.4,"Fur Length":5,"Lifespan":8,"Origin Country":"USA","Ear Type":"Lop","Temperament":"Sociable","Popularity Rank":8,"__happy__":null}' &&
  check "java v4 New Zealand row" has_line '{"Breed Name":"New Zealand","Average Weight":4,"Fur Length":2.7,"Lifespan":8,"Origin Country":"New Zealand","Ear Type":"Erect","Temperament":"Affectionate","Popularity Rank":21,"__happy__":null}'
expect 0 "$basalt" iceberg scan $J/v5.metadata.json --format json &&
  check "java v5: exactly one New Zealand row" [ "$(grep -c '"Breed Name":"New Zealand"' "$tmp/out")" = 1 ] &&
  check "java v5: the updated New Zealand row (equality delete seq 3 spares the seq-3 file)" \
    has_line '{"Breed Name":"New Zealand","Average Weight":4,"Fur Length":2.7,"Lifespan":8,"Origin Country":"New Zealand","Ear Type":"Erect","Temperament":"Affectionate","Popularity Rank":0,"__happy__":true}'
expect 0 "$basalt" iceberg files $J/v5.metadata.json &&
  check "java v5 plan: the old file has 2 deletes, the new one none" \
    grep -q $'bunnies-initial.parquet\t21\t2\tTRUE' "$tmp/out" &&
  check "java v5 plan: new file no deletes" grep -q $'bunnies-updated-new-zealand.parquet\t1\t0\tTRUE' "$tmp/out"

# ------------------------------------------------------------------ spark/bunnies
S=$I/spark/bunnies/metadata
expect 0 "$basalt" iceberg scan $S/v1.metadata.json --format json && check "spark v1 row0" line_n 1 "$hl}"
nd='{"Breed Name":"Netherland Dwarf","Average Weight":0.9,"Fur Length":2.5,"Lifespan":10,"Origin Country":"Netherlands","Ear Type":"Erect","Temperament":"Shy","Popularity Rank":2'
expect 0 "$basalt" iceberg scan $S/v3.metadata.json --format json && check "spark v3 row0 after the delete" line_n 1 "$nd}"
expect 0 "$basalt" iceberg scan $S/v5.metadata.json --format json &&
  check "spark v5 row0 with breed_name_length (stale position delete not applied)" line_n 1 "$nd,\"breed_name_length\":16}"
expect 0 "$basalt" iceberg files $S/v5.metadata.json &&
  check "spark v5 plan: the seq-2 position delete does not apply to the seq-3 file" grep -q $'\t20\t0\tTRUE$' "$tmp/out"
expect 0 "$basalt" iceberg count $S/v5.metadata.json --snapshot 7505300640432048841 &&
  check "spark v5 @7505300640432048841: 21 rows" [ "$(cat "$tmp/out")" = 21 ]
expect 0 "$basalt" iceberg scan $S/v5.metadata.json --snapshot 7505300640432048841 --format json &&
  check "time travel reads with the snapshot's schema" line_n 1 "$hl}"
expect 1 "$basalt" iceberg count $S/v5.metadata.json --snapshot 1234 &&
  check "snapshot 1234 not found" grep -q 'snapshot 1234 not found' "$tmp/err" && check "one line" one_line_stderr
expect 1 "$basalt" iceberg scan $S/v5.metadata.json --snapshot 1234
# snapshot-log: 1743310454186 7505300640432048841, 1743310500792 469881615898633426, 1743310561983 current
for as_of in "1743310454186:21" "1743310500791:21" "1743310500792:20" "2025-03-30T04:54:14.186Z:21" \
              "2025-03-30T04:55:00.792Z:20" "2025-03-30T06:56:01.983+02:00:20" "1743310561983:20"; do
  t=${as_of%:*}; n=${as_of##*:}
  expect 0 "$basalt" iceberg count $S/v5.metadata.json --as-of "$t" &&
    check "spark v5 --as-of $t: $n rows" [ "$(cat "$tmp/out")" = "$n" ]
done
expect 1 "$basalt" iceberg count $S/v5.metadata.json --as-of 1743310454185
expect 0 "$basalt" iceberg count $S/v5.metadata.json --ref main && check "--ref main" [ "$(cat "$tmp/out")" = 20 ]
expect 1 "$basalt" iceberg count $S/v5.metadata.json --ref nope && check "unknown ref" grep -q "ref 'nope' not found" "$tmp/err"
expect 2 "$basalt" iceberg count $S/v5.metadata.json --ref main --snapshot 1

# ------------------------------------------------------------------ rename_column
R=$I/spark/rename_column/metadata
r1='{"id":3,"name":"Cottontail","DATE":null,"price":"0.00","active":true}'
r2='{"id":4,"name":"Thumper","DATE":"2022-01-02","price":"99999999.99","active":false}'
r3='{"id":1,"name":"Flopsy 🐇","DATE":"2022-01-01","price":"9.99","active":true}'
r4='{"id":2,"name":"Mopsy–Naïve","DATE":"2022-01-01","price":"-5.00","active":false}'
for v in "v2:date" "v3:event_date"; do
  m=${v%%:*}; col=${v#*:}
  expect 0 "$basalt" iceberg scan $R/$m.metadata.json --format json &&
    check "rename_column $m rows by field id" [ "$(cat "$tmp/out")" = "$(printf '%s\n' "${r1/DATE/$col}" "${r2/DATE/$col}" "${r3/DATE/$col}" "${r4/DATE/$col}")" ]
done
expect 0 "$basalt" iceberg scan $R/v3.metadata.json --format csv --columns event_date,_partition,_pos,_spec_id &&
  check "metadata columns" [ "$(tr '\n' '|' <"$tmp/out")" = 'event_date,_partition,_pos,_spec_id|,"{""id_bucket"":3,""date"":null}",0,0|2022-01-02,"{""id_bucket"":2,""date"":""2022-01-02""}",0,0|2022-01-01,"{""id_bucket"":0,""date"":""2022-01-01""}",0,0|2022-01-01,"{""id_bucket"":0,""date"":""2022-01-01""}",1,0|' ]
expect 0 "$basalt" iceberg count $R/v3.metadata.json --where "event_date = '2022-01-01'" &&
  check "rename_column: filter on the renamed column" [ "$(cat "$tmp/out")" = 2 ]
expect 0 "$basalt" iceberg files $R/v3.metadata.json --where "event_date = '2022-01-01'" &&
  check "rename_column: one file planned" grep -q '^# tasks 1,' "$tmp/out"
expect 0 "$basalt" iceberg count $R/v3.metadata.json --where "event_date IS NULL" &&
  check "rename_column: IS NULL" [ "$(cat "$tmp/out")" = 1 ]
expect 1 "$basalt" iceberg count $R/v3.metadata.json --where "date = '2022-01-01'" &&
  check "the old name is gone" grep -q "date" "$tmp/err"

# ------------------------------------------------------------------ athena, cities
expect 0 "$basalt" iceberg scan "$I/athena/example" --format json &&
  check "athena rows" [ "$(tr '\n' '|' <"$tmp/out")" = '{"id":1,"name":"Alice"}|{"id":2,"name":"Bob"}|' ]
expect 0 "$basalt" iceberg files "$G/wh/default.db/cities" &&
  check "cities: one data file of 4 records" grep -q $'00000-0-6704a04a-3e2e-415f-b173-b21f4c5b78b7.parquet\t4\t0\tTRUE' "$tmp/out"

# ------------------------------------------------------------------ polars day(ts)
P=$corpus/polars/iceberg-table/metadata/v2.metadata.json
expect 0 "$basalt" iceberg scan $P --format csv &&
  check "polars rows" [ "$(tr '\n' '|' <"$tmp/out")" = 'id,str,ts|1,1,2023-03-01T18:15:00.000000|2,2,2023-03-01T19:25:00.000000|3,3,2023-03-02T22:00:00.000000|' ]
for f in "ts >= '2023-03-01 19:25'|2|2" "ts > '2023-03-01 19:25'|1|1" "ts > '2023-03-02 22:00'|0|0" \
         "ts < '2023-03-02'|2|1" "ts >= '2023-03-02T00:00:00'|1|1"; do
  w=${f%%|*}; rest=${f#*|}; n=${rest%%|*}; files=${rest#*|}
  expect 0 "$basalt" iceberg count $P --where "$w" && check "polars '$w': $n rows" [ "$(cat "$tmp/out")" = "$n" ]
  expect 0 "$basalt" iceberg files $P --where "$w" && check "polars '$w': $files tasks" grep -q "^# tasks $files," "$tmp/out"
done
expect 0 "$basalt" iceberg count $P --snapshot 7051579356916758811 && check "polars snapshot" [ "$(cat "$tmp/out")" = 3 ]
expect 1 "$basalt" iceberg count $P --snapshot 1234567890 && check "polars bad snapshot" grep -q "not found" "$tmp/err"

# ------------------------------------------------------------------ glaredb lineitem
for v in 1 2; do
  for p in "AIR:143" "FOB:136" "MAIL:144" "RAIL:130" "REG AIR:157" "SHIP:158" "TRUCK:132"; do
    mode=${p%:*}; n=${p##*:}
    expect 0 "$basalt" iceberg count "$G/tables-v$v/lineitem_partitioned" --where "l_shipmode = '$mode'" &&
      check "v$v lineitem_partitioned $mode: $n" [ "$(cat "$tmp/out")" = "$n" ]
    expect 0 "$basalt" iceberg files "$G/tables-v$v/lineitem_partitioned" --where "l_shipmode = '$mode'" &&
      check "v$v lineitem_partitioned $mode: one file, residual TRUE" grep -q $'\t'"$n"$'\t0\tTRUE$' "$tmp/out" &&
      check "v$v $mode: 6 files pruned by partition" grep -q '^# tasks 1, .*(skipped 6 by partition' "$tmp/out"
  done
done
for t in lineitem_simple lineitem_partitioned lineitem_versioned; do
  "$basalt" iceberg scan "$G/tables-v1/$t" --format json | sort >"$tmp/v1.json"
  "$basalt" iceberg scan "$G/tables-v2/$t" --format json | sort >"$tmp/v2.json"
  check "$t: v1 and v2 scans identical" cmp -s "$tmp/v1.json" "$tmp/v2.json"
  check "$t: scans not empty" [ -s "$tmp/v1.json" ]
done

# DuckDB reading the same data files (every file under data/ is live in the
# latest version of these tables: TABLES.tsv live_data_files).
script=$here/../parquet/duckdb_json.mjs
if command -v node >/dev/null && (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  for v in 1 2; do
    for t in lineitem_simple:1 lineitem_partitioned:7 lineitem_versioned:2; do
      name=${t%:*}; nfiles=${t#*:}
      mapfile -t files < <(find "$G/tables-v$v/$name/data" -name '*.parquet' | sort)
      check "v$v $name: $nfiles data files" [ "${#files[@]}" = "$nfiles" ]
      : >"$tmp/duck.json"
      # copied out of their directories, so that DuckDB does not read
      # l_shipmode=REG+AIR as a hive partition value
      for f in "${files[@]}"; do
        cp "$f" "$tmp/data.parquet" && node "$script" "$tmp/data.parquet" >>"$tmp/duck.json"
      done
      sort -o "$tmp/duck.json" "$tmp/duck.json"
      "$basalt" iceberg scan "$G/tables-v$v/$name" --format json --threads 2 | sort >"$tmp/ours.json"
      check "v$v $name: basalt scan = DuckDB read_parquet of the data files ($(wc -l <"$tmp/duck.json") rows)" \
        cmp -s "$tmp/ours.json" "$tmp/duck.json"
    done
  done
else
  echo "skipped DuckDB comparison: node or @duckdb/node-api is not installed"
  [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && check "DuckDB available" false
fi

# ------------------------------------------------------------------ deletion vectors
# A v3 table written around corpus files by tests/iceberg/make_table.py
# (python3-avro): position delete file (seq 2), a deletion vector {1,3,5,7,9}
# of iceberg-go's Puffin file (seq 3, supersedes the position deletes), an
# equality delete (seq 4), a new data file (seq 5).
if /usr/bin/python3 -c 'import avro' 2>/dev/null; then
  D=$tmp/dvt
  /usr/bin/python3 "$here/../iceberg/make_table.py" deletes "$corpus" "$D"
  for s in "2000001:21" "2000002:15" "2000003:16" "2000004:15" "2000005:16"; do
    id=${s%:*}; n=${s#*:}
    for threads in 1 3; do
      expect 0 "$basalt" iceberg count "$D" --snapshot "$id" --threads $threads &&
        check "v3 deletes @$id: count $n" [ "$(cat "$tmp/out")" = "$n" ]
      expect 0 "$basalt" iceberg scan "$D" --snapshot "$id" --format csv --threads $threads &&
        check "v3 deletes @$id: $n rows" [ "$(($(wc -l <"$tmp/out") - 1))" = "$n" ]
    done
  done
  expect 0 "$basalt" iceberg count "$D" --ref with-dv && check "tag with-dv" [ "$(cat "$tmp/out")" = 16 ]
  # the rows the DV keeps: positions 0..20 but 1, 3, 5, 7, 9 of the initial file
  "$basalt" iceberg scan "$J/v2.metadata.json" --columns "Breed Name" --format csv | tail -n +2 |
    awk 'NR != 2 && NR != 4 && NR != 6 && NR != 8 && NR != 10 { print (NR - 1) "," $0 }' >"$tmp/want.csv"
  expect 0 "$basalt" iceberg scan "$D" --snapshot 2000003 --columns "_pos,Breed Name" --format csv &&
    check "DV: the kept rows and their positions" diff <(tail -n +2 "$tmp/out") "$tmp/want.csv"
  expect 0 "$basalt" iceberg files "$D" --snapshot 2000003 &&
    check "DV plan: one delete (the DV, not the position file)" grep -q $'bunnies-initial.parquet\t21\t1\tTRUE' "$tmp/out"
  expect 0 "$basalt" iceberg files "$D" &&
    check "final plan: DV and equality delete on the old file" grep -q $'bunnies-initial.parquet\t21\t2\tTRUE' "$tmp/out" &&
    check "final plan: nothing on the new file" grep -q $'bunnies-updated-new-zealand.parquet\t1\t0\tTRUE' "$tmp/out"
  expect 0 "$basalt" iceberg scan "$D" --format json &&
    check "final: one New Zealand row, the seq-5 one" [ "$(grep -c '"Popularity Rank":0' "$tmp/out")" = 1 ] &&
    check "final: no other New Zealand row" [ "$(grep -c 'New Zealand' "$tmp/out")" = 1 ]
  # name mapping: a data file without field ids (rewritten by DuckDB)
  if command -v node >/dev/null && (cd "$here/../parquet" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
    (cd "$here/../iceberg" && node make_parquet.mjs noids \
      "$I/java/bunnies/data/bunnies-initial.parquet" "$tmp/noids.parquet")
    expect 0 "$basalt" parquet schema "$tmp/noids.parquet" &&
      check "the rewritten file has no field ids" [ "$(grep -c ' = [0-9]*;' "$tmp/out")" = 0 ]
    /usr/bin/python3 "$here/../iceberg/make_table.py" mapped "$tmp/noids.parquet" "$tmp/mapped"
    "$basalt" iceberg scan "$J/v2.metadata.json" --columns "Breed Name,Average Weight,Popularity Rank" \
      --format csv | tail -n +2 | sed 's/$/,,/' >"$tmp/want.csv"
    expect 0 "$basalt" iceberg scan "$tmp/mapped" --columns "breed,Average Weight,Popularity Rank,Lifespan,Temperament" --format csv &&
      check "name mapping: mapped columns by id, the others null" diff <(tail -n +2 "$tmp/out" | awk -F, '{ print $1 "," $2 "," $3 "," $4 "," $5 }') \
        <(awk -F, '{ print $1 "," $2 "," $3 ",," }' "$tmp/want.csv")
    expect 0 "$basalt" iceberg count "$tmp/mapped" --where "breed STARTS WITH 'H'" &&
      check "name mapping: filter on a mapped column" [ "$(cat "$tmp/out")" = "$(grep -c '^H' "$tmp/want.csv")" ]

    # nested columns (rows as make_parquet.mjs documents them) read with an
    # evolved schema: s.b renamed bee, s.c and extra added, columns reordered
    (cd "$here/../iceberg" && node make_parquet.mjs nested "$tmp/nested.parquet")
    /usr/bin/python3 "$here/../iceberg/make_table.py" nested "$tmp/nested.parquet" "$tmp/nt"
    n0='{"id":0,"l":[0,1],"s":{"a":0,"bee":"x0","c":null},"m":[{"key":"k0","value":0}],"extra":null}'
    n1='{"id":1,"l":[1,2],"s":{"a":1,"bee":"x1","c":null},"m":null,"extra":null}'
    n2='{"id":2,"l":[2,3],"s":null,"m":[{"key":"k2","value":2}],"extra":null}'
    n3='{"id":3,"l":null,"s":{"a":3,"bee":"x3","c":null},"m":[{"key":"k3","value":3}],"extra":null}'
    n4='{"id":4,"l":[4,5],"s":{"a":4,"bee":"x4","c":null},"m":[{"key":"k4","value":4}],"extra":null}'
    for opts in "" "--batch-size 2" "--batch-size 1 --threads 2"; do
      # shellcheck disable=SC2086
      expect 0 "$basalt" iceberg scan "$tmp/nt" --format json $opts &&
        check "nested: all rows ($opts)" [ "$(cat "$tmp/out")" = "$(printf '%s\n' "$n0" "$n1" "$n2" "$n3" "$n4")" ]
      # shellcheck disable=SC2086
      expect 0 "$basalt" iceberg scan "$tmp/nt" --format json --where "s.a >= 3" $opts &&
        check "nested: filter on a struct field ($opts)" [ "$(cat "$tmp/out")" = "$(printf '%s\n' "$n3" "$n4")" ]
      # shellcheck disable=SC2086
      expect 0 "$basalt" iceberg scan "$tmp/nt" --format json --columns m,l --where "id <> 2 AND id <> 3" $opts &&
        check "nested: lists and maps filtered ($opts)" [ "$(tr '\n' '|' <"$tmp/out")" = \
          '{"m":[{"key":"k0","value":0}],"l":[0,1]}|{"m":null,"l":[1,2]}|{"m":[{"key":"k4","value":4}],"l":[4,5]}|' ]
    done
    expect 0 "$basalt" iceberg scan "$tmp/nt" --format json --columns s.bee,id &&
      check "nested: a sub-field projection" [ "$(tr '\n' '|' <"$tmp/out")" = \
        '{"s":{"bee":"x0"},"id":0}|{"s":{"bee":"x1"},"id":1}|{"s":null,"id":2}|{"s":{"bee":"x3"},"id":3}|{"s":{"bee":"x4"},"id":4}|' ]
    expect 0 "$basalt" iceberg scan "$tmp/nt" --format json --columns s.bee --where "s.a = 1" &&
      check "nested: filter on a sibling of the projected sub-field" [ "$(cat "$tmp/out")" = '{"s":{"bee":"x1"}}' ]
    expect 0 "$basalt" iceberg scan "$tmp/nt" --format json --columns l --where "s.a >= 3" &&
      check "nested: filter on a column not returned" [ "$(tr '\n' '|' <"$tmp/out")" = '{"l":null}|{"l":[4,5]}|' ]
    expect 0 "$basalt" iceberg count "$tmp/nt" --where "s.a > 0" && check "nested: count" [ "$(cat "$tmp/out")" = 3 ]
    expect 0 "$basalt" iceberg count "$tmp/nt" --where "extra IS NULL" && check "nested: added column is null" [ "$(cat "$tmp/out")" = 5 ]

    # ten row groups of 2048 ordered ids: filters reach the Parquet reader,
    # which skips row groups; rows and positions stay exact
    (cd "$here/../iceberg" && node make_parquet.mjs rowgroups "$tmp/rg.parquet")
    /usr/bin/python3 "$here/../iceberg/make_table.py" rowgroups "$tmp/rg.parquet" "$tmp/rgt"
    for f in "id >= 19000|1480|19000|20479" "id >= 4096 AND id < 4146|50|4096|4145" "v = 'v10000'|1|10000|10000" \
             "id > 20470 OR id < 3|12|0|20479" "id = 30000|0||"; do
      IFS='|' read -r w n lo hi <<<"$f"
      for opts in "" "--threads 2 --batch-size 7" "--no-prune"; do
        # shellcheck disable=SC2086
        expect 0 "$basalt" iceberg scan "$tmp/rgt" --where "$w" --columns id,_pos,v --format csv $opts &&
          check "row groups [$w] $opts: $n rows, _pos = id, v = 'v' || id" \
            [ "$(tail -n +2 "$tmp/out" | awk -F, '$1 == $2 && $3 == "v" $1' | wc -l)" = "$n" ] &&
          check "row groups [$w] $opts: first and last" \
            [ "$(tail -n +2 "$tmp/out" | sed -n '1p;$p' | cut -d, -f1 | tr '\n' ' ')" = "$(echo $lo $hi | tr ' ' '\n' | sed '/^$/d' | tr '\n' ' ')" ]
        # shellcheck disable=SC2086
        expect 0 "$basalt" iceberg scan "$tmp/rgt" --where "$w" --columns v --format csv $opts &&
          check "row groups [$w] $opts: without _pos too" [ "$(($(wc -l <"$tmp/out") - 1))" = "$n" ]
      done
      expect 0 "$basalt" iceberg count "$tmp/rgt" --where "$w" && check "row groups [$w]: count" [ "$(cat "$tmp/out")" = "$n" ]
    done
  fi
else
  echo "skipped the deletion-vector table: /usr/bin/python3 has no avro module"
fi

# ------------------------------------------------------------------ broken data files
# A truncated data file fails the scan with one line naming it; count needs
# no data file when nothing has to be filtered or deleted.
cp -r "$corpus/polars/iceberg-table" "$tmp/broken"
bad=$(find "$tmp/broken/data" -name '*.parquet' | sort | head -1)
head -c 100 "$bad" >"$tmp/cut" && cp "$tmp/cut" "$bad"
expect 1 "$basalt" iceberg scan "$tmp/broken/metadata/v2.metadata.json" &&
  check "truncated data file: one line" one_line_stderr &&
  check "truncated data file: named" grep -q "$(basename "$bad")" "$tmp/err"
expect 0 "$basalt" iceberg count "$tmp/broken/metadata/v2.metadata.json" &&
  check "count from the manifests does not open data files" [ "$(cat "$tmp/out")" = 3 ]
expect 1 "$basalt" iceberg count "$tmp/broken/metadata/v2.metadata.json" --where "id > 0"
rm "$bad"
expect 1 "$basalt" iceberg scan "$tmp/broken/metadata/v2.metadata.json" --threads 2 &&
  check "missing data file: named" grep -q "$(basename "$bad")" "$tmp/err"

# ------------------------------------------------------------------ usage
expect 2 "$basalt" iceberg scan
expect 2 "$basalt" iceberg scan "$P" --format xml
expect 2 "$basalt" iceberg scan "$P" --as-of yesterday
expect 2 "$basalt" iceberg scan "$P" --where "id >"
expect 1 "$basalt" iceberg scan "$P" --columns nope && check "unknown column" grep -q "nope" "$tmp/err"
expect 0 "$basalt" iceberg scan --help
finish
