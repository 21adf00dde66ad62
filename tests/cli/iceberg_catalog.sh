#!/usr/bin/env bash
# basalt iceberg tables|namespaces|describe|snapshots|register|drop over a
# temporary SQLite catalog holding corpus tables. Expected values come from
# the corpus's TABLES.tsv and EXPECTED.md, and from the metadata files read
# with python3's json module -- never from basalt itself.
source "$(dirname "$0")/lib.bash"
ice=$testdata/iceberg
tsv=$ice/TABLES.tsv
cat="sqlite:$tmp/wh/catalog.db"
py=/usr/bin/python3

bunnies=$ice/icebird/hyperparam-iceberg/java/bunnies
lineitem=$ice/glaredb/iceberg/tables-v1/lineitem_partitioned
cities=$ice/glaredb/iceberg/wh/default.db/cities

# The last TABLES.tsv row of a table directory (its current metadata), column N.
col() { awk -F'\t' -v d="$1" -v c="$2" '$1 == d { v = $c } END { print v }' "$tsv"; }

# --help everywhere
expect 0 "$basalt" iceberg --help &&
  check "iceberg --help lists the verbs" grep -qE '^  (tables|describe|snapshots|register) ' "$tmp/out"
for verb in tables namespaces describe snapshots register drop; do
  expect 0 "$basalt" iceberg "$verb" --help && check "iceberg $verb --help" grep -q "usage: basalt iceberg $verb" "$tmp/out"
done

# register: a table directory (version-hint.text names v5), a metadata file, a
# directory without a hint; the catalog file and its directory are created.
expect 0 "$basalt" iceberg register db.bunnies "$bunnies" --catalog "$cat" &&
  check "register names the current metadata file" grep -q "metadata/v5.metadata.json" "$tmp/out"
