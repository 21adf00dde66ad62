#!/usr/bin/python3
"""A container file of every Avro logical type, written by Debian's
python3-avro, and the text basalt avro cat must print for it.

    pyavro_logical.py write FILE.avro     SCHEMA's records: the FIRST rows, then
                                          200 seeded ones
    pyavro_logical.py expect FILE.avro    the records as canonical JSON lines
                                          (canon_json.py) with logical values
                                          as text, in basalt parquet cat's forms
    pyavro_logical.py duckdb              a DuckDB query of the first rows' d,
                                          dec, tsu, ltu and tu

The expected text comes from python3-avro's decoded values where it decodes
the type (date, time-millis/micros, timestamp-millis/micros: datetime objects;
decimal: Decimal), and from the underlying value where it does not
(timestamp-nanos, local-timestamp-*, uuid on fixed, duration):
  decimal      exact, the scale's digits ("-12.30")
  date         YYYY-MM-DD
  time-*       HH:MM:SS.fff / .ffffff
  timestamp-*  YYYY-MM-DDTHH:MM:SS.fff / .ffffff / .fffffffff, then Z for
               UTC ones, nothing for local-timestamp-* and Iceberg's
               "adjust-to-utc": false
  uuid         8-4-4-4-12 lowercase (a string uuid as written)
  duration     {"months": m, "days": d, "nanoseconds": ms * 10^6}
"""
import datetime
import decimal
import json
import random
import struct
import sys
import uuid
import warnings

import avro.datafile
import avro.io
import avro.schema

sys.path.insert(0, __import__("os").path.dirname(__file__))
from canon_json import canonical_line  # noqa: E402

warnings.filterwarnings("ignore")

UTC = datetime.timezone.utc


def lt(t, name, **kw):
    return dict({"type": t, "logicalType": name}, **kw)


SCHEMA = {"type": "record", "name": "L", "fields": [
    {"name": "id", "type": "int"},
    {"name": "d", "type": lt("int", "date")},
    {"name": "dec", "type": lt("bytes", "decimal", precision=9, scale=2)},
    {"name": "fdec", "type": {"type": "fixed", "name": "FD", "size": 8, "logicalType": "decimal",
                              "precision": 18, "scale": 4}},
    {"name": "wide", "type": lt("bytes", "decimal", precision=40, scale=0)},
    {"name": "tm", "type": lt("int", "time-millis")},
    {"name": "tu", "type": lt("long", "time-micros")},
    {"name": "tsm", "type": lt("long", "timestamp-millis")},
    {"name": "tsu", "type": ["null", lt("long", "timestamp-micros")]},
    {"name": "tsn", "type": lt("long", "timestamp-nanos")},
    {"name": "its", "type": lt("long", "timestamp-micros", **{"adjust-to-utc": False})},
    {"name": "ltm", "type": lt("long", "local-timestamp-millis")},
    {"name": "ltu", "type": lt("long", "local-timestamp-micros")},
    {"name": "ltn", "type": lt("long", "local-timestamp-nanos")},
    {"name": "su", "type": lt("string", "uuid")},
    {"name": "fu", "type": {"type": "fixed", "name": "U16", "size": 16, "logicalType": "uuid"}},
    {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}},
    {"name": "dates", "type": {"type": "array", "items": lt("int", "date")}},
    {"name": "prices", "type": {"type": "map", "values": ["null", lt("bytes", "decimal", precision=9, scale=2)]}},
    {"name": "rec", "type": ["null", {"type": "record", "name": "R", "fields": [
        {"name": "at", "type": lt("long", "timestamp-micros")},
        {"name": "day", "type": ["null", lt("int", "date")]}]}]},
    {"name": "multi", "type": ["null", lt("int", "date"), "string", lt("long", "timestamp-millis")]},
    {"name": "raw", "type": "bytes"},
]}

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
DAY0 = datetime.date(1970, 1, 1)


class Tagged:
    def __init__(self, branch, value):
        self.branch, self.value = branch, value


