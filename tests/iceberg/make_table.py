#!/usr/bin/python3
"""Writes Iceberg tables around existing Parquet files for the scan tests,
covering what the corpus lacks (deletion vectors, files without field ids,
nested columns). Manifests and manifest lists are written with Debian's
python3-avro (an independent Avro writer); the metadata JSON by hand.

  /usr/bin/python3 tests/iceberg/make_table.py deletes CORPUS_ICEBERG_DIR OUT_DIR
  /usr/bin/python3 tests/iceberg/make_table.py mapped FILE.parquet OUT_DIR
  /usr/bin/python3 tests/iceberg/make_table.py nested FILE.parquet OUT_DIR
  /usr/bin/python3 tests/iceberg/make_table.py rowgroups FILE.parquet OUT_DIR
  /usr/bin/python3 tests/iceberg/make_table.py spec SPEC.json OUT_DIR   (see from_spec)
  /usr/bin/python3 tests/iceberg/make_table.py uuid FILE.parquet OUT_DIR

deletes: a format-v3 table with every kind of delete.
The table's location is s3a://hyperparam-iceberg/java/bunnies, so the
position delete file of icebird's java/bunnies (6 positions of
bunnies-initial.parquet) refers to the table's data file. Snapshots:
  1 (seq 1) append data/bunnies-initial.parquet (21 rows)
  2 (seq 2) add the position delete file (positions 0-based, see EXPECTED.md: 15 rows left)
  3 (seq 3) add a deletion vector for the data file: iceberg-go's
            deletion-vector-v1.puffin, positions {1, 3, 5, 7, 9}; it supersedes
            the position delete file: 16 rows left
  4 (seq 4) add icebird's equality delete ("Breed Name" = 'New Zealand',
            equality_ids [1]): 15 rows left
  5 (seq 5) append data/bunnies-updated-new-zealand.parquet (1 row, seq 5:
            the equality delete of seq 4 does not apply): 16 rows.

mapped: a v2 table of one data file written without field ids (the
rows of bunnies-initial.parquet, columns named "Breed_x20Name"...), whose
schema renames "Breed Name" to "breed" and whose name mapping
(schema.name-mapping.default) maps the file's "Breed_x20Name",
"Average_x20Weight" and "Popularity_x20Rank" to ids 1, 2 and 8 and leaves the
others out, so those columns read as nulls."""
import json
import os
import shutil
import struct
import sys
import warnings

import avro.datafile
import avro.io
import avro.schema

warnings.filterwarnings("ignore", message="Unknown map")

LOCATION = "s3a://hyperparam-iceberg/java/bunnies"
BASE_MS = 1767225600000
UUID = "6f1b8f2e-9a4c-4f57-8d2a-3c1e5b7a9d10"


def opt(t):
    return ["null", t]


def entry_schema():
    def metric_map(name, fid, kid, vid, vtype):
        return {"name": name, "type": opt({"type": "array", "logicalType": "map", "items": {
            "type": "record", "name": "k%d_v%d" % (kid, vid), "fields": [
                {"name": "key", "type": "int", "field-id": kid},
                {"name": "value", "type": vtype, "field-id": vid}]}}),
            "default": None, "field-id": fid}
    data_file = {"type": "record", "name": "r2", "fields": [
        {"name": "content", "type": "int", "field-id": 134},
        {"name": "file_path", "type": "string", "field-id": 100},
        {"name": "file_format", "type": "string", "field-id": 101},
        {"name": "partition", "type": {"type": "record", "name": "r102", "fields": []}, "field-id": 102},
        {"name": "record_count", "type": "long", "field-id": 103},
        {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
        metric_map("column_sizes", 108, 117, 118, "long"),
        metric_map("value_counts", 109, 119, 120, "long"),
        metric_map("null_value_counts", 110, 121, 122, "long"),
        metric_map("nan_value_counts", 137, 138, 139, "long"),
        metric_map("lower_bounds", 125, 126, 127, "bytes"),
        metric_map("upper_bounds", 128, 129, 130, "bytes"),
        {"name": "key_metadata", "type": opt("bytes"), "default": None, "field-id": 131},
        {"name": "split_offsets", "type": opt({"type": "array", "items": "long", "element-id": 133}),
         "default": None, "field-id": 132},
        {"name": "equality_ids", "type": opt({"type": "array", "items": "int", "element-id": 136}),
         "default": None, "field-id": 135},
        {"name": "sort_order_id", "type": opt("int"), "default": None, "field-id": 140},
        {"name": "first_row_id", "type": opt("long"), "default": None, "field-id": 142},
        {"name": "referenced_data_file", "type": opt("string"), "default": None, "field-id": 143},
        {"name": "content_offset", "type": opt("long"), "default": None, "field-id": 144},
        {"name": "content_size_in_bytes", "type": opt("long"), "default": None, "field-id": 145},
    ]}
    return {"type": "record", "name": "manifest_entry", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "snapshot_id", "type": opt("long"), "default": None, "field-id": 1},
        {"name": "sequence_number", "type": opt("long"), "default": None, "field-id": 3},
        {"name": "file_sequence_number", "type": opt("long"), "default": None, "field-id": 4},
        {"name": "data_file", "type": data_file, "field-id": 2},
    ]}


