#!/usr/bin/python3
"""Iceberg data and delete files in Avro, written by Debian's python3-avro
with Iceberg's Avro schema conventions (field-id on fields, element-id on
arrays, key-id / value-id on maps, maps with non-string keys as arrays of
key-value records with logicalType "map", decimals as fixed, uuids as
fixed(16), timestamps as timestamp-micros with adjust-to-utc), and the same
rows as a DuckDB query, for the scan tests (tests/cli/iceberg_formats.sh).

    make_avro_data.py data OUT.avro          the ROWS
    make_avro_data.py duckdb OUT.parquet     a DuckDB statement writing the
                                             ROWS to Parquet with the same ids
    make_avro_data.py schema                 the table schema of the ROWS
    make_avro_data.py evolved                that schema evolved: renames,
                                             promotions, a dropped, an added
                                             and a reordered column, a field
                                             added to and renamed in a struct
    make_avro_data.py posdel DATA_PATH OUT.avro POS...   position deletes
    make_avro_data.py eqdel OUT.avro ID...               equality deletes on id
    make_avro_data.py noids OUT.avro         two rows of (a long, b string)
                                             without field ids
"""
import datetime
import decimal
import json
import sys
import uuid
import warnings

import avro.datafile
import avro.io
import avro.schema

warnings.filterwarnings("ignore")
UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)


def opt(t):
    return ["null", t]


def f(name, fid, t, required=False):
    return {"name": name, "type": t if required else opt(t), "field-id": fid,
            **({} if required else {"default": None})}


AVRO = {"type": "record", "name": "r", "fields": [
    f("id", 1, "long", required=True),
    f("name", 2, "string"),
    f("price", 3, {"type": "fixed", "name": "fixed_4", "size": 4, "logicalType": "decimal",
                   "precision": 9, "scale": 2}),
    f("day", 4, {"type": "int", "logicalType": "date"}),
    f("ts", 5, {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}),
    f("tstz", 6, {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}),
    f("tags", 7, {"type": "array", "items": opt("string"), "element-id": 8}),
    f("attrs", 9, {"type": "map", "values": opt("long"), "key-id": 10, "value-id": 11}),
    f("loc", 12, {"type": "record", "name": "r12", "fields": [
        f("lat", 13, "double"), f("lon", 14, "double")]}),
    f("qty", 15, "int"),
    f("ratio", 16, "float"),
    f("uid", 17, {"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"}),
    f("bin", 18, "bytes"),
    f("t", 19, {"type": "long", "logicalType": "time-micros"}),
    f("im", 20, {"type": "array", "logicalType": "map", "items": {
        "type": "record", "name": "k21_v22", "fields": [
            {"name": "key", "type": "int", "field-id": 21},
            {"name": "value", "type": opt("string"), "field-id": 22, "default": None}]}}),
    f("flag", 23, "boolean"),
]}


def fld(fid, name, t, required=False):
    return {"id": fid, "name": name, "required": required, "type": t}


SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    fld(1, "id", "long", True), fld(2, "name", "string"), fld(3, "price", "decimal(9, 2)"),
    fld(4, "day", "date"), fld(5, "ts", "timestamp"), fld(6, "tstz", "timestamptz"),
    fld(7, "tags", {"type": "list", "element-id": 8, "element": "string", "element-required": False}),
    fld(9, "attrs", {"type": "map", "key-id": 10, "key": "string", "value-id": 11, "value": "long",
                     "value-required": False}),
    fld(12, "loc", {"type": "struct", "fields": [fld(13, "lat", "double"), fld(14, "lon", "double")]}),
    fld(15, "qty", "int"), fld(16, "ratio", "float"), fld(17, "uid", "uuid"), fld(18, "bin", "binary"),
    fld(19, "t", "time"),
    fld(20, "im", {"type": "map", "key-id": 21, "key": "int", "value-id": 22, "value": "string",
                   "value-required": False}),
    fld(23, "flag", "boolean")]}

EVOLVED = {"type": "struct", "schema-id": 1, "fields": [
    fld(15, "qty", "long"), fld(1, "id", "long", True), fld(2, "label", "string"),
    fld(3, "price", "decimal(12, 2)"), fld(16, "ratio", "double"), fld(4, "day", "date"),
    fld(5, "ts", "timestamp"), fld(6, "tstz", "timestamptz"),
    fld(7, "tags", {"type": "list", "element-id": 8, "element": "string", "element-required": False}),
    fld(9, "attrs", {"type": "map", "key-id": 10, "key": "string", "value-id": 11, "value": "long",
                     "value-required": False}),
    fld(12, "loc", {"type": "struct", "fields": [fld(14, "lon", "double"), fld(13, "latitude", "double"),
                                                 fld(25, "alt", "double")]}),
    fld(17, "uid", "uuid"), fld(19, "t", "time"),
    fld(20, "im", {"type": "map", "key-id": 21, "key": "int", "value-id": 22, "value": "string",
                   "value-required": False}),
    fld(23, "flag", "boolean"), fld(26, "extra", "string")]}


