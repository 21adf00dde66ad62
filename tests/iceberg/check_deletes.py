#!/usr/bin/python3
"""Reads the delete files of a table's current snapshot with python3-avro and
this script's own Puffin and Roaring decoders (written from the Iceberg and
Puffin specifications), and prints what they delete.

    check_deletes.py METADATA_JSON

For every live entry of the current snapshot's delete manifests it checks:
  - the manifest's content is 1 (deletes) and the entry's content 1 or 2;
  - a deletion vector (file_format PUFFIN) names its referenced_data_file,
    its content_offset and content_size_in_bytes equal the Puffin footer's
    offset and length of a deletion-vector-v1 blob whose
    referenced-data-file property names the same file, its record_count
    equals the blob's cardinality property and the positions decoded;
    the blob's length prefix, magic and CRC-32 are right;
  - at most one deletion vector per data file;
  - a position-delete file (Parquet) with referenced_data_file set names a
    live data file.
Prints one line "dv DATA_FILE POSITION" per deleted position (sorted) and a
line "files N position M equality K" counting live delete files. Exits 1 on
any mismatch.
"""
import json
import os
import struct
import sys
import warnings
import zlib

try:
    import avro.datafile
    import avro.errors
    import avro.io
except ImportError:
    print("skipped: python3-avro is missing")
    sys.exit(1 if os.environ.get("BASALT_REQUIRE_PEERS") == "1" else 0)

warnings.filterwarnings("ignore", category=avro.errors.IgnoredLogicalType)


def fail(msg):
    print("check_deletes: " + msg, file=sys.stderr)
    sys.exit(1)


def local(path):
    return path[7:] if path.startswith("file://") else path


def records(path):
    with open(local(path), "rb") as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        meta = {k: v.decode() if isinstance(v, bytes) else v for k, v in reader.meta.items()}
        rows = list(reader)
        reader.close()
    return meta, rows