MANIFEST_FILE = {"type": "record", "name": "manifest_file", "fields": [
    {"name": "manifest_path", "type": "string", "field-id": 500},
    {"name": "manifest_length", "type": "long", "field-id": 501},
    {"name": "partition_spec_id", "type": "int", "field-id": 502},
    {"name": "content", "type": "int", "field-id": 517},
    {"name": "sequence_number", "type": "long", "field-id": 515},
    {"name": "min_sequence_number", "type": "long", "field-id": 516},
    {"name": "added_snapshot_id", "type": "long", "field-id": 503},
    {"name": "added_files_count", "type": "int", "field-id": 504},
    {"name": "existing_files_count", "type": "int", "field-id": 505},
    {"name": "deleted_files_count", "type": "int", "field-id": 506},
    {"name": "added_rows_count", "type": "long", "field-id": 512},
    {"name": "existing_rows_count", "type": "long", "field-id": 513},
    {"name": "deleted_rows_count", "type": "long", "field-id": 514},
    {"name": "partitions", "type": opt({"type": "array", "element-id": 508, "items": {
        "type": "record", "name": "r508", "fields": [
            {"name": "contains_null", "type": "boolean", "field-id": 509},
            {"name": "contains_nan", "type": opt("boolean"), "default": None, "field-id": 518},
            {"name": "lower_bound", "type": opt("bytes"), "default": None, "field-id": 510},
            {"name": "upper_bound", "type": opt("bytes"), "default": None, "field-id": 511}]}}),
     "default": None, "field-id": 507},
    {"name": "key_metadata", "type": opt("bytes"), "default": None, "field-id": 519},
    {"name": "first_row_id", "type": opt("long"), "default": None, "field-id": 520},
]}

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "Breed Name", "required": False, "type": "string"},
    {"id": 2, "name": "Average Weight", "required": False, "type": "double"},
    {"id": 3, "name": "Fur Length", "required": False, "type": "double"},
    {"id": 4, "name": "Lifespan", "required": False, "type": "long"},
    {"id": 5, "name": "Origin Country", "required": False, "type": "string"},
    {"id": 6, "name": "Ear Type", "required": False, "type": "string"},
    {"id": 7, "name": "Temperament", "required": False, "type": "string"},
    {"id": 8, "name": "Popularity Rank", "required": False, "type": "long"}]}


def write_avro(path, schema, records, meta):
    parsed = avro.schema.parse(json.dumps(schema))
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), parsed, codec="deflate")
        for k, v in meta.items():
            w.set_meta(k, v.encode())
        for r in records:
            w.append(r)
        w.close()


def puffin_blob(path):
    """(offset, length) of the first blob, from the Puffin footer."""
    data = open(path, "rb").read()
    assert data[:4] == b"PFA1" and data[-4:] == b"PFA1"
    size = struct.unpack("<i", data[-12:-8])[0]
    footer = json.loads(data[-12 - size:-12])
    blob = footer["blobs"][0]
    assert blob["type"] == "deletion-vector-v1"
    return blob["offset"], blob["length"]