def day(y, m, d):
    return datetime.date(y, m, d)


def stamp(*a):
    return datetime.datetime(*a, tzinfo=UTC)


ROWS = [
    dict(id=0, name="alpha", price=decimal.Decimal("12.34"), day=day(2024, 2, 29),
         ts=stamp(2024, 1, 2, 3, 4, 5, 678901), tstz=stamp(1969, 12, 31, 23, 59, 59, 999999),
         tags=["a", None, "c"], attrs={"x": 1, "y": None}, loc={"lat": 1.5, "lon": -2.25}, qty=3,
         ratio=0.5, uid=uuid.UUID("6f1b8f2e-9a4c-4f57-8d2a-3c1e5b7a9d10").bytes, bin=b"\x00\xff",
         t=datetime.time(1, 2, 3, 456789), im=[{"key": 1, "value": "one"}, {"key": -2, "value": None}],
         flag=True),
    dict(id=1, name=None, price=None, day=None, ts=None, tstz=None, tags=None, attrs=None, loc=None,
         qty=None, ratio=None, uid=None, bin=None, t=None, im=None, flag=None),
    dict(id=2, name="", price=decimal.Decimal("-0.05"), day=day(1970, 1, 1),
         ts=stamp(1970, 1, 1), tstz=stamp(2000, 6, 15, 12), tags=[], attrs={},
         loc={"lat": None, "lon": 0.0}, qty=-7, ratio=-1.25, uid=bytes(16), bin=b"",
         t=datetime.time(0, 0), im=[], flag=False),
    dict(id=3, name="delta", price=decimal.Decimal("9999999.99"), day=day(1, 1, 1),
         ts=stamp(1, 1, 1), tstz=stamp(9999, 12, 31, 23, 59, 59, 999999), tags=["d"],
         attrs={"k": -9}, loc={"lat": 90.0, "lon": 180.0}, qty=2147483647, ratio=3.25,
         uid=uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff").bytes, bin=b"abc",
         t=datetime.time(23, 59, 59, 999999), im=[{"key": 7, "value": "seven"}], flag=True),
    dict(id=4, name="echo", price=decimal.Decimal("0.00"), day=day(2000, 1, 1),
         ts=stamp(2262, 4, 11), tstz=None, tags=[None], attrs={"a": 0, "b": 2}, loc=None, qty=4,
         ratio=None, uid=None, bin=b"\n", t=None, im=None, flag=None),
    dict(id=5, name="foxtrot", price=decimal.Decimal("-9999999.99"), day=day(1969, 7, 20),
         ts=None, tstz=stamp(1969, 7, 20, 20, 17, 40), tags=["f", "g"], attrs=None,
         loc={"lat": -33.9, "lon": 18.4}, qty=5, ratio=1e-3, uid=uuid.UUID(int=5).bytes, bin=None,
         t=datetime.time(12, 0, 0, 1), im=[{"key": 0, "value": ""}], flag=False),
    dict(id=6, name="golf", price=decimal.Decimal("1.00"), day=day(2038, 1, 19),
         ts=stamp(2038, 1, 19, 3, 14, 8), tstz=stamp(2038, 1, 19, 3, 14, 7), tags=["h"], attrs={"z": 26},
         loc={"lat": 0.1, "lon": 0.2}, qty=6, ratio=6.5, uid=uuid.UUID(int=6).bytes, bin=b"g",
         t=datetime.time(6, 6, 6), im=[{"key": 6, "value": "six"}], flag=True),
    dict(id=7, name="hotel", price=decimal.Decimal("7.77"), day=day(1999, 12, 31),
         ts=stamp(1999, 12, 31, 23, 59, 59), tstz=stamp(2000, 1, 1), tags=["i", "j", "k"], attrs={"h": 8},
         loc={"lat": 7.0, "lon": -7.0}, qty=-2147483648, ratio=-0.5, uid=uuid.UUID(int=7).bytes,
         bin=b"h\x80", t=datetime.time(7, 7, 7, 7), im=[{"key": 2147483647, "value": "max"}], flag=None),
]


class Writer(avro.io.DatumWriter):
    """python3-avro 1.11 neither writes uuid on fixed nor checks unions the
    way a nullable branch needs; values are written as given."""

    def write(self, datum, encoder):
        self.write_data(self.writers_schema, datum, encoder)

    def write_union(self, writers_schema, datum, encoder):
        branch = 0 if datum is None else 1
        encoder.write_long(branch)
        self.write_data(writers_schema.schemas[branch], datum, encoder)


