#!/usr/bin/python3
"""Writes the Iceberg metadata of a table around Parquet data files that
already exist: format v2, unpartitioned, one snapshot per --append, each
adding one manifest; the manifest list of a snapshot keeps the manifests of
the ones before. Manifests and manifest lists are written with Debian's
python3-avro (the independent Avro writer); the metadata JSON by hand.

  /usr/bin/python3 scripts/iceberg_table.py --dir DIR --schema SCHEMA.json \\
      --append data/a.parquet:ROWS[,data/b.parquet:ROWS...] [--append ...] \\
      [--stats STATS.json] [--fake-files] [--final-only] [--location LOC]

SCHEMA.json is an Iceberg schema (a struct with field ids). STATS.json, when
given, holds column metrics per data file path: {"data/a.parquet":
{"value_counts": {"1": N}, "null_value_counts": {...}, "lower_bounds":
{"1": V}, "upper_bounds": {...}}}, bounds as JSON numbers or strings (longs,
ints, dates as days, timestamps as microseconds, decimals as unscaled
integers), stored in the spec's single-value binary form. Data file paths
are relative to DIR; their sizes are read from disk (--fake-files: the files
need not exist, for planning benchmarks; the size is then 1). The table's
location is LOC (default: DIR's absolute path). Snapshot ids, sequence
numbers, timestamps and UUIDs are functions of the arguments, so the same
command writes the same bytes. Writes DIR/metadata/v<N>.metadata.json for
every snapshot N (--final-only: for the last one only) and version-hint.text
with the last N."""
import argparse
import hashlib
import struct
import json
import os
import uuid
import warnings

import avro.datafile
import avro.io
import avro.schema

# python3-avro warns that it does not know Iceberg's "map" logical type on
# arrays of key/value records; the array is what is meant.
warnings.filterwarnings("ignore", message="Unknown map")

BASE_MS = 1767225600000  # 2026-01-01T00:00:00Z


def opt(t):
    return ["null", t]


def manifest_entry_schema(partition_fields):
    """The v2 manifest_entry record (spec: Manifests), field ids included."""
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
        {"name": "partition", "type": {"type": "record", "name": "r102", "fields": partition_fields},
         "field-id": 102},
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
    ]}
    return {"type": "record", "name": "manifest_entry", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "snapshot_id", "type": opt("long"), "default": None, "field-id": 1},
        {"name": "sequence_number", "type": opt("long"), "default": None, "field-id": 3},
        {"name": "file_sequence_number", "type": opt("long"), "default": None, "field-id": 4},
        {"name": "data_file", "type": data_file, "field-id": 2},
    ]}


MANIFEST_FILE_SCHEMA = {"type": "record", "name": "manifest_file", "fields": [
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
]}


def bound_bytes(type_, value):
    """A bound in the single-value binary serialization (spec Appendix D)."""
    if type_ in ("int", "date"):
        return struct.pack("<i", int(value))
    if type_ in ("long", "time", "timestamp", "timestamptz"):
        return struct.pack("<q", int(value))
    if type_ == "float":
        return struct.pack("<f", float(value))
    if type_ == "double":
        return struct.pack("<d", float(value))
    if type_ == "boolean":
        return b"\x01" if value else b"\x00"
    if type_ in ("string", "binary"):
        return str(value).encode()
    if type_.startswith("decimal"):
        n = int(value)
        length = 1
        while not -(1 << (8 * length - 1)) <= n < (1 << (8 * length - 1)):
            length += 1
        return n.to_bytes(length, "big", signed=True)
    raise ValueError("no bound serialization for type %s" % type_)


def metrics(schema, stats):
    """The six metric maps of a data file from its STATS.json entry."""
    types = {str(f["id"]): f["type"] for f in schema["fields"]}
    out = {}
    for key in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts"):
        m = stats.get(key)
        out[key] = None if m is None else [{"key": int(k), "value": int(v)} for k, v in sorted(m.items(), key=lambda kv: int(kv[0]))]
    for key in ("lower_bounds", "upper_bounds"):
        m = stats.get(key)
        out[key] = None if m is None else [{"key": int(k), "value": bound_bytes(types[k], v)}
                                           for k, v in sorted(m.items(), key=lambda kv: int(kv[0]))
                                           if v is not None]
    return out