def data_file(content, rel, fmt, rows, size, **extra):
    d = {"content": content, "file_path": LOCATION + "/" + rel, "file_format": fmt, "partition": {},
         "record_count": rows, "file_size_in_bytes": size, "column_sizes": None,
         "value_counts": None, "null_value_counts": None, "nan_value_counts": None,
         "lower_bounds": None, "upper_bounds": None, "key_metadata": None,
         "split_offsets": None, "equality_ids": None, "sort_order_id": None,
         "first_row_id": None, "referenced_data_file": None, "content_offset": None,
         "content_size_in_bytes": None}
    d.update(extra)
    return d


def mapped(src, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "data"))
    os.makedirs(os.path.join(out, "metadata"))
    shutil.copy(src, os.path.join(out, "data", "noids.parquet"))
    schema = json.loads(json.dumps(SCHEMA))
    schema["fields"][0]["name"] = "breed"
    # the names as the file has them (Iceberg Java wrote them Avro-sanitised)
    mapping = [{"field-id": 1, "names": ["breed", "Breed_x20Name"]},
               {"field-id": 2, "names": ["Average_x20Weight"]},
               {"field-id": 8, "names": ["Popularity_x20Rank"]}]
    files = [data_file(0, "data/noids.parquet", "PARQUET", 21,
                       os.path.getsize(os.path.join(out, "data", "noids.parquet")))]
    entries = [{"status": 1, "snapshot_id": 3000001, "sequence_number": None,
                "file_sequence_number": None, "data_file": f} for f in files]
    mpath = os.path.join(out, "metadata", "m1.avro")
    write_avro(mpath, entry_schema(), entries, {
        "schema": json.dumps(schema), "schema-id": "0", "partition-spec": "[]",
        "partition-spec-id": "0", "format-version": "2", "content": "data"})
    lst = [{"manifest_path": LOCATION + "/metadata/m1.avro", "manifest_length": os.path.getsize(mpath),
            "partition_spec_id": 0, "content": 0, "sequence_number": 1, "min_sequence_number": 1,
            "added_snapshot_id": 3000001, "added_files_count": 1, "existing_files_count": 0,
            "deleted_files_count": 0, "added_rows_count": 21, "existing_rows_count": 0,
            "deleted_rows_count": 0, "partitions": [], "key_metadata": None, "first_row_id": None}]
    write_avro(os.path.join(out, "metadata", "snap-3000001.avro"), MANIFEST_FILE, lst,
               {"snapshot-id": "3000001", "sequence-number": "1", "format-version": "2"})
    metadata = {
        "format-version": 2, "table-uuid": UUID, "location": LOCATION, "last-sequence-number": 1,
        "last-updated-ms": BASE_MS, "last-column-id": 8, "current-schema-id": 0, "schemas": [schema],
        "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
        "last-partition-id": 999, "default-sort-order-id": 0,
        "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": {"schema.name-mapping.default": json.dumps(mapping)},
        "current-snapshot-id": 3000001,
        "snapshots": [{"snapshot-id": 3000001, "sequence-number": 1, "timestamp-ms": BASE_MS,
                       "manifest-list": LOCATION + "/metadata/snap-3000001.avro", "schema-id": 0,
                       "summary": {"operation": "append"}}],
        "snapshot-log": [{"timestamp-ms": BASE_MS, "snapshot-id": 3000001}], "metadata-log": []}
    with open(os.path.join(out, "metadata", "v1.metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)


NESTED_SCHEMA = {"type": "struct", "schema-id": 1, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 5, "name": "l", "required": False,
     "type": {"type": "list", "element-id": 6, "element": "long", "element-required": False}},
    {"id": 2, "name": "s", "required": False, "type": {"type": "struct", "fields": [
        {"id": 3, "name": "a", "required": False, "type": "long"},
        {"id": 4, "name": "bee", "required": False, "type": "string"},
        {"id": 10, "name": "c", "required": False, "type": "int"}]}},
    {"id": 7, "name": "m", "required": False,
     "type": {"type": "map", "key-id": 8, "key": "string", "value-id": 9, "value": "long",
              "value-required": False}},
    {"id": 11, "name": "extra", "required": False, "type": "string"}]}


