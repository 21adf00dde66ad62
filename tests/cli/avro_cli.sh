#!/usr/bin/env bash
# basalt avro schema|cat|count: output forms, options, usage errors and
# failures (exit status 0 / 1 / 2, one line on stderr).
source "$(dirname "$0")/lib.bash"
data=$testdata/avro/apache-avro/share/test/data
weather=$data/weather.avro

expect 0 "$basalt" avro --help && check "avro --help lists verbs" grep -q 'verbs:' "$tmp/out"
for verb in schema cat count; do
  expect 0 "$basalt" avro "$verb" --help && check "avro $verb --help" grep -q "usage: basalt avro $verb" "$tmp/out"
  expect 2 "$basalt" avro "$verb" && check "avro $verb without FILE is a usage error" one_line_stderr
  expect 2 "$basalt" avro "$verb" "$weather" --bogus && check "avro $verb: unknown option" one_line_stderr
  expect 1 "$basalt" avro "$verb" "$tmp/missing.avro" && check "avro $verb: missing file" one_line_stderr
done
expect 2 "$basalt" avro frob && check "unknown verb" one_line_stderr

# schema: indented JSON, canonical form, fingerprint (CRC-64-AVRO of the
# canonical form, as python3-avro and the specification compute it)
expect 0 "$basalt" avro schema "$weather" &&
  check "schema is indented JSON with its doc" grep -q '"doc": "A weather reading."' "$tmp/out"
/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"
check "schema output is JSON" test $? -eq 0
expect 0 "$basalt" avro schema --canonical "$weather" &&
  check "canonical form" grep -qx '{"name":"test.Weather","type":"record","fields":\[{"name":"station","type":"string"},{"name":"time","type":"long"},{"name":"temp","type":"int"}\]}' "$tmp/out"
canon=$(cat "$tmp/out")
expect 0 "$basalt" avro schema --fingerprint "$weather"
want=$(/usr/bin/python3 - "$canon" <<'EOF'
import sys
EMPTY = 0xc15d213aa4d7a795
table = []
for i in range(256):
    fp = i
    for _ in range(8):
        fp = (fp >> 1) ^ (EMPTY & -(fp & 1))
    table.append(fp)
fp = EMPTY
for b in sys.argv[1].encode():
    fp = (fp >> 8) ^ table[(fp ^ b) & 0xff]
print("%016x" % fp)
EOF
)
check "fingerprint is the CRC-64-AVRO of the canonical form" test "$(cat "$tmp/out")" = "$want"
expect 0 "$basalt" avro schema "$testdata/avro/apache-avro/share/test/schemas/weather.avsc" &&
  check "schema of a .avsc file" grep -q '"name": "Weather"' "$tmp/out"

# count
expect 0 "$basalt" avro count "$data/syncInMeta.avro" && check "count" test "$(cat "$tmp/out")" = 6001
expect 0 "$basalt" avro count --verify "$data/weather-zstd.avro" && check "count --verify" test "$(cat "$tmp/out")" = 5
bad=$testdata/avro/apache-avro/lang/c/tests/avro-1237-bad-union-discriminant.avro
# its first block frames, but a union branch in it is out of range, and a
# stray byte follows the block
expect 1 "$basalt" avro count "$bad" && check "count frames every block" grep -q 'block 1 at offset' "$tmp/err"
expect 1 "$basalt" avro count --verify "$bad" && check "count --verify decodes the records" grep -q 'block 0 at offset .*union branch 2 out of range' "$tmp/err"

# cat: table by default, --limit, --fields, json
expect 0 "$basalt" avro cat "$weather" && check "table header" grep -qE '^station +time +temp$' "$tmp/out" &&
  check "table rows" test "$(wc -l <"$tmp/out")" -eq 6
expect 0 "$basalt" avro cat --limit 2 --format json "$weather" &&
  check "--limit" test "$(wc -l <"$tmp/out")" -eq 2
expect 0 "$basalt" avro cat --fields temp "$weather" && check "--fields table" grep -qx 'temp' <(head -1 "$tmp/out")
expect 0 "$basalt" avro cat --fields temp --format json --limit 1 "$weather" &&
  check "--fields json" grep -qx '{"temp":0}' "$tmp/out"
expect 2 "$basalt" avro cat --fields nope "$weather" && check "unknown field is a usage error" one_line_stderr
expect 2 "$basalt" avro cat --format xml "$weather" && check "unknown format" one_line_stderr
expect 2 "$basalt" avro cat --limit -3 "$weather" && check "bad limit" one_line_stderr

# a damaged file: the records before the damage, then one line naming it
cp "$weather" "$tmp/broken.avro"
size=$(stat -c %s "$tmp/broken.avro")
printf 'X' | dd of="$tmp/broken.avro" bs=1 seek=$((size - 5)) conv=notrunc 2>/dev/null
expect 1 "$basalt" avro cat --format json "$tmp/broken.avro" && check "bad sync marker: one line" one_line_stderr &&
  check "bad sync marker named" grep -q 'bad sync marker' "$tmp/err"
head -c $((size - 30)) "$weather" >"$tmp/cut.avro"
expect 1 "$basalt" avro cat "$tmp/cut.avro" && check "truncated file: CORRUPT" grep -q '^basalt: CORRUPT: .*block 0 at offset' "$tmp/err"
finish
