#!/usr/bin/env bash
# Differential test over testdata/avro: every container file decodes (avro cat
# --raw: the Avro JSON encoding, logical types as their underlying values) to
# the same records as python3-avro (tests/avro/pyavro_dump.py) and as avro-c's
# avrocat where avrocat reads it, compared as canonical JSON lines
# (tests/avro/canon_json.py); files meant to fail fail cleanly, as the
# reference readers do. tests/avro/corpus_expect.tsv lists every file.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/../avro" && pwd)
corpus=$testdata/avro
manifest=$here/corpus_expect.tsv
py=/usr/bin/python3

if [ ! -d "$corpus" ]; then echo "FAIL: no corpus at $corpus"; exit 1; fi

# Every container file in the corpus has an entry.
while IFS= read -r -d '' f; do
  rel=${f#"$corpus"/}
  check "manifest lists $rel" grep -qF -- "$rel	" "$manifest"
done < <(find "$corpus" -type f \( -name '*.avro' -o -name '*.avro12' \) -print0)

same_lines() { cmp -s "$1" "$2" || { diff "$1" "$2" | head -5; return 1; }; }
stderr_names() { grep -q "^basalt: $1: " "$tmp/err"; }

avrocat_compared=0
while IFS=$'\t' read -r rel want why; do
  case $rel in '#'* | '') continue ;; esac
  f=$corpus/$rel
  if [ "$want" != ok ]; then
    expect 1 "$basalt" avro cat --format json --raw "$f" && check "$rel: one line on stderr" one_line_stderr &&
      check "$rel: fails with $want ($why)" stderr_names "$want"
    check "$rel: python3-avro fails too" bash -c '! "$0" "$1" "$2" >/dev/null 2>&1' \
      "$py" "$here/pyavro_dump.py" "$f"
    continue
  fi
  expect 0 "$basalt" avro cat --format json --raw "$f" || continue
  "$py" "$here/canon_json.py" <"$tmp/out" >"$tmp/ours" 2>"$tmp/canon_err"
  check "$rel: our output is valid JSON lines" test ! -s "$tmp/canon_err"
  if "$py" "$here/pyavro_dump.py" "$f" >"$tmp/python" 2>"$tmp/python_err"; then
    check "$rel: same records as python3-avro" same_lines "$tmp/ours" "$tmp/python"
  else
    check "$rel: python3-avro reads it ($(head -c 120 "$tmp/python_err"))" false
  fi
  # basalt avro count agrees with the number of records.
  expect 0 "$basalt" avro count "$f" &&
    check "$rel: count" test "$(cat "$tmp/out")" = "$(wc -l <"$tmp/ours" | tr -d ' ')"
  # avrocat writes the specification's JSON encoding (unions wrapped) and
  # exits 0 even when it fails, so only its complete, silent runs count.
  case $why in avrocat:*) continue ;; esac
  avrocat "$f" >"$tmp/avrocat" 2>"$tmp/avrocat_err"
  if [ ! -s "$tmp/avrocat_err" ]; then
    "$basalt" avro schema "$f" >"$tmp/schema.avsc"
    "$py" "$here/canon_json.py" --unwrap "$tmp/schema.avsc" <"$tmp/avrocat" >"$tmp/avrocat_canon" 2>&1
    check "$rel: same records as avrocat" same_lines "$tmp/ours" "$tmp/avrocat_canon"
    avrocat_compared=$((avrocat_compared + 1))
  fi
done <"$manifest"
check "avrocat compared on most files ($avrocat_compared)" test "$avrocat_compared" -ge 40

# Projection: --fields equals the same fields cut out of the full records.
w=$corpus/apache-avro/share/test/data/weather-deflate.avro
expect 0 "$basalt" avro cat --format json --fields temp,station "$w" &&
  "$py" "$here/canon_json.py" <"$tmp/out" >"$tmp/fields"
"$basalt" avro cat --format json "$w" |
  "$py" -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l); print(json.dumps({"station": r["station"], "temp": r["temp"]}))' |
  "$py" "$here/canon_json.py" >"$tmp/cut"
check "--fields equals the fields of the full records" same_lines "$tmp/fields" "$tmp/cut"
p=$corpus/apache-avro/lang/js/test/dat/person-10.avro
expect 0 "$basalt" avro cat --format json --fields name,age,address.zipcode,gender "$p" &&
  check "nested and optional fields" grep -q '"address.zipcode":631' "$tmp/out"
finish