ROWGROUPS_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "v", "required": False, "type": "string"}]}


UUID_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "u", "required": False, "type": "uuid"}]}


def nested(src, out, schema=None, rows=5):
    """A v2 table of one file written by make_parquet.mjs nested (struct<id,
    s struct<a, b>, l list<long>, m map<string, long>> with field ids), read
    with an evolved schema: s.b renamed to bee, s.c and extra added, the
    top-level columns reordered. With `schema`: a table of `rows` rows of that
    schema around the file (rowgroups, uuid: make_parquet.mjs rowgroups, uuid)."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "data"))
    os.makedirs(os.path.join(out, "metadata"))
    schema = schema or NESTED_SCHEMA
    shutil.copy(src, os.path.join(out, "data", "nested.parquet"))
    files = [data_file(0, "data/nested.parquet", "PARQUET", rows,
                       os.path.getsize(os.path.join(out, "data", "nested.parquet")))]
    entries = [{"status": 1, "snapshot_id": 4000001, "sequence_number": None,
                "file_sequence_number": None, "data_file": f} for f in files]
    mpath = os.path.join(out, "metadata", "m1.avro")
    write_avro(mpath, entry_schema(), entries, {
        "schema": json.dumps(schema), "schema-id": str(schema["schema-id"]), "partition-spec": "[]",
        "partition-spec-id": "0", "format-version": "2", "content": "data"})
    lst = [{"manifest_path": LOCATION + "/metadata/m1.avro", "manifest_length": os.path.getsize(mpath),
            "partition_spec_id": 0, "content": 0, "sequence_number": 1, "min_sequence_number": 1,
            "added_snapshot_id": 4000001, "added_files_count": 1, "existing_files_count": 0,
            "deleted_files_count": 0, "added_rows_count": rows, "existing_rows_count": 0,
            "deleted_rows_count": 0, "partitions": [], "key_metadata": None, "first_row_id": None}]
    write_avro(os.path.join(out, "metadata", "snap-4000001.avro"), MANIFEST_FILE, lst,
               {"snapshot-id": "4000001", "sequence-number": "1", "format-version": "2"})
    metadata = {
        "format-version": 2, "table-uuid": UUID, "location": LOCATION, "last-sequence-number": 1,
        "last-updated-ms": BASE_MS, "last-column-id": 11, "current-schema-id": schema["schema-id"],
        "schemas": [schema], "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": {}, "current-snapshot-id": 4000001,
        "snapshots": [{"snapshot-id": 4000001, "sequence-number": 1, "timestamp-ms": BASE_MS,
                       "manifest-list": LOCATION + "/metadata/snap-4000001.avro",
                       "schema-id": schema["schema-id"],
                       "summary": {"operation": "append"}}],
        "snapshot-log": [{"timestamp-ms": BASE_MS, "snapshot-id": 4000001}], "metadata-log": []}
    with open(os.path.join(out, "metadata", "v1.metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)


def from_spec(spec_path, out):
    """A table described by a JSON spec:
      {"format-version": 2, "schema": {...}, "properties": {...},
       "files": [{"src": PATH, "content": 0|1|2, "format": "PARQUET"|"AVRO"|"ORC",
                  "rows": N, "equality_ids": [...]}, ...]}
    Each file is copied to data/ and added by its own snapshot (sequence
    numbers 1, 2, ...), so a delete file applies to the data files before it.
    Snapshot ids are 5000001, 5000002, ...; the table's location is LOCATION."""
    spec = json.load(open(spec_path))
    version = spec.get("format-version", 2)
    schema = spec["schema"]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "data"))
    os.makedirs(os.path.join(out, "metadata"))
    manifests, snapshots, log = [], [], []
    for k, f in enumerate(spec["files"], start=1):
        name = os.path.basename(f["src"])
        shutil.copy(f["src"], os.path.join(out, "data", name))
        snapshot_id = 5000000 + k
        extra = {}
        if f.get("equality_ids"):
            extra["equality_ids"] = f["equality_ids"]
        content = f.get("content", 0)
        df = data_file(content, "data/" + name, f.get("format", "PARQUET"), f["rows"],
                       os.path.getsize(os.path.join(out, "data", name)), **extra)
        entries = [{"status": 1, "snapshot_id": snapshot_id, "sequence_number": None,
                    "file_sequence_number": None, "data_file": df}]
        stem = "m%d" % k
        mpath = os.path.join(out, "metadata", stem + ".avro")
        write_avro(mpath, entry_schema(), entries, {
            "schema": json.dumps(schema), "schema-id": str(schema["schema-id"]),
            "partition-spec": "[]", "partition-spec-id": "0", "format-version": str(version),
            "content": "deletes" if content else "data"})
        manifests.append({
            "manifest_path": LOCATION + "/metadata/" + stem + ".avro",
            "manifest_length": os.path.getsize(mpath), "partition_spec_id": 0,
            "content": 1 if content else 0, "sequence_number": k, "min_sequence_number": k,
            "added_snapshot_id": snapshot_id, "added_files_count": 1, "existing_files_count": 0,
            "deleted_files_count": 0, "added_rows_count": f["rows"], "existing_rows_count": 0,
            "deleted_rows_count": 0, "partitions": [], "key_metadata": None, "first_row_id": None})
        list_name = "snap-%d.avro" % snapshot_id
        write_avro(os.path.join(out, "metadata", list_name), MANIFEST_FILE, manifests,
                   {"snapshot-id": str(snapshot_id), "sequence-number": str(k),
                    "format-version": str(version)})
        snap = {"snapshot-id": snapshot_id, "sequence-number": k,
                "timestamp-ms": BASE_MS + 60000 * k,
                "manifest-list": LOCATION + "/metadata/" + list_name,
                "schema-id": schema["schema-id"],
                "summary": {"operation": "delete" if content else "append"}}
        if k > 1:
            snap["parent-snapshot-id"] = snapshot_id - 1
        snapshots.append(snap)
        log.append({"timestamp-ms": snap["timestamp-ms"], "snapshot-id": snapshot_id})

    def max_id(fields):
        m = 0
        for fl in fields:
            m = max(m, fl["id"])
            t = fl["type"]
            if isinstance(t, dict):
                m = max(m, max_id(t.get("fields", [])), t.get("element-id", 0),
                        t.get("key-id", 0), t.get("value-id", 0))
        return m
    metadata = {
        "format-version": version, "table-uuid": UUID, "location": LOCATION,
        "last-sequence-number": len(snapshots), "last-updated-ms": BASE_MS,
        "last-column-id": max_id(schema["fields"]), "current-schema-id": schema["schema-id"],
        "schemas": [schema], "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": spec.get("properties", {}),
        "current-snapshot-id": snapshots[-1]["snapshot-id"],
        "snapshots": snapshots, "snapshot-log": log, "metadata-log": []}
    if version >= 3:
        metadata["next-row-id"] = 0
    with open(os.path.join(out, "metadata", "v1.metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)


def main():
    if sys.argv[1] == "spec":
        from_spec(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "mapped":
        mapped(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "nested":
        nested(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "rowgroups":
        nested(sys.argv[2], sys.argv[3], ROWGROUPS_SCHEMA, 20480)
        return
    if sys.argv[1] == "uuid":
        nested(sys.argv[2], sys.argv[3], UUID_SCHEMA, 6)
        return
    assert sys.argv[1] == "deletes"
    corpus, out = sys.argv[2], sys.argv[3]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "data"))
    os.makedirs(os.path.join(out, "metadata"))
    bunnies = os.path.join(corpus, "icebird/hyperparam-iceberg/java/bunnies/data")
    for name in ["bunnies-initial.parquet", "bunnies-pos-deletes.parquet",
                 "bunnies-eq-delete-new-zealand.parquet", "bunnies-updated-new-zealand.parquet"]:
        shutil.copy(os.path.join(bunnies, name), os.path.join(out, "data", name))
    shutil.copy(os.path.join(corpus, "deletion-vectors/iceberg-go/deletion-vector-v1.puffin"),
                os.path.join(out, "data", "dv.puffin"))
    offset, length = puffin_blob(os.path.join(out, "data", "dv.puffin"))

    def size(rel):
        return os.path.getsize(os.path.join(out, rel))

    initial = LOCATION + "/data/bunnies-initial.parquet"
    steps = [
        (0, [data_file(0, "data/bunnies-initial.parquet", "PARQUET", 21, size("data/bunnies-initial.parquet"))], 21),
        (1, [data_file(1, "data/bunnies-pos-deletes.parquet", "PARQUET", 6, size("data/bunnies-pos-deletes.parquet"))], 0),
        (1, [data_file(1, "data/dv.puffin", "PUFFIN", 5, size("data/dv.puffin"),
                       referenced_data_file=initial, content_offset=offset,
                       content_size_in_bytes=length)], 0),
        (1, [data_file(2, "data/bunnies-eq-delete-new-zealand.parquet", "PARQUET", 1,
                       size("data/bunnies-eq-delete-new-zealand.parquet"), equality_ids=[1])], 0),
        (0, [data_file(0, "data/bunnies-updated-new-zealand.parquet", "PARQUET", 1,
                       size("data/bunnies-updated-new-zealand.parquet"))], 1),
    ]
    manifests, snapshots, log = [], [], []
    next_row_id = 0
    for k, (content, files, added_rows) in enumerate(steps, start=1):
        snapshot_id = 2000000 + k
        stem = "%s-m%d" % (UUID, k)
        entries = [{"status": 1, "snapshot_id": snapshot_id, "sequence_number": None,
                    "file_sequence_number": None, "data_file": f} for f in files]
        mpath = os.path.join(out, "metadata", stem + ".avro")
        write_avro(mpath, entry_schema(), entries, {
            "schema": json.dumps(SCHEMA), "schema-id": "0", "partition-spec": "[]",
            "partition-spec-id": "0", "format-version": "3",
            "content": "deletes" if content else "data"})
        manifests.append({
            "manifest_path": LOCATION + "/metadata/" + stem + ".avro",
            "manifest_length": os.path.getsize(mpath), "partition_spec_id": 0, "content": content,
            "sequence_number": k, "min_sequence_number": k, "added_snapshot_id": snapshot_id,
            "added_files_count": len(files), "existing_files_count": 0, "deleted_files_count": 0,
            "added_rows_count": sum(f["record_count"] for f in files), "existing_rows_count": 0,
            "deleted_rows_count": 0, "partitions": [], "key_metadata": None,
            "first_row_id": next_row_id if content == 0 else None})
        list_name = "snap-%d-1-%s.avro" % (snapshot_id, UUID)
        meta = {"snapshot-id": str(snapshot_id), "sequence-number": str(k), "format-version": "3"}
        if k > 1:
            meta["parent-snapshot-id"] = str(snapshot_id - 1)
        write_avro(os.path.join(out, "metadata", list_name), MANIFEST_FILE, manifests, meta)
        snap = {"snapshot-id": snapshot_id, "sequence-number": k, "timestamp-ms": BASE_MS + 60000 * k,
                "manifest-list": LOCATION + "/metadata/" + list_name, "schema-id": 0,
                "first-row-id": next_row_id, "added-rows": added_rows,
                "summary": {"operation": "append" if content == 0 else "delete"}}
        next_row_id += added_rows
        if k > 1:
            snap["parent-snapshot-id"] = snapshot_id - 1
        snapshots.append(snap)
        log.append({"timestamp-ms": snap["timestamp-ms"], "snapshot-id": snapshot_id})
    last = snapshots[-1]
    metadata = {
        "format-version": 3, "table-uuid": UUID, "location": LOCATION,
        "last-sequence-number": len(steps), "last-updated-ms": last["timestamp-ms"],
        "last-column-id": 8, "current-schema-id": 0, "schemas": [SCHEMA],
        "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
        "last-partition-id": 999, "default-sort-order-id": 0,
        "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
        "current-snapshot-id": last["snapshot-id"],
        "refs": {"main": {"snapshot-id": last["snapshot-id"], "type": "branch"},
                 "with-dv": {"snapshot-id": 2000003, "type": "tag"}},
        "snapshots": snapshots, "snapshot-log": log, "metadata-log": [],
        "next-row-id": next_row_id}
    with open(os.path.join(out, "metadata", "v1.metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)


if __name__ == "__main__":
    main()