def write_avro(path, schema, records, meta):
    parsed = avro.schema.parse(json.dumps(schema))
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), parsed, codec="deflate")
        for k, v in meta.items():
            w.set_meta(k, v.encode())
        for r in records:
            w.append(r)
        w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--append", action="append", required=True)
    ap.add_argument("--stats")
    ap.add_argument("--fake-files", action="store_true")
    ap.add_argument("--final-only", action="store_true")
    ap.add_argument("--location")
    a = ap.parse_args()
    root = os.path.abspath(a.dir)
    location = a.location or root
    schema = json.load(open(a.schema))
    schema.setdefault("schema-id", 0)
    stats = json.load(open(a.stats)) if a.stats else {}
    os.makedirs(os.path.join(root, "metadata"), exist_ok=True)
    seed = hashlib.sha256(("%s|%s" % (json.dumps(schema, sort_keys=True), a.append)).encode()).digest()
    table_uuid = str(uuid.UUID(bytes=seed[:16], version=4))
    last_column_id = max(f["id"] for f in schema["fields"])
    entry_schema = manifest_entry_schema([])
    snapshots, manifests, log = [], [], []
    total_rows = total_files = 0
    for k, spec in enumerate(a.append, start=1):
        snapshot_id = 1000000 + k
        files = []
        for item in spec.split(","):
            path, rows = item.rsplit(":", 1)
            size = 1 if a.fake_files else os.path.getsize(os.path.join(root, path))
            files.append((location + "/" + path, int(rows), size, metrics(schema, stats.get(path, {}))))
        stem = "%s-m%d" % (table_uuid, k)
        mpath = os.path.join(root, "metadata", stem + ".avro")
        entries = [{"status": 1, "snapshot_id": snapshot_id, "sequence_number": None,
                    "file_sequence_number": None, "data_file": dict({
                        "content": 0, "file_path": p, "file_format": "PARQUET", "partition": {},
                        "record_count": r, "file_size_in_bytes": s, "key_metadata": None,
                        "split_offsets": None, "equality_ids": None, "sort_order_id": None}, **m)}
                   for p, r, s, m in files]
        write_avro(mpath, entry_schema, entries, {
            "schema": json.dumps(schema), "schema-id": "0", "partition-spec": "[]",
            "partition-spec-id": "0", "format-version": "2", "content": "data"})
        added_rows = sum(r for _, r, _, _ in files)
        manifests.append({
            "manifest_path": location + "/metadata/" + stem + ".avro",
            "manifest_length": os.path.getsize(mpath), "partition_spec_id": 0, "content": 0,
            "sequence_number": k, "min_sequence_number": k, "added_snapshot_id": snapshot_id,
            "added_files_count": len(files), "existing_files_count": 0, "deleted_files_count": 0,
            "added_rows_count": added_rows, "existing_rows_count": 0, "deleted_rows_count": 0,
            "partitions": [], "key_metadata": None})
        list_name = "snap-%d-1-%s.avro" % (snapshot_id, table_uuid)
        meta = {"snapshot-id": str(snapshot_id), "sequence-number": str(k), "format-version": "2"}
        if k > 1:
            meta["parent-snapshot-id"] = str(snapshot_id - 1)
        write_avro(os.path.join(root, "metadata", list_name), MANIFEST_FILE_SCHEMA, manifests, meta)
        total_rows += added_rows
        total_files += len(files)
        snap = {"snapshot-id": snapshot_id, "sequence-number": k, "timestamp-ms": BASE_MS + 60000 * k,
                "manifest-list": location + "/metadata/" + list_name, "schema-id": 0,
                "summary": {"operation": "append", "added-data-files": str(len(files)),
                            "added-records": str(added_rows), "total-data-files": str(total_files),
                            "total-records": str(total_rows), "total-delete-files": "0",
                            "total-position-deletes": "0", "total-equality-deletes": "0"}}
        if k > 1:
            snap["parent-snapshot-id"] = snapshot_id - 1
        snapshots.append(snap)
        log.append({"timestamp-ms": snap["timestamp-ms"], "snapshot-id": snapshot_id})
        metadata = {
            "format-version": 2, "table-uuid": table_uuid, "location": location,
            "last-sequence-number": k, "last-updated-ms": snap["timestamp-ms"],
            "last-column-id": last_column_id, "current-schema-id": 0, "schemas": [schema],
            "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}],
            "last-partition-id": 999, "default-sort-order-id": 0,
            "sort-orders": [{"order-id": 0, "fields": []}],
            "properties": {"write.format.default": "parquet"},
            "current-snapshot-id": snapshot_id, "refs": {"main": {"snapshot-id": snapshot_id, "type": "branch"}},
            "snapshots": list(snapshots), "snapshot-log": list(log),
            "metadata-log": [{"timestamp-ms": BASE_MS + 60000 * j,
                              "metadata-file": location + "/metadata/v%d.metadata.json" % j}
                             for j in range(1, k)]}
        if a.final_only and k < len(a.append):
            continue
        with open(os.path.join(root, "metadata", "v%d.metadata.json" % k), "w") as f:
            json.dump(metadata, f, indent=2)
    with open(os.path.join(root, "metadata", "version-hint.text"), "w") as f:
        f.write(str(len(a.append)))


if __name__ == "__main__":
    main()