class Writer(avro.io.DatumWriter):
    """Union branches chosen by the rows (python3-avro 1.11 picks the last
    branch a value validates against)."""

    def write(self, datum, encoder):
        self.write_data(self.writers_schema, datum, encoder)

    def write_union(self, writers_schema, datum, encoder):
        encoder.write_long(datum.branch)
        self.write_data(writers_schema.schemas[datum.branch], datum.value, encoder)


class BranchReader(avro.io.DatumReader):
    """python3-avro's values, unions with the schema of their branch."""

    def read_union(self, writers_schema, readers_schema, decoder):
        i = int(decoder.read_long())
        branch = writers_schema.schemas[i]
        return ("@union", branch, self.read_data(branch, branch, decoder))


def unscaled(d, scale):
    return int(d.scaleb(scale))


def row(rng, i):
    days = rng.randrange(-700000, 2900000)  # years 53 .. 9909
    ms = rng.randrange(-62000000000000, 253000000000000)
    us = ms * 1000 + rng.randrange(1000)
    ns = rng.randrange(-2 ** 63, 2 ** 63)  # years 1677 .. 2262
    dec = decimal.Decimal(rng.randrange(-999999000, 999999000)).scaleb(-2)
    return {
        "id": i,
        "d": DAY0 + datetime.timedelta(days=days),
        "dec": dec,
        "fdec": decimal.Decimal(rng.randrange(-10 ** 18 + 1, 10 ** 18)).scaleb(-4),
        "wide": decimal.Decimal(rng.randrange(-10 ** 40 + 1, 10 ** 40)),
        "tm": (datetime.datetime(2000, 1, 1) + datetime.timedelta(milliseconds=rng.randrange(86400000))).time(),
        "tu": (datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=rng.randrange(86400000000))).time(),
        "tsm": EPOCH + datetime.timedelta(milliseconds=ms),
        "tsu": rng.choice([Tagged(0, None), Tagged(1, EPOCH + datetime.timedelta(microseconds=us))]),
        "tsn": ns,
        "its": EPOCH + datetime.timedelta(microseconds=us),
        "ltm": ms,
        "ltu": us,
        "ltn": ns,
        "su": str(uuid.UUID(int=rng.getrandbits(128))),
        "fu": rng.getrandbits(128).to_bytes(16, "big"),
        "dur": struct.pack("<III", rng.randrange(2 ** 32), rng.randrange(2 ** 32), rng.randrange(2 ** 32)),
        "dates": [DAY0 + datetime.timedelta(days=rng.randrange(-1000, 1000)) for _ in range(rng.randrange(3))],
        "prices": {"p%d" % k: rng.choice([Tagged(0, None), Tagged(1, dec + k)]) for k in range(rng.randrange(3))},
        "rec": rng.choice([Tagged(0, None), Tagged(1, {
            "at": EPOCH + datetime.timedelta(microseconds=us),
            "day": rng.choice([Tagged(0, None), Tagged(1, DAY0 + datetime.timedelta(days=days))])})]),
        "multi": rng.choice([Tagged(0, None), Tagged(1, DAY0 + datetime.timedelta(days=days)),
                             Tagged(2, "s%d" % i), Tagged(3, EPOCH + datetime.timedelta(milliseconds=ms))]),
        "raw": bytes([i % 256, 0, 255]),
    }


# Rows with the same values as the DuckDB table of tests/cli/avro_logical.sh.
def first_rows(rng):
    rows = []
    for i, (day, dec, us) in enumerate([
            (datetime.date(2024, 2, 29), "-12.30", 1704164645678901),
            (datetime.date(1969, 12, 31), "0.05", -1),
            (datetime.date(1, 1, 1), "9999999.99", -62135596800000000)]):
        r = row(rng, i)
        r["d"] = day
        r["dec"] = decimal.Decimal(dec)
        r["tsu"] = Tagged(1, EPOCH + datetime.timedelta(microseconds=us))
        r["ltu"] = us
        r["tu"] = (datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=us % 86400000000)).time()
        rows.append(r)
    return rows


def clock(h, m, s, frac, digits):
    text = "%02d:%02d:%02d" % (h, m, s)
    return text + (".%0*d" % (digits, frac) if digits else "")


