#!/usr/bin/env bash
# Where a one-thread Parquet read spends its time, by stage: perf samples
# (cpu-clock, DWARF call stacks) of `basalt parquet scan FILE --threads 1`
# repeated, each sample given to the first stage, in the order below, that
# a frame of its stack belongs to:
#
#   decompression     the codec libraries (snappy, zstd, lz4, brotli, libdeflate)
#   I/O               the kernel reading the file (read/pread, page cache copies)
#   memory            allocation and page faults (malloc/free, mmap, faults)
#   footer            Thrift footer decoding and schema mapping
#   dictionary gather dictionary pages and index-to-value gathers
#   level decode      repetition/definition levels (RLE/bit-packed)
#   value decode      PLAIN/DELTA/BYTE_STREAM_SPLIT values, UTF-8 checks,
#                     spreading values over their null slots
#   assembly          record assembly into Arrow arrays (levels to offsets/validity)
#   other             the rest (process start, scan set-up, the CLI)
#
#   bench/parquet_stages.sh [BASALT] [READS] FILE...
# Needs perf; prints one table row per file, percentages of all samples.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
reads=${2:-40}
shift 2 || true
[ $# -gt 0 ] || { echo "usage: bench/parquet_stages.sh BASALT READS FILE..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-22s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %9s\n' file decomp io memory footer dict levels values assembly other samples "p50 ms"
for f in "$@"; do
  p50=$(taskset -c 1 "$basalt" parquet scan "$f" --threads 1 --repeat "$reads" --warmup 2 | awk '/^p50:/ {print $2}')
  taskset -c 1 perf record -q -o "$tmp/perf.data" --call-graph dwarf,32768 \
    "$basalt" parquet scan "$f" --threads 1 --repeat "$reads" --warmup 2 >/dev/null 2>&1
  perf script -i "$tmp/perf.data" 2>/dev/null | /usr/bin/python3 -c '
import re, sys
stages = [
  ("decomp", r"snappy|ZSTD|zstd|HUF_|FSE_|LZ4|lz4|Brotli|brotli|libdeflate|basalt_codec"),
  ("io", r"vfs_read|ksys_read|ksys_pread|filemap_|copy_to_iter|basalt_input_read"),
  ("memory", r"malloc|_int_free|cfree|calloc|realloc|asm_exc_page_fault|exc_page_fault|clear_page|do_anonymous_page|__mmap|munmap|madvise|basalt_arena"),
  ("footer", r"basalt_thrift|schema_build|basalt_parquet_schema_|basalt_parquet_reader_open|file_metadata"),
  ("dict", r"dict_gather|dict_decode|dictionary|basalt_parquet_dict"),
  ("levels", r"levels_decode|level"),
  ("values", r"plain_decode|delta|byte_stream|check_utf8|column_values|spaced_expand|fixed_direct|binary_direct|decode_bool|rle_decode_bitmap"),
  ("assembly", r"assemble|walk|build_leaf|build_list|build_struct|\bbuild\b"),
]
counts = {name: 0 for name, _ in stages}; counts["other"] = 0; total = 0
def classify(frames):
    for name, pat in stages:
        rx = re.compile(pat)
        if any(rx.search(fr) for fr in frames):
            return name
    return "other"
frames = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.strip():
        if frames:
            counts[classify(frames)] += 1; total += 1; frames = []
        continue
    if line.startswith("\t") or line.startswith(" "):
        parts = line.split(None, 1)
        if len(parts) == 2:
            # the symbol, and the library it is in (codec libraries are stripped)
            frames.append(parts[1].split("+0x")[0] + " " + parts[1].rsplit("(", 1)[-1])
if frames:
    counts[classify(frames)] += 1; total += 1
order = ["decomp", "io", "memory", "footer", "dict", "levels", "values", "assembly", "other"]
print(" ".join("%6.1f%%" % (100.0 * counts[k] / max(total, 1)) for k in order), "%9d" % total)
' > "$tmp/row.txt"
  printf '%-22s %s %9s\n' "$(basename "$f")" "$(cat "$tmp/row.txt")" "$p50"
done
