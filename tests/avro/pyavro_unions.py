#!/usr/bin/python3
"""Container files with unions of several types, written and read back by
Debian's python3-avro, for basalt's Arrow dense unions.

    pyavro_unions.py write FILE.avro [--codec deflate] [--seed N]
        writes 300 seeded records of SCHEMA (small blocks)
    pyavro_unions.py read FILE.avro [--reader-schema FILE.avsc]
        prints the records as canonical JSON lines (canon_json.py), every
        value of a union with two or more non-null branches tagged
        {"@branch": i, "value": v}, i its branch in the reader's union (the
        writer's when there is no reader schema); defaults of reader-only
        union fields tagged with branch 0, the branch a default takes.
    pyavro_unions.py schema       prints SCHEMA
    pyavro_unions.py reader       prints READER (resolution: branches
                                  reordered, int promoted to long, a
                                  reader-only union field with a default)
"""
import json
import random
import sys

import avro.datafile
import avro.io
import avro.schema

sys.path.insert(0, __import__("os").path.dirname(__file__))
from canon_json import canonical_line  # noqa: E402

R = {"type": "record", "name": "R", "fields": [
    {"name": "a", "type": "int"}, {"name": "b", "type": ["int", "string"]}]}
SCHEMA = {"type": "record", "name": "U", "fields": [
    {"name": "id", "type": "long"},
    {"name": "u1", "type": ["null", "int", "string"]},
    {"name": "u2", "type": ["boolean", "int", "string"]},
    {"name": "u3", "type": ["null", "long"]},
    {"name": "u4", "type": {"type": "array", "items": ["null", "double", "string"]}},
    {"name": "u5", "type": ["null", R, {"type": "map", "values": "int"},
                            {"type": "fixed", "name": "F", "size": 2}, "bytes",
                            {"type": "enum", "name": "E", "symbols": ["X", "Y"]}]},
    {"name": "u6", "type": ["string", "null", "int"]},
    {"name": "m", "type": {"type": "map", "values": ["long", "string"]}},
    {"name": "nr", "type": ["null", {"type": "record", "name": "N", "fields": [
        {"name": "w", "type": ["null", "int", "string"]}]}]},
]}
READER = {"type": "record", "name": "U", "fields": [
    {"name": "u6", "type": ["null", "string", "long"]},
    {"name": "id", "type": "long"},
    {"name": "u1", "type": ["string", "null", "long"]},
    {"name": "u2", "type": ["boolean", "int", "string"]},
    {"name": "d", "type": ["int", "string"], "default": 7},
    {"name": "u5", "type": ["null", R, {"type": "map", "values": "int"},
                            {"type": "fixed", "name": "F", "size": 2}, "bytes",
                            {"type": "enum", "name": "E", "symbols": ["X", "Y"]}]},
]}


def real_union(s):
    return isinstance(s, avro.schema.UnionSchema) and \
        sum(1 for b in s.schemas if b.type != "null") >= 2


class TaggingReader(avro.io.DatumReader):
    def read_data(self, ws, rs, decoder):
        if isinstance(rs, avro.schema.UnionSchema) and not isinstance(ws, avro.schema.UnionSchema):
            for k, s in enumerate(rs.schemas):
                if s.match(ws):
                    v = super().read_data(ws, s, decoder)
                    return {"@branch": k, "value": v} if real_union(rs) else v
        return super().read_data(ws, rs, decoder)

    def _read_default_value(self, field_schema, default_value):
        if real_union(field_schema):
            return {"@branch": 0,
                    "value": super()._read_default_value(field_schema.schemas[0], default_value)}
        return super()._read_default_value(field_schema, default_value)


class Tagged:
    """A union value with its branch chosen by the test, not by python3-avro's
    validation (which picks the last branch a value fits)."""

    def __init__(self, branch, value):
        self.branch, self.value = branch, value


class TaggedWriter(avro.io.DatumWriter):
    def write(self, datum, encoder):
        self.write_data(self.writers_schema, datum, encoder)

    def write_union(self, writers_schema, datum, encoder):
        encoder.write_long(datum.branch)
        self.write_data(writers_schema.schemas[datum.branch], datum.value, encoder)


def pick(rng, *choices):
    k = rng.randrange(len(choices))
    return Tagged(choices[k][0], choices[k][1])


def record(rng, i):
    return {
        "id": i,
        "u1": pick(rng, (0, None), (1, rng.randrange(-2**31, 2**31)), (2, "t%d" % i)),
        "u2": pick(rng, (0, True), (0, False), (1, rng.randrange(1000)), (2, "x" * rng.randrange(5))),
        "u3": pick(rng, (0, None), (1, rng.randrange(-2**63, 2**63))),
        "u4": [pick(rng, (0, None), (1, rng.randrange(-5, 5) / 4), (2, "s%d" % rng.randrange(100)),
                    (1, -0.0), (2, "")) for _ in range(rng.randrange(4))],
        "u5": pick(rng, (0, None),
                   (1, {"a": rng.randrange(-9, 9),
                        "b": pick(rng, (0, rng.randrange(9)), (1, "b%d" % i))}),
                   (2, {"k%d" % j: j for j in range(rng.randrange(3))}), (3, bytes([i % 256, 7])),
                   (4, bytes(rng.randrange(256) for _ in range(rng.randrange(4)))),
                   (5, rng.choice(["X", "Y"]))),
        "u6": pick(rng, (0, ""), (0, "v%d" % i), (1, None), (2, -i)),
        "m": {"k%d" % j: pick(rng, (0, j), (1, "s%d" % j)) for j in range(rng.randrange(3))},
        "nr": pick(rng, (0, None), (1, {"w": pick(rng, (0, None), (1, i), (2, "w%d" % i))})),
    }


def main(argv):
    if argv[1] == "schema":
        print(json.dumps(SCHEMA))
        return 0
    if argv[1] == "reader":
        print(json.dumps(READER))
        return 0
    if argv[1] == "write":
        codec = argv[argv.index("--codec") + 1] if "--codec" in argv else "null"
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
        rng = random.Random(seed)
        with open(argv[2], "wb") as f:
            w = avro.datafile.DataFileWriter(f, TaggedWriter(),
                                             avro.schema.parse(json.dumps(SCHEMA)), codec=codec)
            for i in range(300):
                w.append(record(rng, i))
                if i % 64 == 63:
                    w.flush()  # several blocks
            w.close()
        return 0
    assert argv[1] == "read"
    reader_schema = None
    if "--reader-schema" in argv:
        reader_schema = avro.schema.parse(open(argv[argv.index("--reader-schema") + 1]).read())
    with open(argv[2], "rb") as f:
        dr = TaggingReader(readers_schema=reader_schema)
        for rec in avro.datafile.DataFileReader(f, dr):
            sys.stdout.write(canonical_line(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
