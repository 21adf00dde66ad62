#!/usr/bin/python3
"""Checks basalt's manifests and manifest lists with python3-avro.

    check_manifest.py TEST_ICEBERG_BINARY   runs its manifest_write_pyavro_export
                                            test into a temporary directory
    check_manifest.py --dir DIR             checks files already written there

The test writes manifests (v1, v2, v3), manifest lists and expected.json,
which holds the table the files were written for and, per file, the values
derived from the test's inputs. This script checks, with its own copy of the
spec's tables ("Manifests", "Manifest Lists", Appendix A's Avro types):
  - every field of the version's manifest_entry / data_file / manifest_file /
    field_summary is there with its name, field id and type, required fields
    as the bare type, optional ones as ["null", type] with a null default,
    and no field the version does not define;
  - the partition record has one optional field per spec field, named (or
    sanitized as the Java writer does) and numbered as the spec field, typed
    by the transform's result type in Avro form;
  - maps are arrays of k<key id>_v<value id> records with logicalType map,
    lists carry element-id;
  - the header keys and values, codec deflate;
  - every record's values, decoded by python3-avro;
  - each manifest list entry's manifest_length is the manifest file's size.
Exits 1 on any mismatch. Without python3-avro it says so and passes, unless
BASALT_REQUIRE_PEERS=1.
"""
import datetime
import decimal
import json
import math
import os
import subprocess
import sys
import tempfile
import uuid
import warnings

try:
    import avro.datafile
    import avro.errors
    import avro.io
except ImportError:
    print("skipped: python3-avro is missing")
    sys.exit(1 if os.environ.get("BASALT_REQUIRE_PEERS") == "1" else 0)

warnings.filterwarnings("ignore", category=avro.errors.IgnoredLogicalType)

R, O, A = "required", "optional", None  # presence in one format version

# (field id, name, type, presence in v1, v2, v3). Types: an Avro primitive,
# ("map", key id, value id, value type), ("list", element id, item type),
# ("record", name) for the nested records.
MANIFEST_ENTRY = [
    (0, "status", "int", (R, R, R)),
    (1, "snapshot_id", "long", (R, O, O)),
    (3, "sequence_number", "long", (A, O, O)),
    (4, "file_sequence_number", "long", (A, O, O)),
    (2, "data_file", ("record", "r2"), (R, R, R)),
]
DATA_FILE = [
    (134, "content", "int", (A, R, R)),
    (100, "file_path", "string", (R, R, R)),
    (101, "file_format", "string", (R, R, R)),
    (102, "partition", ("record", "r102"), (R, R, R)),
    (103, "record_count", "long", (R, R, R)),
    (104, "file_size_in_bytes", "long", (R, R, R)),
    (105, "block_size_in_bytes", "long", (R, A, A)),
    (108, "column_sizes", ("map", 117, 118, "long"), (O, O, O)),
    (109, "value_counts", ("map", 119, 120, "long"), (O, O, O)),
    (110, "null_value_counts", ("map", 121, 122, "long"), (O, O, O)),
    (137, "nan_value_counts", ("map", 138, 139, "long"), (O, O, O)),
    (125, "lower_bounds", ("map", 126, 127, "bytes"), (O, O, O)),
    (128, "upper_bounds", ("map", 129, 130, "bytes"), (O, O, O)),
    (131, "key_metadata", "bytes", (O, O, O)),
    (132, "split_offsets", ("list", 133, "long"), (O, O, O)),
    (135, "equality_ids", ("list", 136, "int"), (A, O, O)),
    (140, "sort_order_id", "int", (O, O, O)),
    (142, "first_row_id", "long", (A, A, O)),
    (143, "referenced_data_file", "string", (A, O, O)),
    (144, "content_offset", "long", (A, A, O)),
    (145, "content_size_in_bytes", "long", (A, A, O)),
]
MANIFEST_FILE = [
    (500, "manifest_path", "string", (R, R, R)),
    (501, "manifest_length", "long", (R, R, R)),
    (502, "partition_spec_id", "int", (R, R, R)),
    (517, "content", "int", (A, R, R)),
    (515, "sequence_number", "long", (A, R, R)),
    (516, "min_sequence_number", "long", (A, R, R)),
    (503, "added_snapshot_id", "long", (R, R, R)),
    (504, "added_files_count", "int", (O, R, R)),
    (505, "existing_files_count", "int", (O, R, R)),
    (506, "deleted_files_count", "int", (O, R, R)),
    (512, "added_rows_count", "long", (O, R, R)),
    (513, "existing_rows_count", "long", (O, R, R)),
    (514, "deleted_rows_count", "long", (O, R, R)),
    (507, "partitions", ("list", 508, ("record", "r508")), (O, O, O)),
    (519, "key_metadata", "bytes", (O, O, O)),
    (520, "first_row_id", "long", (A, A, O)),
]
FIELD_SUMMARY = [
    (509, "contains_null", "boolean", (R, R, R)),
    (518, "contains_nan", "boolean", (O, O, O)),
    (510, "lower_bound", "bytes", (O, O, O)),
    (511, "upper_bound", "bytes", (O, O, O)),
]
# The Java writer's v1 manifest_file puts the summaries before the row counts.
V1_LIST_ORDER = [500, 501, 502, 503, 504, 505, 506, 507, 512, 513, 514, 519]
RECORDS = {"r2": DATA_FILE, "r508": FIELD_SUMMARY}
PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}

failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")


# ------------------------------------------------------------ partition types


def result_type(transform, source):
    """The partition field's type: Java's result types (day gives date)."""
    if transform in ("identity", "void") or transform.startswith("truncate"):
        return source
    if transform == "day":
        return "date"
    return "int"  # bucket[N], year, month, hour


def decimal_size(precision):
    """Fewest bytes of a two's complement holding every unscaled value."""
    n = 1
    while 2 ** (8 * n - 1) <= 10 ** precision:
        n += 1
    return n


def avro_form(t):
    """(Avro JSON of Iceberg type t, Java's name of its named type or None)."""
    t = t.replace(" ", "")
    simple = {"boolean": "boolean", "int": "int", "long": "long", "float": "float",
              "double": "double", "string": "string", "binary": "bytes"}
    if t in simple:
        return simple[t], None
    timestamps = {
        "date": {"type": "int", "logicalType": "date"},
        "time": {"type": "long", "logicalType": "time-micros"},
        "timestamp": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False},
        "timestamptz": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True},
        "timestamp_ns": {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": False},
        "timestamptz_ns": {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": True},
    }
    if t in timestamps:
        return timestamps[t], None
    if t == "uuid":
        return {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"}, "uuid_fixed"
    if t.startswith("fixed["):
        n = int(t[6:-1])
        return {"type": "fixed", "name": f"fixed_{n}", "size": n}, f"fixed_{n}"
    if t.startswith("decimal("):
        p, s = (int(x) for x in t[8:-1].split(","))
        name = f"decimal_{p}_{s}"
        return {"type": "fixed", "name": name, "size": decimal_size(p), "logicalType": "decimal",
                "precision": p, "scale": s}, name
    raise ValueError(f"no Avro form for {t}")


def sanitize(name):
    """Java's AvroSchemaUtil.sanitize, for ASCII letters."""
    out = []
    for i, ch in enumerate(name):
        ok = ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z") or (i > 0 and ch.isdigit())
        if ok:
            out.append(ch)
        elif ch.isdigit():
            out.append("_" + ch)
        else:
            out.append("_x" + format(ord(ch), "X"))
    return "".join(out)


def valid_name(name):
    return bool(name) and sanitize(name) == name


def partition_fields(table, spec_id):
    """[(avro name, original name, field id, iceberg type)] of a spec."""
    schema = table["schemas"][0]
    types = {f["id"]: f["type"] for f in schema["fields"]}
    spec = next(s for s in table["partition-specs"] if s["spec-id"] == spec_id)
    out = []
    for f in spec["fields"]:
        t = result_type(f["transform"], types[f["source-id"]])
        name = f["name"] if valid_name(f["name"]) else sanitize(f["name"])
        out.append((name, f["name"], f["field-id"], t))
    return out


# ------------------------------------------------------------ schema checks


class SchemaCheck:
    def __init__(self, where, version, table, spec_id):
        self.where = where
        self.v = version - 1
        self.named = {}  # Avro named types defined so far
        self.partition = partition_fields(table, spec_id) if spec_id is not None else []

    def resolve(self, t):
        if isinstance(t, str) and t not in PRIMITIVES:
            return self.named.get(t)
        return t

    def define(self, t):
        if isinstance(t, dict) and "name" in t:
            if t["name"] in self.named:
                fail(self.where, f"named type {t['name']} defined twice")
            self.named[t["name"]] = t

    def type_matches(self, got, want, where):
        if isinstance(want, str):
            if got != want and got != {"type": want}:
                fail(where, f"type {json.dumps(got)}, expected {want}")
            return
        kind = want[0]
        if kind == "record":
            self.record(got, want[1], where)
        elif kind == "map":
            _, k, v, vt = want
            if not isinstance(got, dict) or got.get("type") != "array" or got.get("logicalType") != "map":
                fail(where, f"not an array with logicalType map: {json.dumps(got)[:120]}")
                return
            items = got["items"]
            self.define(items)
            fields = items.get("fields", [])
            if items.get("name") != f"k{k}_v{v}" or len(fields) != 2:
                fail(where, f"map items {items.get('name')}, expected k{k}_v{v} with 2 fields")
                return
            want_kv = [("key", "int", k), ("value", vt, v)]
            for f, (n, ft, fid) in zip(fields, want_kv):
                if f.get("name") != n or f.get("type") != ft or f.get("field-id") != fid:
                    fail(where, f"map {n}: {json.dumps(f)}")
        elif kind == "list":
            _, eid, item = want
            if not isinstance(got, dict) or got.get("type") != "array":
                fail(where, f"not an array: {json.dumps(got)[:120]}")
                return
            if got.get("element-id") != eid:
                fail(where, f"element-id {got.get('element-id')}, expected {eid}")
            self.type_matches(got["items"], item, where + "[]")

    def fields(self, got_fields, table, where):
        by_id = {}
        for f in got_fields:
            fid = f.get("field-id")
            if not isinstance(fid, int):
                fail(where, f"field {f.get('name')} has no integer field-id")
                continue
            by_id[fid] = f
        known = set()
        for fid, name, t, presence in table:
            p = presence[self.v]
            if p is None:
                if fid in by_id:
                    fail(where, f"field {fid} ({name}) is not in format v{self.v + 1}")
                continue
            known.add(fid)
            f = by_id.get(fid)
            here = f"{where}.{name}"
            if f is None:
                fail(where, f"field {fid} ({name}) is missing")
                continue
            if f.get("name") != name:
                fail(here, f"field {fid} is named {f.get('name')}")
            ft = f.get("type")
            if p == O:
                if not (isinstance(ft, list) and len(ft) == 2 and ft[0] == "null"):
                    fail(here, f"optional field is not [\"null\", T]: {json.dumps(ft)[:120]}")
                    continue
                if "default" not in f or f["default"] is not None:
                    fail(here, "optional field without a null default")
                ft = ft[1]
            elif isinstance(ft, list):
                fail(here, "required field is a union")
                continue
            self.type_matches(ft, t, here)
        for fid, f in by_id.items():
            if fid not in known:
                fail(where, f"unexpected field {fid} ({f.get('name')})")
        order = [f.get("field-id") for f in got_fields]
        want_order = [fid for fid, _, _, pr in table if pr[self.v] is not None]
        if table is MANIFEST_FILE and self.v == 0:
            want_order = V1_LIST_ORDER
        if order != want_order:
            fail(where, f"field order {order}, the spec/Java order is {want_order}")

    def record(self, got, name, where):
        got = self.resolve(got)
        if not isinstance(got, dict) or got.get("type") != "record" or got.get("name") != name:
            fail(where, f"expected record {name}, got {json.dumps(got)[:120]}")
            return
        self.define(got)
        if name == "r102":
            self.partition_record(got, where)
        else:
            self.fields(got["fields"], RECORDS[name], where)

    def partition_record(self, got, where):
        fields = got["fields"]
        if len(fields) != len(self.partition):
            fail(where, f"partition has {len(fields)} fields, the spec {len(self.partition)}")
            return
        for f, (name, original, fid, t) in zip(fields, self.partition):
            here = f"{where}.{original}"
            if f.get("name") != name or f.get("field-id") != fid:
                fail(here, f"named {f.get('name')} id {f.get('field-id')}, expected {name} {fid}")
            if name != original and f.get("iceberg-field-name") != original:
                fail(here, "sanitized without iceberg-field-name")
            ft = f.get("type")
            if not (isinstance(ft, list) and len(ft) == 2 and ft[0] == "null") or f.get("default", 1) is not None:
                fail(here, f"not an optional field: {json.dumps(f)[:120]}")
                continue
            want, named = avro_form(t)
            got_t = ft[1]
            if isinstance(got_t, str) and got_t not in PRIMITIVES:
                if got_t != named or got_t not in self.named:
                    fail(here, f"reference to {got_t}, expected a defined {named}")
                    continue
                got_t = self.named[got_t]
            else:
                self.define(got_t)
            if got_t != want and not (isinstance(want, str) and got_t == {"type": want}):
                fail(here, f"type {json.dumps(got_t)}, expected {json.dumps(want)} for {t}")

    def top(self, schema, name, table):
        if schema.get("type") != "record" or schema.get("name") != name:
            fail(self.where, f"top-level record {schema.get('name')}, expected {name}")
            return
        self.fields(schema["fields"], table, self.where)


# ------------------------------------------------------------ values

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def canonical(v):
    """Decoded values in the canonical form of expected.json."""
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else v
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, uuid.UUID):
        return v.bytes.hex()
    if isinstance(v, decimal.Decimal):
        sign, digits, exponent = v.as_tuple()
        unscaled = int("".join(map(str, digits)) or "0")
        return str(-unscaled if sign else unscaled)
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        return (v - EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, datetime.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
    if isinstance(v, list):
        if v and isinstance(v[0], dict) and set(v[0]) == {"key", "value"}:
            return [[canonical(x["key"]), canonical(x["value"])] for x in v]
        return [canonical(x) for x in v]
    return v


def same(got, want):
    if isinstance(want, float) and isinstance(got, (int, float)):
        return float(got) == want
    return got == want


def check_values(where, record, expected, table, version):
    for fid, name, t, presence in table:
        if presence[version - 1] is None:
            continue
        here = f"{where}.{name}"
        if name not in expected:
            fail(here, "no expected value")
            continue
        got = record.get(name)
        want = expected[name]
        if isinstance(t, tuple) and t[0] == "record":
            if t[1] == "r2":
                check_values(here, got, want, DATA_FILE, version)
            continue  # the partition is checked by field id below
        if name == "partitions" and got is not None:
            got = [[s["contains_null"], s["contains_nan"], canonical(s["lower_bound"]),
                    canonical(s["upper_bound"])] for s in got]
        else:
            got = canonical(got)
        if not same(got, want):
            fail(here, f"{json.dumps(got)[:200]}, expected {json.dumps(want)[:200]}")


def check_partition(where, record, expected, fields):
    for name, original, fid, t in fields:
        got = canonical(record.get(name))
        want = expected.get(str(fid))
        if not same(got, want):
            fail(f"{where}.partition.{original}", f"{json.dumps(got)}, expected {json.dumps(want)}")


# ------------------------------------------------------------ files


def check_file(directory, table, spec):
    where = spec["file"]
    version = spec["format_version"]
    path = os.path.join(directory, where)
    with open(path, "rb") as fh:
        reader = avro.datafile.DataFileReader(fh, avro.io.DatumReader())
        meta = {k: v.decode() for k, v in reader.meta.items()}
        records = list(reader)
        reader.close()
    if meta.get("avro.codec") != "deflate":
        fail(where, f"codec {meta.get('avro.codec')}, expected deflate")
    for key, value in spec["meta"].items():
        if meta.get(key) != value:
            fail(where, f"header {key} = {meta.get(key)!r}, expected {value!r}")
    schema = json.loads(meta["avro.schema"])
    if spec["kind"] == "manifest":
        if version == 1 and "content" in meta:
            fail(where, "v1 manifests have no content key")
        written = json.loads(meta["schema"])
        want = table["schemas"][0]
        strip = lambda fs: [(f["id"], f["name"], f["required"], f["type"].replace(" ", "")) for f in fs]
        if written.get("schema-id") != want["schema-id"] or strip(written["fields"]) != strip(want["fields"]):
            fail(where, "header schema differs from the table's")
        part_spec = next(s for s in table["partition-specs"] if s["spec-id"] == spec["spec_id"])
        if json.loads(meta["partition-spec"]) != part_spec["fields"]:
            fail(where, f"header partition-spec {meta['partition-spec']}")
        SchemaCheck(where, version, table, spec["spec_id"]).top(schema, "manifest_entry", MANIFEST_ENTRY)
        fields = partition_fields(table, spec["spec_id"])
        expected = spec["entries"]
        if len(records) != len(expected):
            fail(where, f"{len(records)} records, expected {len(expected)}")
        for i, (rec, exp) in enumerate(zip(records, expected)):
            check_values(f"{where}[{i}]", rec, exp, MANIFEST_ENTRY, version)
            check_partition(f"{where}[{i}]", rec["data_file"]["partition"], exp["data_file"]["partition"], fields)
    else:
        SchemaCheck(where, version, table, None).top(schema, "manifest_file", MANIFEST_FILE)
        expected = spec["manifests"]
        if len(records) != len(expected):
            fail(where, f"{len(records)} records, expected {len(expected)}")
        for i, (rec, exp) in enumerate(zip(records, expected)):
            exp = dict(exp, manifest_length=os.path.getsize(os.path.join(directory, exp["manifest_path"])))
            check_values(f"{where}[{i}]", rec, exp, MANIFEST_FILE, version)
    return len(records)


def check_dir(directory):
    with open(os.path.join(directory, "expected.json")) as fh:
        expected = json.load(fh)
    for spec in expected["files"]:
        before = len(failures)
        n = check_file(directory, expected["table"], spec)
        print(f"{'ok  ' if len(failures) == before else 'FAIL'} {spec['file']}: {n} records, format v{spec['format_version']}")
    for f in failures:
        print("  " + f)
    if not expected["files"]:
        failures.append("no files to check")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--dir":
        return check_dir(argv[2])
    if len(argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, BASALT_MANIFEST_EXPORT_DIR=d)
        run = subprocess.run([argv[1], "manifest_write_pyavro_export"], env=env)
        if run.returncode != 0:
            print(f"FAIL: {argv[1]} manifest_write_pyavro_export exited {run.returncode}")
            return 1
        return check_dir(d)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