def stamp(dt, frac, digits, zoned):
    return "%04d-%02d-%02dT%s%s" % (dt.year, dt.month, dt.day,
                                    clock(dt.hour, dt.minute, dt.second, frac, digits),
                                    "Z" if zoned else "")


def from_ticks(v, per_second, digits, zoned):
    secs, frac = divmod(v, per_second)
    dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=secs)
    return stamp(dt, frac, digits, zoned)


def expected(schema, v):
    if isinstance(v, tuple) and len(v) == 3 and v[0] == "@union":
        return expected(v[1], v[2])
    t = schema.type
    if t == "record":
        return {f.name: expected(f.type, v[f.name]) for f in schema.fields}
    if t == "array":
        return [expected(schema.items, x) for x in v]
    if t == "map":
        return {k: expected(schema.values, x) for k, x in v.items()}
    lt_name = schema.get_prop("logicalType")
    if v is None or lt_name is None:
        return v
    if lt_name == "decimal":
        return format(v, "f")
    if lt_name == "date":
        return "%04d-%02d-%02d" % (v.year, v.month, v.day)
    if lt_name == "time-millis":
        return clock(v.hour, v.minute, v.second, v.microsecond // 1000, 3)
    if lt_name == "time-micros":
        return clock(v.hour, v.minute, v.second, v.microsecond, 6)
    if lt_name == "timestamp-millis":
        return stamp(v.astimezone(UTC), v.microsecond // 1000, 3, True)
    if lt_name == "timestamp-micros":
        # Iceberg's timestamps without zone: "adjust-to-utc": false
        return stamp(v.astimezone(UTC), v.microsecond, 6, schema.get_prop("adjust-to-utc") is not False)
    if lt_name == "timestamp-nanos":
        return from_ticks(v, 10 ** 9, 9, True)
    if lt_name == "local-timestamp-millis":
        return from_ticks(v, 10 ** 3, 3, False)
    if lt_name == "local-timestamp-micros":
        return from_ticks(v, 10 ** 6, 6, False)
    if lt_name == "local-timestamp-nanos":
        return from_ticks(v, 10 ** 9, 9, False)
    if lt_name == "uuid":
        return v if isinstance(v, str) else str(uuid.UUID(bytes=bytes(v)))
    if lt_name == "duration":
        months, days, ms = struct.unpack("<III", bytes(v))
        return {"months": months, "days": days, "nanoseconds": ms * 10 ** 6}
    raise ValueError("logical type %s" % lt_name)


def main(argv):
    with warnings.catch_warnings():
        # python3-avro 1.11 knows neither nanos, local timestamps, uuid on
        # fixed nor duration: it reads those as their underlying types
        warnings.simplefilter("ignore")
        parsed = avro.schema.parse(json.dumps(SCHEMA))
    if argv[1] == "write":
        rng = random.Random(11)
        with open(argv[2], "wb") as f:
            w = avro.datafile.DataFileWriter(f, Writer(), parsed, codec="deflate")
            for r in first_rows(rng) + [row(rng, i) for i in range(3, 203)]:
                w.append(r)
            w.close()
        return 0
    if argv[1] == "duckdb":
        # the first rows' d, dec, tsu, ltu, tu as a DuckDB query
        rows = []
        for r in first_rows(random.Random(11)):
            ts = r["tsu"].value
            rows.append("(DATE '%s', %s::DECIMAL(9,2), TIMESTAMPTZ '%04d-%s+00', TIMESTAMP '%04d-%s', TIME '%s')" % (
                "%04d-%02d-%02d" % (r["d"].year, r["d"].month, r["d"].day), r["dec"],
                ts.year, ts.strftime("%m-%d %H:%M:%S.%f"), ts.year, ts.strftime("%m-%d %H:%M:%S.%f"),
                r["tu"].strftime("%H:%M:%S.%f")))
        print("SELECT * FROM (VALUES %s) t(d, dec, tsu, ltu, tu)" % ", ".join(rows))
        return 0
    assert argv[1] == "expect"
    with open(argv[2], "rb") as f:
        for rec in avro.datafile.DataFileReader(f, BranchReader()):
            sys.stdout.write(canonical_line(expected(parsed, rec)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