def write(path, schema, rows, meta=None):
    with open(path, "wb") as out:
        w = avro.datafile.DataFileWriter(out, Writer(), avro.schema.parse(json.dumps(schema)),
                                         codec="deflate")
        for k, v in (meta or {}).items():
            w.set_meta(k, v.encode())
        for r in rows:
            w.append(r)
        w.close()


def sql_value(v, kind):
    if v is None:
        return "NULL"
    if kind == "str":
        return "'" + v.replace("'", "''") + "'"
    if kind == "dec":
        return "%s::DECIMAL(9,2)" % v
    if kind == "date":
        return "DATE '%04d-%02d-%02d'" % (v.year, v.month, v.day)
    if kind in ("ts", "tstz"):
        text = "%04d-%s" % (v.year, v.strftime("%m-%d %H:%M:%S.%f"))
        return "TIMESTAMP '%s'" % text if kind == "ts" else "TIMESTAMPTZ '%s+00'" % text
    if kind == "list":
        return "[%s]::VARCHAR[]" % ", ".join(sql_value(x, "str") for x in v)
    if kind == "map":
        return "MAP {%s}::MAP(VARCHAR, BIGINT)" % ", ".join(
            "%s: %s" % (sql_value(k, "str"), sql_value(x, "long")) for k, x in v.items())
    if kind == "loc":
        return "{'lat': %s, 'lon': %s}::STRUCT(lat DOUBLE, lon DOUBLE)" % (
            sql_value(v["lat"], "double"), sql_value(v["lon"], "double"))
    if kind in ("long", "int"):
        return "(%d)::%s" % (v, "BIGINT" if kind == "long" else "INTEGER")
    if kind in ("double", "float"):
        return "(%r)::%s" % (v, "DOUBLE" if kind == "double" else "FLOAT")
    if kind == "uuid":
        return "'%s'::UUID" % uuid.UUID(bytes=v)
    if kind == "bin":
        return "from_hex('%s')" % v.hex()
    if kind == "time":
        return "TIME '%s'" % v.strftime("%H:%M:%S.%f")
    if kind == "im":
        return "MAP {%s}::MAP(INTEGER, VARCHAR)" % ", ".join(
            "%d: %s" % (e["key"], sql_value(e["value"], "str")) for e in v)
    if kind == "bool":
        return "true" if v else "false"
    raise ValueError(kind)


KINDS = [("id", "long"), ("name", "str"), ("price", "dec"), ("day", "date"), ("ts", "ts"),
         ("tstz", "tstz"), ("tags", "list"), ("attrs", "map"), ("loc", "loc"), ("qty", "int"),
         ("ratio", "float"), ("uid", "uuid"), ("bin", "bin"), ("t", "time"), ("im", "im"),
         ("flag", "bool")]

FIELD_IDS = ("{id: 1, name: 2, price: 3, day: 4, ts: 5, tstz: 6, tags: {__duckdb_field_id: 7, element: 8},"
             " attrs: {__duckdb_field_id: 9, key: 10, value: 11},"
             " loc: {__duckdb_field_id: 12, lat: 13, lon: 14}, qty: 15, ratio: 16, uid: 17, bin: 18,"
             " t: 19, im: {__duckdb_field_id: 20, key: 21, value: 22}, flag: 23}")


def main(argv):
    mode = argv[1]
    if mode == "schema":
        print(json.dumps(SCHEMA))
    elif mode == "evolved":
        print(json.dumps(EVOLVED))
    elif mode == "data":
        write(argv[2], AVRO, ROWS, {"iceberg.schema": json.dumps(SCHEMA)})
    elif mode == "duckdb":
        rows = ["(%s)" % ", ".join(sql_value(r[k], kind) for k, kind in KINDS) for r in ROWS]
        print("SET TimeZone = 'UTC'; COPY (SELECT * FROM (VALUES %s) t(%s)) TO '%s' "
              "(FORMAT parquet, FIELD_IDS %s)" % (", ".join(rows), ", ".join(k for k, _ in KINDS),
                                                 argv[2], FIELD_IDS))
    elif mode == "posdel":
        schema = {"type": "record", "name": "position_delete", "fields": [
            {"name": "file_path", "type": "string", "field-id": 2147483546},
            {"name": "pos", "type": "long", "field-id": 2147483545}]}
        write(argv[3], schema, [{"file_path": argv[2], "pos": int(p)} for p in argv[4:]])
    elif mode == "eqdel":
        schema = {"type": "record", "name": "r", "fields": [{"name": "id", "type": "long", "field-id": 1}]}
        write(argv[2], schema, [{"id": int(i)} for i in argv[3:]])
    elif mode == "noids":
        schema = {"type": "record", "name": "t", "fields": [
            {"name": "a", "type": "long"}, {"name": "b", "type": opt("string")}]}
        write(argv[2], schema, [{"a": 10, "b": "p"}, {"a": 20, "b": None}])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
