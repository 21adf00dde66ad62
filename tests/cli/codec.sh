#!/usr/bin/env bash
# basalt codec: round trips through the CLI, interop with the system gzip,
# zstd, xz, bzip2 and lz4 tools where installed, and the exit statuses.
source "$(dirname "$0")/lib.bash"

# A sample with repeats (so every codec compresses it) and some noise.
sample=$tmp/sample
for i in $(seq 1 400); do echo "row $i iceberg parquet avro snapshot manifest $((i * i % 97))"; done >"$sample"
head -c 3000 /dev/urandom >>"$sample"
size=$(wc -c <"$sample")

expect 0 "$basalt" codec list && check "list names every codec" \
  bash -c "for c in uncompressed snappy gzip zlib deflate zstd lz4_raw lz4_hadoop brotli bzip2 xz lz4_frame; do grep -q \"^\$c \" '$tmp/out' || exit 1; done"
expect 0 "$basalt" info && check "info lists the codecs" \
  grep -qx 'codecs: uncompressed snappy gzip zlib deflate zstd lz4_raw lz4_hadoop brotli bzip2 xz lz4_frame' "$tmp/out"

for codec in uncompressed snappy gzip zlib deflate zstd lz4_raw lz4_hadoop brotli bzip2 xz lz4_frame; do
  expect 0 "$basalt" codec compress "$codec" "$sample" "$tmp/c.$codec" &&
    expect 0 "$basalt" codec decompress "$codec" "$tmp/c.$codec" "$tmp/d.$codec" &&
    check "$codec round trip (growing)" cmp -s "$sample" "$tmp/d.$codec"
  expect 0 "$basalt" codec decompress "$codec" "$tmp/c.$codec" "$tmp/e.$codec" --size "$size" &&
    check "$codec round trip (--size)" cmp -s "$sample" "$tmp/e.$codec"
  if [ "$codec" != uncompressed ]; then
    expect 1 "$basalt" codec decompress "$codec" "$tmp/c.$codec" "$tmp/x" --size $((size - 1)) &&
      check "$codec: --size too small is one line" one_line_stderr
  fi
done
expect 0 "$basalt" codec compress zstd "$sample" "$tmp/z19" --level 19 &&
  expect 0 "$basalt" codec decompress zstandard "$tmp/z19" - &&
  check "level 19 and stdout" cmp -s "$sample" "$tmp/out"
expect 0 "$basalt" codec compress gz - "$tmp/stdin.gz" <"$sample" &&
  expect 0 "$basalt" codec decompress gzip "$tmp/stdin.gz" "$tmp/stdin.out" &&
  check "stdin input" cmp -s "$sample" "$tmp/stdin.out"

# Interop with the system tools, each in both directions where it can.
interop() { # TOOL CODEC COMPRESS-CMD DECOMPRESS-CMD
  local tool=$1 codec=$2 comp=$3 decomp=$4
  if ! command -v "$tool" >/dev/null; then echo "skip: $tool not installed"; return; fi
  bash -c "$comp" <"$sample" >"$tmp/t.$tool" &&
    expect 0 "$basalt" codec decompress "$codec" "$tmp/t.$tool" "$tmp/t.$tool.out" &&
    check "$tool output read by basalt" cmp -s "$sample" "$tmp/t.$tool.out"
  if [ -n "$decomp" ]; then
    expect 0 "$basalt" codec compress "$codec" "$sample" "$tmp/b.$tool" &&
      check "basalt $codec read by $tool" bash -c "$decomp <'$tmp/b.$tool' | cmp -s - '$sample'"
  fi
}
interop gzip gzip "gzip -c -9" "gzip -dc"
interop zstd zstd "zstd -q -c" "zstd -q -dc"
interop xz xz "xz -c" "xz -dc"
interop bzip2 bzip2 "bzip2 -c" "bzip2 -dc"
interop lz4 lz4 "lz4 -q -c" ""
interop lz4 lz4_frame "lz4 -q -c" "lz4 -q -dc"
# Concatenated members / streams / frames, as the tools write with cat.
if command -v gzip >/dev/null; then
  { gzip -c "$sample"; gzip -c "$sample"; } >"$tmp/two.gz"
  cat "$sample" "$sample" >"$tmp/two"
  expect 0 "$basalt" codec decompress gzip "$tmp/two.gz" "$tmp/two.out" &&
    check "two gzip members" cmp -s "$tmp/two" "$tmp/two.out"
fi
if command -v zstd >/dev/null; then
  { zstd -q -c <"$sample"; zstd -q -c <"$sample"; } >"$tmp/two.zst"
  expect 0 "$basalt" codec decompress zstd "$tmp/two.zst" "$tmp/two.out" &&
    check "two zstd frames without content size" cmp -s "$tmp/two" "$tmp/two.out"
fi

# Failures exit 1 with one line; usage errors exit 2 with one line.
head -c 100 "$tmp/c.zstd" >"$tmp/trunc.zst"
expect 1 "$basalt" codec decompress zstd "$tmp/trunc.zst" "$tmp/x" && check "truncated: one line" one_line_stderr
check "truncated: message names the codec" grep -q 'CORRUPT: zstd' "$tmp/err"
expect 1 "$basalt" codec decompress gzip "$sample" "$tmp/x" && check "not gzip: one line" one_line_stderr
expect 1 "$basalt" codec decompress gzip "$tmp/c.gzip" "$tmp/x" --limit 100 &&
  check "over --limit: LIMIT" grep -q LIMIT "$tmp/err"
expect 1 "$basalt" codec compress zstd "$tmp/no-such-file" "$tmp/x" && check "missing input: one line" one_line_stderr
expect 2 "$basalt" codec compress lzo "$sample" "$tmp/x" && check "unknown codec: one line" one_line_stderr
expect 2 "$basalt" codec compress zstd "$sample" "$tmp/x" --level 99 && check "bad level: one line" one_line_stderr
expect 2 "$basalt" codec compress gzip "$sample" "$tmp/x" --level abc && check "non-numeric level" one_line_stderr
expect 2 "$basalt" codec compress gzip "$sample" && check "missing OUT" one_line_stderr
expect 2 "$basalt" codec compress gzip "$sample" "$tmp/x" extra && check "extra argument" one_line_stderr
expect 2 "$basalt" codec decompress gzip "$sample" "$tmp/x" --level 3 && check "--level on decompress" one_line_stderr
expect 2 "$basalt" codec decompress gzip "$sample" "$tmp/x" --size && check "--size without value" one_line_stderr
expect 2 "$basalt" codec list extra && check "list takes no arguments" one_line_stderr
expect 0 "$basalt" codec compress --help && check "compress --help" grep -q '^usage: basalt codec compress' "$tmp/out"
expect 0 "$basalt" codec decompress --help
finish