expect 0 "$basalt" iceberg register --catalog "$cat" tpch.lineitem_partitioned "$lineitem/metadata/v1.metadata.json"
expect 0 "$basalt" iceberg register default.cities "$cities" --catalog="$cat"
check "the catalog file was created" test -f "$tmp/wh/catalog.db"
# The rows, read with python3's sqlite3 module: absolute metadata paths.
rows=$($py -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for r in db.execute("SELECT catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location FROM iceberg_tables ORDER BY 2, 3"):
    print("|".join(str(x) for x in r))
' "$tmp/wh/catalog.db")
check "catalog rows" test "$rows" = "default|db|bunnies|$bunnies/metadata/v5.metadata.json|None
default|default|cities|$cities/metadata/00001-278cfebe-cfd4-4475-b30f-1b8ba1ae8eee.metadata.json|None
default|tpch|lineitem_partitioned|$lineitem/metadata/v1.metadata.json|None"

# twice: CONFLICT, exit 1, one line
expect 1 "$basalt" iceberg register db.bunnies "$bunnies" --catalog "$cat" &&
  check "register twice: one line" one_line_stderr &&
  check "register twice: says it exists" grep -q "CONFLICT: .*db.bunnies.* already exists" "$tmp/err"

# tables / namespaces
expect 0 "$basalt" iceberg tables --catalog "$cat" &&
  check "tables" test "$(cat "$tmp/out")" = "db.bunnies
default.cities
tpch.lineitem_partitioned"
expect 0 "$basalt" iceberg tables --catalog "$cat" tpch && check "tables NAMESPACE" test "$(cat "$tmp/out")" = "tpch.lineitem_partitioned"
expect 0 "$basalt" iceberg namespaces --catalog "$cat" && check "namespaces" test "$(cat "$tmp/out")" = "db
default
tpch"
expect 1 "$basalt" iceberg tables --catalog "$cat" nope && check "tables of a missing namespace" one_line_stderr
expect 1 "$basalt" iceberg tables --catalog "sqlite:$tmp/none/catalog.db" && check "tables of a missing catalog" one_line_stderr
check "a missing catalog is not created by tables" test ! -e "$tmp/none"

# describe, by identifier: values of TABLES.tsv
d=icebird/hyperparam-iceberg/java/bunnies
expect 0 "$basalt" iceberg describe db.bunnies --catalog "$cat"
check "describe: format version" grep -qx "format-version  *$(col $d 3)" "$tmp/out"
check "describe: location" grep -qx "location  *$(col $d 4)" "$tmp/out"
check "describe: current snapshot" grep -qx "current-snapshot  *$(col $d 9)" "$tmp/out"
check "describe: schema count" grep -q "^schema .*; $(col $d 6) schemas)" "$tmp/out"
check "describe: unpartitioned" grep -qx "  spec 0 (default): unpartitioned" "$tmp/out"
check "describe: main branch" grep -qx "  main: branch -> $(col $d 9)" "$tmp/out"
# The schema tree against the metadata file read by python3.
$py - "$bunnies/metadata/v5.metadata.json" >"$tmp/fields" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
s = [x for x in m["schemas"] if x["schema-id"] == m["current-schema-id"]][0]
for f in s["fields"]:
    print("  %d %s: %s %s" % (f["id"], f["name"], "required" if f["required"] else "optional", f["type"]))
PY
check "describe: the field tree" test "$(grep -E '^  [0-9]+ ' "$tmp/out" | head -n "$(wc -l <"$tmp/fields")")" = "$(cat "$tmp/fields")"
check "describe: __happy__ added in v3 (EXPECTED.md)" grep -qx "  9 __happy__: optional boolean" "$tmp/out"
# snapshots of the description, oldest first, with their operations
check "describe: operations" test "$(sed -n '/^snapshots/,/^$/p' "$tmp/out" | awk 'NR > 1 && NF { print $5 }' | paste -sd, -)" = "$(col $d 8)"

# describe by path, partitioned (TABLES.tsv: 0:[identity(15)], l_shipmode per EXPECTED.md)
expect 0 "$basalt" iceberg describe "$lineitem"
check "describe: partition field" grep -qE "^    1000 [a-z_]+: identity\(15 l_shipmode\)$" "$tmp/out"
check "describe: format version 1" grep -qx "format-version  *1" "$tmp/out"
check "describe: name is the directory" grep -qx "name  *lineitem_partitioned" "$tmp/out"

# describe --format json
expect 0 "$basalt" iceberg describe --format json "$ice/icebird/hyperparam-iceberg/spark/rename_column"
d=icebird/hyperparam-iceberg/spark/rename_column
got=$($py -c '
import json, sys
j = json.load(open(sys.argv[1]))
spec = [s for s in j["partition_specs"] if s["spec_id"] == j["default_spec_id"]][0]
print(j["format_version"], j["current_snapshot_id"], j["location"], len(j["schema_ids"]),
      ",".join(s["operation"] for s in j["snapshots"]),
      "%d:[%s]" % (spec["spec_id"], ",".join("%s(%d)" % (f["transform"], f["source_id"]) for f in spec["fields"])))
' "$tmp/out")
check "describe json against TABLES.tsv" test "$got" = "$(col $d 3) $(col $d 9) $(col $d 4) $(col $d 6) $(col $d 8) $(col $d 5)"

# snapshots: rows oldest first; ids, parents, sequence numbers, ISO UTC times
# and summary counts from the metadata file; operations and total records from TABLES.tsv
d=icebird/hyperparam-iceberg/java/bunnies
expect 0 "$basalt" iceberg snapshots db.bunnies --catalog "$cat"
check "snapshots: header + one row per snapshot" test "$(wc -l <"$tmp/out")" -eq $(($(col $d 7) + 1))
want=$($py - "$bunnies/metadata/v5.metadata.json" <<'PY'
import json, sys, datetime
m = json.load(open(sys.argv[1]))
for s in sorted(m["snapshots"], key=lambda s: s["timestamp-ms"]):
    t = datetime.datetime.fromtimestamp(s["timestamp-ms"] / 1000, datetime.timezone.utc)
    print(s["snapshot-id"], s.get("parent-snapshot-id", "-"), s["sequence-number"],
          t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (s["timestamp-ms"] % 1000),
          s["summary"]["operation"], s["summary"].get("total-records", "-"), s["manifest-list"])
PY
)
got=$(awk 'NR > 1 { print $1, $2, $3, $4, $5, $12, $13 }' "$tmp/out")
check "snapshots rows" test "$got" = "$want"
check "snapshots: operations (TABLES.tsv)" test "$(awk 'NR > 1 { print $5 }' "$tmp/out" | paste -sd, -)" = "$(col $d 8)"
check "snapshots: total records of the current one (TABLES.tsv)" test "$(awk 'END { print $12 }' "$tmp/out")" = "$(col $d 15)"
# glaredb/EXPECTED.md: cities has snapshot 8687260678833969554, sequence 1, and its manifest list
expect 0 "$basalt" iceberg snapshots --catalog "$cat" default.cities --format json
check "snapshots json (EXPECTED.md)" test "$($py -c '
import json, sys
for line in open(sys.argv[1]):
    s = json.loads(line)
    print(s["snapshot_id"], s["sequence_number"], s["manifest_list"].rsplit("/", 1)[1].split("-")[:3])
' "$tmp/out")" = "8687260678833969554 1 ['snap', '8687260678833969554', '0']"

# failures: one line on stderr, exit 1; usage errors exit 2
expect 1 "$basalt" iceberg describe nope.table --catalog "$cat" && check "unknown table" one_line_stderr
expect 1 "$basalt" iceberg describe "$tmp/no/such/dir" && check "missing path" one_line_stderr
expect 1 "$basalt" iceberg snapshots "$ice/glaredb/iceberg/tables-v1/lineitem_simple/data" && check "a directory without metadata" one_line_stderr
expect 1 "$basalt" iceberg register db.bad "$tmp/no/such/v1.metadata.json" --catalog "$cat" && check "register an unreadable location" one_line_stderr
expect 1 "$basalt" iceberg register nonamespace "$bunnies" --catalog "$cat" && check "register without a namespace" one_line_stderr
expect 2 "$basalt" iceberg describe && check "describe without TABLE" one_line_stderr
expect 2 "$basalt" iceberg describe db.bunnies --bogus && check "unknown option" one_line_stderr
expect 2 "$basalt" iceberg describe db.bunnies --format csv && check "describe --format csv" one_line_stderr
expect 2 "$basalt" iceberg register db.x && check "register needs METADATA" one_line_stderr
expect 2 "$basalt" iceberg describe db.bunnies --map nothing && check "--map without =" one_line_stderr
expect 2 "$basalt" iceberg frob && check "unknown verb" one_line_stderr

# --map: an s3 location registered as stored, read through the mapping.
# Unmapped, it is read from the object store: here one that refuses every
# connection (the discard port), so the failure names the location.
expect 1 "$basalt" --endpoint http://127.0.0.1:9 iceberg register ice.athena "s3://hyperparam-iceberg/athena/example/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json" --catalog "$cat" &&
  check "unmapped s3 location: read from the store, which fails" grep -q "IO: .*hyperparam-iceberg/athena/example/metadata/00001" "$tmp/err"
expect 0 "$basalt" iceberg register ice.athena "s3://hyperparam-iceberg/athena/example/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json" \
  --catalog "$cat" --map "s3://hyperparam-iceberg/=$ice/icebird/hyperparam-iceberg"
expect 0 "$basalt" iceberg snapshots ice.athena --catalog "$cat" --map "s3://hyperparam-iceberg/=$ice/icebird/hyperparam-iceberg" &&
  check "athena: one snapshot (TABLES.tsv)" test "$(awk 'NR == 2 { print $1, $3 }' "$tmp/out")" = "$(col icebird/hyperparam-iceberg/athena/example 9) 1"
expect 1 "$basalt" iceberg describe ice.athena --catalog "$cat" && check "athena without --map" one_line_stderr

# drop keeps the files
expect 0 "$basalt" iceberg drop default.cities --catalog "$cat"
expect 0 "$basalt" iceberg tables --catalog "$cat" default && check "dropped" test ! -s "$tmp/out"
check "files kept" test -f "$cities/metadata/00001-278cfebe-cfd4-4475-b30f-1b8ba1ae8eee.metadata.json"
expect 1 "$basalt" iceberg drop default.cities --catalog "$cat" && check "drop twice" one_line_stderr

# a filesystem warehouse as the catalog
expect 0 "$basalt" iceberg tables --catalog "$ice/icebird/hyperparam-iceberg" &&
  check "warehouse tables" test "$(cat "$tmp/out" | paste -sd' ' -)" = "athena.example java.bunnies spark.bunnies spark.rename_column"

# a view metadata file: describe prints the view (values from the file, read by python3)
view=$ice/metadata-json/apache-iceberg/view/ValidViewMetadata.json
expect 0 "$basalt" iceberg describe "$view" &&
  check "describe a view: its uuid" grep -q "$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["view-uuid"])' "$view")" "$tmp/out"

finish
