#!/usr/bin/python3
"""Schema resolution oracle: for each case of resolution_cases.json, encodes
the datum with the writer's schema and reads it back with
avro.io.DatumReader(writer, reader) from Debian's python3-avro.

Prints one line per case, tab-separated:
    name, writer schema, reader schema, datum hex, expected, source
`expected` is the canonical JSON line of the value read (canon_json.py) or
"__ERROR__" when the read fails. `source` is "python", or "table" for the
cases where python3-avro 1.11 does not follow the specification, or where
basalt follows Java rather than the specification's letter (the case's
"python" note says which); those carry the expected value in "expect", and the
line says what python3-avro gave instead.

python3-avro hands promoted numbers back unchanged (an int read as a double
stays an int); the value is normalised along the reader's schema (ints to
floats, floats rounded to 32 bits where the reader says float), which is the
value the specification describes.
"""
import io
import json
import os
import struct
import sys

import avro.io
import avro.schema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from canon_json import canonical_line  # noqa: E402


class Names:
    def __init__(self):
        self.named = {}

    def walk(self, s, ns=""):
        if isinstance(s, list):
            for b in s:
                self.walk(b, ns)
        elif isinstance(s, dict):
            t = s["type"]
            if t in ("record", "error", "enum", "fixed"):
                name = s["name"]
                space = s.get("namespace", ns) if "." not in name else name.rsplit(".", 1)[0]
                self.named[name.rsplit(".", 1)[-1]] = s
                if t in ("record", "error"):
                    for f in s["fields"]:
                        self.walk(f["type"], space)
            elif t == "array":
                self.walk(s["items"], ns)
            elif t == "map":
                self.walk(s["values"], ns)
        return self

    def get(self, s):
        if isinstance(s, str) and s not in PRIMS:
            return self.named[s.rsplit(".", 1)[-1]]
        return s


PRIMS = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def kind(s):
    return s if isinstance(s, str) else ("union" if isinstance(s, list) else s["type"])


def fits(names, s, v):
    s = names.get(s)
    k = kind(s)
    if k == "null":
        return v is None
    if k == "boolean":
        return isinstance(v, bool)
    if k in ("int", "long"):
        return isinstance(v, int) and not isinstance(v, bool)
    if k in ("float", "double"):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if k in ("string", "enum"):
        return isinstance(v, str)
    if k in ("bytes", "fixed"):
        return isinstance(v, (str, bytes))
    if k in ("record", "error", "map"):
        return isinstance(v, dict)
    if k == "array":
        return isinstance(v, list)
    return False


def exact(names, s, v):
    k = kind(names.get(s))
    if isinstance(v, bool):
        return k == "boolean"
    if isinstance(v, int):
        return k in ("int", "long")
    if isinstance(v, float):
        return k in ("float", "double")
    return fits(names, s, v)


def convert(names, s, v, to_bytes):
    """Walks v along schema s: bytes <-> latin1 strings, numbers to the reader's type."""
    s = names.get(s)
    k = kind(s)
    if k == "union":
        # the branch of the value's own kind first (an int stays an int),
        # then any branch it fits
        for b in s:
            if exact(names, b, v):
                return convert(names, b, v, to_bytes)
        for b in s:
            if fits(names, b, v):
                return convert(names, b, v, to_bytes)
        raise ValueError("no branch for %r" % (v,))
    if k in ("bytes", "fixed"):
        if to_bytes:
            return v.encode("latin1") if isinstance(v, str) else v
        return v.decode("latin1") if isinstance(v, bytes) else v
    if k == "double":
        return float(v)
    if k == "float":
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if k in ("record", "error"):
        return {f["name"]: convert(names, f["type"], v[f["name"]], to_bytes)
                for f in s["fields"] if f["name"] in v}
    if k == "array":
        return [convert(names, s["items"], x, to_bytes) for x in v]
    if k == "map":
        return {key: convert(names, s["values"], x, to_bytes) for key, x in v.items()}
    return v


def run_case(case):
    wj, rj = case["writer"], case["reader"]
    writer = avro.schema.parse(json.dumps(wj))
    wnames, rnames = Names().walk(wj), Names().walk(rj)
    buf = io.BytesIO()
    avro.io.DatumWriter(writer).write(convert(wnames, wj, case["datum"], True),
                                      avro.io.BinaryEncoder(buf))
    data = buf.getvalue()
    try:
        reader = avro.schema.parse(json.dumps(rj))
        value = avro.io.DatumReader(writer, reader).read(avro.io.BinaryDecoder(io.BytesIO(data)))
        got = canonical_line(convert(rnames, rj, value, False))
    except Exception:
        got = "__ERROR__"
    if "expect" in case:
        want = case["expect"]
        expected = "__ERROR__" if want == "__ERROR__" else canonical_line(
            convert(rnames, rj, want, False))
        source = "table (python3-avro gives %s: %s)" % (got, case["python"])
    else:
        expected, source = got, "python"
    return "\t".join([case["name"], json.dumps(wj, separators=(",", ":")),
                      json.dumps(rj, separators=(",", ":")), data.hex(), expected, source])


def main(argv):
    with open(argv[1]) as f:
        cases = json.load(f)
    for case in cases:
        print(run_case(case))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