def roaring32(buf, at):
    """A portable 32-bit Roaring bitmap at buf[at:]: (values, end offset)."""
    cookie = struct.unpack_from("<I", buf, at)[0]
    at += 4
    if cookie & 0xFFFF == 12347:
        size = (cookie >> 16) + 1
        run_bits = buf[at:at + (size + 7) // 8]
        at += (size + 7) // 8
    elif cookie == 12346:
        size = struct.unpack_from("<I", buf, at)[0]
        at += 4
        run_bits = b"\0" * ((size + 7) // 8)
    else:
        fail("bad roaring cookie %d" % cookie)
    header = [struct.unpack_from("<HH", buf, at + 4 * i) for i in range(size)]
    at += 4 * size
    has_runs = cookie & 0xFFFF == 12347
    if not has_runs or size >= 4:
        at += 4 * size  # offsets
    values = []
    for i, (key, card_minus_1) in enumerate(header):
        high = key << 16
        if run_bits[i // 8] >> (i % 8) & 1:
            n = struct.unpack_from("<H", buf, at)[0]
            at += 2
            for _ in range(n):
                start, length = struct.unpack_from("<HH", buf, at)
                at += 4
                values.extend(high | v for v in range(start, start + length + 1))
        elif card_minus_1 + 1 <= 4096:
            vals = struct.unpack_from("<%dH" % (card_minus_1 + 1), buf, at)
            at += 2 * (card_minus_1 + 1)
            values.extend(high | v for v in vals)
        else:
            words = struct.unpack_from("<1024Q", buf, at)
            at += 8192
            for w, word in enumerate(words):
                while word:
                    low = word & -word
                    values.append(high | (w * 64 + low.bit_length() - 1))
                    word ^= low
    return values, at


def dv_positions(blob):
    length = struct.unpack_from(">I", blob, 0)[0]
    if length != len(blob) - 8:
        fail("DV length prefix %d for a blob of %d bytes" % (length, len(blob)))
    if blob[4:8] != b"\xd1\xd3\x39\x64":
        fail("DV magic is wrong")
    crc = struct.unpack_from(">I", blob, len(blob) - 4)[0]
    if zlib.crc32(blob[4:len(blob) - 4]) != crc:
        fail("DV CRC-32 does not match")
    buf = blob[8:len(blob) - 4]
    count = struct.unpack_from("<Q", buf, 0)[0]
    at, out = 8, []
    for _ in range(count):
        key = struct.unpack_from("<I", buf, at)[0]
        vals, at = roaring32(buf, at + 4)
        out.extend((key << 32) | v for v in vals)
    if at != len(buf):
        fail("DV bitmap does not fill the blob")
    return out


def puffin_footer(data):
    if data[:4] != b"PFA1" or data[-4:] != b"PFA1":
        fail("Puffin magic missing")
    size = struct.unpack_from("<i", data, len(data) - 12)[0]
    start = len(data) - 12 - size
    if data[start - 4:start] != b"PFA1":
        fail("Puffin footer magic missing")
    return json.loads(data[start:start + size])


def main():
    meta_path = sys.argv[1]
    with open(meta_path) as f:
        m = json.load(f)
    current = m.get("current-snapshot-id")
    snap = next(s for s in m["snapshots"] if s["snapshot-id"] == current)
    _, manifests = records(snap["manifest-list"])
    live_data, dv_of, lines = set(), {}, []
    counts = {"files": 0, "position": 0, "equality": 0}
    deletes = []
    for mf in manifests:
        _, entries = records(mf["manifest_path"])
        for e in entries:
            if e["status"] == 2:
                continue
            df = e["data_file"]
            if mf["content"] == 0:
                live_data.add(df["file_path"])
            else:
                deletes.append(df)
    for df in deletes:
        counts["files"] += 1
        if df["content"] == 2:
            counts["equality"] += 1
            if not df.get("equality_ids"):
                fail("an equality delete file without equality_ids")
            continue
        if df["content"] != 1:
            fail("a delete manifest holds content %r" % df["content"])
        counts["position"] += 1
        ref = df.get("referenced_data_file")
        if df["file_format"].upper() != "PUFFIN":
            if ref is not None and ref not in live_data:
                fail("position deletes of %s, which is not live" % ref)
            continue
        if ref is None:
            fail("a deletion vector without referenced_data_file")
        if ref in dv_of:
            fail("two deletion vectors for %s" % ref)
        dv_of[ref] = df
        with open(local(df["file_path"]), "rb") as f:
            data = f.read()
        if len(data) != df["file_size_in_bytes"]:
            fail("file_size_in_bytes %d of a %d-byte Puffin file" % (df["file_size_in_bytes"], len(data)))
        blobs = [b for b in puffin_footer(data)["blobs"]
                 if b["properties"].get("referenced-data-file") == ref]
        if len(blobs) != 1:
            fail("%d blobs for %s in %s" % (len(blobs), ref, df["file_path"]))
        b = blobs[0]
        if b["type"] != "deletion-vector-v1" or b["fields"] != [2147483645]:
            fail("blob type or fields wrong: %r" % b)
        if (b["offset"], b["length"]) != (df["content_offset"], df["content_size_in_bytes"]):
            fail("manifest offset/length %r differ from the footer's %r" %
                 ((df["content_offset"], df["content_size_in_bytes"]), (b["offset"], b["length"])))
        positions = dv_positions(data[b["offset"]:b["offset"] + b["length"]])
        if int(b["properties"]["cardinality"]) != len(positions) or df["record_count"] != len(positions):
            fail("cardinality %s / record_count %d but %d positions" %
                 (b["properties"]["cardinality"], df["record_count"], len(positions)))
        lines.extend("dv %s %d" % (ref, p) for p in positions)
    for line in sorted(lines):
        print(line)
    print("files %d position %d equality %d" % (counts["files"], counts["position"], counts["equality"]))


main()
