#!/usr/bin/python3
"""Canonical JSON lines for comparing Avro readers.

The form: one record per line, objects with sorted keys, no spaces, ASCII
with \\u escapes; unions as the bare value of their branch; bytes and fixed as
strings of code points U+0000..U+00FF; floats as Python's repr of the double
(NaN, Infinity, -Infinity bare).

    canon_json.py < lines                         re-emit JSON lines canonically
    canon_json.py --unwrap SCHEMA.avsc < lines    first remove the specification's
                                                  union wrappers ({"type": value}),
                                                  as avro-c's avrocat writes them
    canon_json.py --each FILE...                  FILE -> FILE.canon for each
    canon_json.py --each-unwrap SCHEMA FILE...    the same, unwrapping unions
"""
import json
import sys


def to_plain(value):
    """Python values (as python3-avro returns them) -> JSON-able values."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin1")
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def canonical_line(value):
    return json.dumps(to_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=True)


PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Unwrapper:
    """Walks values along a schema, replacing {"branch": v} with v."""

    def __init__(self, schema):
        self.named = {}
        self.root = self.index(schema, "")

    def index(self, s, ns):
        if isinstance(s, list):
            return [self.index(b, ns) for b in s]
        if isinstance(s, str):
            return s
        t = s.get("type")
        if isinstance(t, (dict, list)):
            return self.index(t, ns)
        if t in ("record", "error", "enum", "fixed"):
            name = s["name"]
            space = s.get("namespace", ns) if "." not in name else name.rsplit(".", 1)[0]
            full = name if "." in name else (space + "." + name if space else name)
            self.named[full] = s
            self.named.setdefault(full.rsplit(".", 1)[-1], s)
            if t in ("record", "error"):
                for f in s["fields"]:
                    f["type"] = self.index(f["type"], space or "")
            return s
        if t == "array":
            s["items"] = self.index(s["items"], ns)
        if t == "map":
            s["values"] = self.index(s["values"], ns)
        return s

    def resolve(self, s):
        while isinstance(s, str) and s not in PRIMITIVES:
            s = self.named.get(s, self.named.get(s.rsplit(".", 1)[-1]))
        return s

    def unwrap(self, s, v):
        s = self.resolve(s)
        if isinstance(s, list):
            if v is None:
                return None
            (label, inner), = v.items()
            for b in s:
                b = self.resolve(b)
                bt = b if isinstance(b, str) else b["type"]
                names = {bt}
                if isinstance(b, dict) and "name" in b:
                    names |= {b["name"], b["name"].rsplit(".", 1)[-1]}
                if label in names or label.rsplit(".", 1)[-1] in names:
                    return self.unwrap(b, inner)
            raise ValueError("no union branch named %r" % label)
        if isinstance(s, str):
            return v
        t = s["type"]
        if t in ("record", "error"):
            return {f["name"]: self.unwrap(f["type"], v[f["name"]]) for f in s["fields"]}
        if t == "array":
            return [self.unwrap(s["items"], x) for x in v]
        if t == "map":
            return {k: self.unwrap(s["values"], x) for k, x in v.items()}
        return v


def canonicalise(inp, out, unwrapper):
    for line in inp:
        if not line.strip():
            continue
        value = json.loads(line)
        if unwrapper is not None:
            value = unwrapper.unwrap(unwrapper.root, value)
        out.write(canonical_line(value) + "\n")


def load_unwrapper(path):
    with open(path) as f:
        return Unwrapper(json.load(f))


def main(argv):
    if len(argv) > 1 and argv[1] in ("--each", "--each-unwrap"):
        files = argv[2:]
        unwrapper = None
        if argv[1] == "--each-unwrap":
            unwrapper, files = load_unwrapper(files[0]), files[1:]
        for path in files:
            with open(path) as inp, open(path + ".canon", "w") as out:
                canonicalise(inp, out, unwrapper)
        return 0
    unwrapper = load_unwrapper(argv[2]) if len(argv) > 2 and argv[1] == "--unwrap" else None
    canonicalise(sys.stdin, sys.stdout, unwrapper)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
