#!/usr/bin/env bash
# basalt's IPC files read by apache-arrow (JS) and Polars: every integration
# gold file of cpp-21.0.0 and 1.0.0-littleendian is rewritten by
# `basalt ipc convert` (file and stream; uncompressed for apache-arrow, LZ4
# and ZSTD too for Polars), and both peers must read the rewrite with the
# values they read from the original. Then apache-arrow writes the tables
# itself and basalt must print the same rows as from the originals.
set -euo pipefail
basalt=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
data=${BASALT_TESTDATA_DIR:-$root/testdata}/arrow-ipc/integration
if ! command -v node >/dev/null || [ ! -d "$root/node_modules/apache-arrow" ] ||
   [ ! -d "$root/node_modules/nodejs-polars" ]; then
  if [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ]; then echo "peers missing"; exit 1; fi
  echo "skip: node, apache-arrow or nodejs-polars missing"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pairs=()
for dir in cpp-21.0.0 1.0.0-littleendian; do
  for f in "$data"/$dir/*.arrow_file; do
    name=$dir-$(basename "$f" .arrow_file)
    "$basalt" ipc convert "$f" "$tmp/$name.arrow" >/dev/null
    "$basalt" ipc convert "$f" "$tmp/$name.stream" --ipc-format stream >/dev/null
    pairs+=("$f" "$tmp/$name.arrow" "$f" "$tmp/$name.stream")
  done
done
(cd "$root" && node tests/cli/ipc_peers.mjs compare "${pairs[@]}" 2>/dev/null)
# Compressed bodies: Polars reads LZ4_FRAME and ZSTD (apache-arrow JS has no codecs).
cpairs=()
for f in "$data"/cpp-21.0.0/generated_{primitive,nested,datetime,decimal,binary}.arrow_file; do
  for c in lz4_frame zstd; do
    out=$tmp/$(basename "$f" .arrow_file)-$c.arrow
    "$basalt" ipc convert "$f" "$out" --compression $c >/dev/null
    cpairs+=("$f" "$out")
  done
done
(cd "$root" && node tests/cli/ipc_peers.mjs compare-polars "${cpairs[@]}" 2>/dev/null | sed 's/^/compressed: /')
# Files apache-arrow writes, read by basalt.
mkdir "$tmp/js"
(cd "$root" && node tests/cli/ipc_peers.mjs jswrite "$tmp/js" "$data"/cpp-21.0.0/*.arrow_file)
n=0 skipped=0
for f in "$tmp"/js/*.js_stream "$tmp"/js/*.js_file; do
  orig=$data/cpp-21.0.0/$(basename "${f%.js_*}")
  # The CLI's table printer has no rendering for some types (views): skip those.
  if ! "$basalt" ipc cat "$orig" --format json > "$tmp/a.json" 2>/dev/null; then
    skipped=$((skipped + 1)); continue
  fi
  "$basalt" ipc cat "$f" --format json > "$tmp/b.json"
  if ! cmp -s "$tmp/a.json" "$tmp/b.json"; then
    echo "basalt reads $(basename "$f") (written by apache-arrow) differently from the original"
    diff "$tmp/a.json" "$tmp/b.json" | head -5
    exit 1
  fi
  n=$((n + 1))
done
echo "basalt read $n files written by apache-arrow with the original values ($skipped skipped: types the printer cannot render)"
[ "$n" -ge 40 ]
echo ok
