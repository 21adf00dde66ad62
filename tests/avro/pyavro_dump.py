#!/usr/bin/python3
"""Prints the records of an Avro container file, read by Debian's python3-avro,
as canonical JSON lines (see canon_json.py for the form).

    pyavro_dump.py FILE [--reader-schema FILE.avsc]
    pyavro_dump.py --each FILE...     writes FILE.py (lines) or FILE.py.err per file

Logical types are read as their underlying types (python3-avro would turn them
into datetime, Decimal, ...), and names outside [A-Za-z_][A-Za-z0-9_]* are
accepted, as basalt's container reader accepts them. On a read error the
records read so far are printed, then "ERROR: ..." on stderr, exit status 1.
"""
import io
import json
import lzma
import sys

import avro.codecs
import avro.datafile
import avro.io
import avro.name
import avro.schema

sys.path.insert(0, __import__("os").path.dirname(__file__))
from canon_json import canonical_line  # noqa: E402

avro.name.validate_basename = lambda basename: None


class XzCodec(avro.codecs.Codec):
    """The specification's "xz" codec, which python3-avro 1.11 lacks: each
    block is one .xz stream (Python's lzma module)."""

    @staticmethod
    def compress(data):
        out = lzma.compress(data, format=lzma.FORMAT_XZ)
        return out, len(out)

    @staticmethod
    def decompress(readers_decoder):
        data = readers_decoder.read_bytes()
        return avro.io.BinaryDecoder(io.BytesIO(lzma.decompress(data, format=lzma.FORMAT_XZ)))


avro.codecs.KNOWN_CODECS.setdefault("xz", XzCodec)


def strip_logical(j):
    if isinstance(j, dict):
        return {k: strip_logical(v) for k, v in j.items() if k != "logicalType"}
    if isinstance(j, list):
        return [strip_logical(v) for v in j]
    return j


def parse_plain(text):
    return avro.schema.parse(json.dumps(strip_logical(json.loads(text))))


def dump(path, out, reader_schema=None):
    with open(path, "rb") as f:
        datum_reader = avro.io.DatumReader()
        reader = avro.datafile.DataFileReader(f, datum_reader)
        datum_reader.writers_schema = parse_plain(reader.schema)
        if reader_schema is not None:
            datum_reader.readers_schema = reader_schema
        for record in reader:
            out.write(canonical_line(record) + "\n")


def main(argv):
    if argv[1] == "--each":
        for path in argv[2:]:
            try:
                with open(path + ".py", "w") as out:
                    dump(path, out)
            except Exception as e:
                with open(path + ".py.err", "w") as err:
                    err.write("ERROR: %r\n" % (e,))
        return 0
    path = argv[1]
    reader_schema = None
    if len(argv) > 3 and argv[2] == "--reader-schema":
        with open(argv[3]) as f:
            reader_schema = parse_plain(f.read())
    out = sys.stdout
    try:
        dump(path, out, reader_schema)
    except Exception as e:  # every failure is reported the same way
        out.flush()
        sys.stderr.write("ERROR: %r\n" % (e,))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
