#!/usr/bin/env bash
# Parquet modular encryption through the CLI: --key-file and --aad-prefix on
# schema, meta, head, cat, scan; parquet rewrite --encrypt and friends.
#   - every encrypted parquet-testing file reads with the keys of its
#     README (the ASCII digits "0123456789012345", ...), and all thirteen of
#     the 8-column files (two writers, 128 and 256-bit keys, GCM and CTR,
#     encrypted and signed footers, AAD prefixes) give the same rows, whose
#     first is the generator's row 0; parquet-java's key-material file reads
#     through master keys;
#   - a wrong key, a missing key, a wrong AAD prefix: exit 1 and one line on
#     stderr; a malformed key file: exit 2;
#   - rewrite encrypts in every mode and basalt reads back the input's rows;
#   - DuckDB (encryption_config, footer key) reads what it can of the
#     corpus and of basalt's files: uniform AES_GCM_V1 with an encrypted
#     footer, no AAD prefix, v1 pages, one page per column chunk, no bloom
#     filter, no repeated column, no page of nulls only (DuckDB 1.5 fails on
#     the rest, on Arrow C++'s files as on basalt's), with the same rows as
#     from the plaintext;
#     and basalt reads DuckDB's own encrypted files (written without AAD).
# The DuckDB part is skipped, saying so, when node or @duckdb/node-api is
# missing.
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")" && pwd)
pq=$here/../parquet
data=$testdata/parquet-testing/data

hexof() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
b64of() { printf '%s' "$1" | base64 | tr -d '\n'; }

# The README's keys, in both text forms.
keys16=$tmp/keys16.txt
cat >"$keys16" <<EOF
# parquet-testing, 128-bit keys: key ids kf, kc1, kc2
kf   base64:$(b64of 0123456789012345)
kc1  hex:$(hexof 1234567890123450)
kc2 = $(b64of 1234567890123451)
EOF
keys32=$tmp/keys32.txt
{
  echo "kf $(hexof 01234567890123456789012345678901)"
  for i in 1 2 3 4 5 6 7 8; do
    echo "kc$i $(b64of "1234567890123456789012345678901$(( (i + 1) % 10 ))")"
  done
} >"$keys32"
masters=$tmp/masters.txt
cat >"$masters" <<EOF
master:kf  $(hexof 0123456789012345)
master:kc1 $(hexof 1234567890123450)
master:kc2 $(hexof 1234567890123451)
EOF

first='{"boolean_field":true,"int32_field":"00:00:00.000","int64_field":[0,1000000000000],"int96_field":"1717-12-30T19:20:15.100035072","float_field":0,"double_field":0,"ba_field":"cGFycXVldDAwMA==","flba_field":"AAAAAAAAAAAAAA=="}'

# ------------------------------------------------------------------ the corpus

expect 0 "$basalt" parquet cat --help
check "cat --help documents the key file" grep -q 'master:ID KEY' "$tmp/out"
expect 0 "$basalt" parquet rewrite --help
check "rewrite --help documents --encrypt" grep -q -- '--encrypt-column COL' "$tmp/out"

ref=""
for f in uniform_encryption encrypt_columns_and_footer encrypt_columns_and_footer_ctr \
         encrypt_columns_and_footer_aad encrypt_columns_and_footer_disable_aad_storage \
         encrypt_columns_plaintext_footer aes256/uniform_encryption \
         aes256/encrypt_columns_and_footer aes256/encrypt_columns_and_footer_ctr \
         aes256/encrypt_columns_and_footer_disable_aad_storage \
         aes256/encrypt_columns_plaintext_footer; do
  keys=$keys16
  case $f in aes256/*) keys=$keys32 ;; esac
  aad=()
  case $f in *disable_aad_storage*) aad=(--aad-prefix tester) ;; esac
  expect 0 "$basalt" parquet cat "$data/$f.parquet.encrypted" --format json --key-file "$keys" \
    "${aad[@]}" || continue
  check "$f: 50 rows" test "$(wc -l <"$tmp/out")" -eq 50
  check "$f: row 0 as generated" test "$(head -1 "$tmp/out")" = "$first"
  if [ -z "$ref" ]; then
    ref=$tmp/ref.json; cp "$tmp/out" "$ref"
  else
    check "$f: the same rows as uniform_encryption" cmp -s "$ref" "$tmp/out"
  fi
done
# the last row of the generator
check "row 49 as generated" grep -q '"int32_field":"00:00:00.049".*"float_field":53.9,"double_field":54.4444439,"ba_field":null' "$ref"

expect 0 "$basalt" parquet cat "$data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted" \
  --format json --key-file "$keys16"
check "bloom filter file: 2000 rows" test "$(wc -l <"$tmp/out")" -eq 2000
check "bloom filter file: row 1999" \
  test "$(tail -1 "$tmp/out")" = '{"double_field":1999.5,"float_field":1999.25,"int32_field":1999,"name":"name_1999"}'
# a predicate on the encrypted column (bloom filter, page index)
expect 0 "$basalt" parquet cat "$data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted" \
  --format json --key-file "$keys16" --where "double_field = 1234.5"
check "bloom filter file: the row where double_field = 1234.5" \
  test "$(cat "$tmp/out")" = '{"double_field":1234.5,"float_field":1234.25,"int32_field":1234,"name":"name_1234"}'

expect 0 "$basalt" parquet cat "$data/external_key_material_java.parquet.encrypted" \
  --format json --key-file "$masters"
check "key material file: 100 rows" test "$(wc -l <"$tmp/out")" -eq 100
check "key material file: rows 0 and 99" \
  test "$(sed -n '1p;100p' "$tmp/out" | tr -d '\n')" = '{"integers":0,"strings":"a0"}{"integers":99,"strings":"j99"}'

# the other verbs
expect 0 "$basalt" parquet schema "$data/uniform_encryption.parquet.encrypted" --key-file "$keys16"
check "schema of an encrypted footer" grep -q 'required fixed_len_byte_array(10) flba_field' "$tmp/out"
expect 0 "$basalt" parquet meta "$data/encrypt_columns_and_footer.parquet.encrypted" --key-file "$keys16"
check "meta shows the decrypted column metadata of double_field" \
  grep -Eq '^ +0 +double_field +DOUBLE .* -0 +54.4444439 +0 +column[+]offset' "$tmp/out"
expect 0 "$basalt" parquet head "$data/encrypt_columns_and_footer_ctr.parquet.encrypted" -n 2 \
  --key-file "$keys16" --columns float_field
check "head of a CTR file" test "$(tail -1 "$tmp/out" | tr -d ' ')" = "1.1"
expect 0 "$basalt" parquet scan "$data/aes256/encrypt_columns_and_footer.parquet.encrypted" \
  --key-file "$keys32" --threads 2
check "scan of an AES-256 file" grep -q '^rows: 50$' "$tmp/out"

# ------------------------------------------------------------------ refusals

pare=$data/encrypt_columns_and_footer.parquet.encrypted
printf 'kf %s\nkc1 %s\n' "$(hexof 1234567890123450)" "$(hexof 1234567890123450)" >"$tmp/wrong.txt"
expect 1 "$basalt" parquet cat "$pare" --key-file "$tmp/wrong.txt" &&
  check "wrong footer key: one line" one_line_stderr &&
  check "wrong footer key: AUTH, the footer named" grep -q 'AUTH: .*encrypt_columns_and_footer.parquet.encrypted: footer: AES-GCM authentication failed' "$tmp/err"
printf 'kf %s\nkc1 %s\n' "$(hexof 0123456789012345)" "$(hexof 1234567890123451)" >"$tmp/wrong.txt"
expect 1 "$basalt" parquet cat "$pare" --key-file "$tmp/wrong.txt" --columns double_field &&
  check "wrong column key: one line" one_line_stderr &&
  check "wrong column key: AUTH, the column named" grep -q "AUTH: .*column 'double_field': encrypted column chunk: column metadata: AES-GCM authentication failed" "$tmp/err"
expect 0 "$basalt" parquet cat "$pare" --key-file "$tmp/wrong.txt" --columns int32_field
check "wrong column key: the other columns read" test "$(wc -l <"$tmp/out")" -eq 52
expect 1 "$basalt" parquet cat "$pare" --key-file "$tmp/wrong.txt" --columns float_field &&
  check "missing column key: AUTH naming its key id" grep -q 'no key for it (key metadata "kc2")' "$tmp/err"
expect 1 "$basalt" parquet cat "$pare"
check "no keys: one line" one_line_stderr
check "no keys: says so" grep -q 'UNSUPPORTED: .*no decryption keys were given' "$tmp/err"
expect 1 "$basalt" parquet cat "$data/encrypt_columns_and_footer_aad.parquet.encrypted" \
  --key-file "$keys16" --aad-prefix other
check "wrong AAD prefix: AUTH" grep -q 'AUTH: .*AAD prefix given differs' "$tmp/err"
expect 1 "$basalt" parquet cat "$data/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted" \
  --key-file "$keys16"
check "AAD prefix not given: AUTH" grep -q 'must be given it' "$tmp/err"
# a plaintext footer opens without keys; its plaintext columns read
plain_footer=$data/encrypt_columns_plaintext_footer.parquet.encrypted
expect 0 "$basalt" parquet cat "$plain_footer" --columns boolean_field,ba_field --format json
check "plaintext footer without keys: plaintext columns" test "$(head -1 "$tmp/out")" = '{"boolean_field":true,"ba_field":"cGFycXVldDAwMA=="}'
expect 1 "$basalt" parquet cat "$plain_footer" --columns double_field
check "plaintext footer without keys: encrypted column refused" one_line_stderr
# key files
expect 1 "$basalt" parquet cat "$pare" --key-file "$tmp/no-such-file"
check "missing key file: one line" one_line_stderr
printf 'kf nothex\n' >"$tmp/bad.txt"
expect 2 "$basalt" parquet cat "$pare" --key-file "$tmp/bad.txt"
check "malformed key file: names the line, not the key" grep -q "bad.txt:1: key 'kf'" "$tmp/err"
check "malformed key file: the key text is not echoed" bash -c "! grep -q nothex '$tmp/err'"

# ------------------------------------------------------------------ rewrite --encrypt

wkeys=$tmp/wkeys.txt
cat >"$wkeys" <<EOF
kf   $(hexof 0123456789abcdef)
kc1  $(hexof abcdefghijklmnopqrstuvwxyz012345)
kc2  $(b64of ABCDEFGHIJKLMNOPQRSTUVWX)
EOF
src=$data/alltypes_tiny_pages_plain.parquet
"$basalt" parquet cat "$src" --format json >"$tmp/src.json" || { echo "FAIL: read $src"; exit 1; }
out=$tmp/enc.parquet
while IFS='|' read -r name opts read_opts; do
  # shellcheck disable=SC2086
  expect 0 "$basalt" parquet rewrite "$src" "$out" --key-file "$wkeys" --encrypt @kf $opts ||
    continue
  # shellcheck disable=SC2086
  expect 0 "$basalt" parquet cat "$out" --format json --key-file "$wkeys" $read_opts &&
    check "rewrite $name: the input's rows" cmp -s "$tmp/src.json" "$tmp/out"
  if [[ " $opts " == *" --plaintext-footer "* ]]; then
    check "rewrite $name: PAR1" test "$(head -c4 "$out")" = PAR1
  else
    check "rewrite $name: PARE" test "$(head -c4 "$out")$(tail -c4 "$out")" = PAREPARE
  fi
  # shellcheck disable=SC2086
  expect 1 "$basalt" parquet cat "$out" --key-file "$tmp/wrong.txt" $read_opts &&
    check "rewrite $name: a wrong key is refused" grep -q 'AUTH' "$tmp/err"
done <<'EOF'
gcm||
ctr|--algorithm ctr|
plaintext footer|--plaintext-footer|
column keys|--encrypt-column id=@kc1 --encrypt-column string_col=@kc2 --encrypt-column bool_col|
column keys, plaintext footer, ctr|--plaintext-footer --algorithm ctr --encrypt-column string_col=@kc1|
AAD prefix|--encrypt-aad-prefix table.part7|
AAD prefix not stored|--encrypt-aad-prefix table.part8 --skip-aad-prefix-storage|--aad-prefix table.part8
many pages, v2, bloom, small row groups|--page-size 4000 --page-version 2 --bloom string_col --row-group-size 2000|
EOF
# literal keys, and the file read with explicit footer and column entries
expect 0 "$basalt" parquet rewrite "$src" "$out" --encrypt "$(hexof 0123456789abcdef)" \
  --encrypt-column "id=base64:$(b64of abcdefghijklmnopqrstuvwxyz012345)" --footer-key-metadata kf
printf 'footer %s\ncolumn:id %s\n' "$(hexof 0123456789abcdef)" "$(hexof abcdefghijklmnopqrstuvwxyz012345)" >"$tmp/explicit.txt"
expect 0 "$basalt" parquet cat "$out" --format json --key-file "$tmp/explicit.txt" &&
  check "explicit footer and column keys" cmp -s "$tmp/src.json" "$tmp/out"
# an encrypted corpus file re-encrypted with other keys
expect 0 "$basalt" parquet rewrite "$pare" "$out" --key-file "$keys16" --encrypt @kf --algorithm ctr
expect 0 "$basalt" parquet cat "$out" --format json --key-file "$keys16" &&
  check "re-encrypted corpus file" cmp -s "$ref" "$tmp/out"
# refusals
expect 2 "$basalt" parquet rewrite "$src" "$out" --plaintext-footer
check "encryption options without --encrypt: usage" grep -q 'without --encrypt' "$tmp/err"
expect 2 "$basalt" parquet rewrite "$src" "$out" --key-file "$wkeys" --encrypt @nokey
check "--encrypt @NAME not in the key file: usage" grep -q "no key 'nokey'" "$tmp/err"
expect 1 "$basalt" parquet rewrite "$src" "$out" --key-file "$wkeys" --encrypt @kf --encrypt-column nope
check "--encrypt-column of no column: one line" one_line_stderr
check "--encrypt-column of no column: named" grep -q "column 'nope' not found" "$tmp/err"

# ------------------------------------------------------------------ DuckDB

if ! command -v node >/dev/null || ! (cd "$pq" && node -e "import('@duckdb/node-api')" 2>/dev/null); then
  echo "skipped the DuckDB checks: node or @duckdb/node-api is not installed"
  finish; exit $?
fi

# DuckDB reads the corpus's uniform files (all but the repeated int64_field;
# and int96_field, which DuckDB reads as microseconds without wrapping what
# overflows nanoseconds); the time units come from a plaintext twin of the
# same schema.
for f in uniform_encryption aes256/uniform_encryption; do
  keys=$keys16; k=0123456789012345
  case $f in aes256/*) keys=$keys32; k=01234567890123456789012345678901 ;; esac
  cols=boolean_field,int32_field,float_field,double_field,ba_field,flba_field
  expect 0 "$basalt" parquet rewrite "$data/$f.parquet.encrypted" "$tmp/twin.parquet" --key-file "$keys" ||
    continue
  node "$pq/duckdb_json.mjs" --footer-key "$k" --units-from "$tmp/twin.parquet" --columns "$cols" \
    "$data/$f.parquet.encrypted" >"$tmp/duck.json" 2>"$tmp/duck.err"
  "$basalt" parquet cat "$data/$f.parquet.encrypted" --key-file "$keys" --columns "$cols" \
    --format json >"$tmp/basalt.json"
  check "DuckDB reads $f as basalt does" cmp -s "$tmp/duck.json" "$tmp/basalt.json" ||
    { diff "$tmp/duck.json" "$tmp/basalt.json" | head -4; head -2 "$tmp/duck.err"; }
done

# DuckDB reads basalt's encrypted files: 16 and 32-byte keys, every flat
# type of DuckDB (writer_gen.mjs) and corpus files.
gen=$tmp/gen.parquet
node "$pq/writer_gen.mjs" "$gen" 6000 3 || { echo "FAIL: writer_gen.mjs"; exit 1; }
for k in 0123456789abcdef 0123456789abcdef0123456789abcdef; do
  printf 'kf %s\n' "$(hexof "$k")" >"$tmp/dk.txt"
  for f in "$gen" "$data/alltypes_plain.parquet" "$data/alltypes_tiny_pages_plain.parquet" \
           "$data/datapage_v1-snappy-compressed-checksum.parquet" "$data/single_nan.parquet"; do
    name="DuckDB reads basalt's encrypted $(basename "$f") (${#k}-byte key)"
    expect 0 "$basalt" parquet rewrite "$f" "$out" --key-file "$tmp/dk.txt" --encrypt @kf || continue
    node "$pq/duckdb_json.mjs" "$f" >"$tmp/plain.duck.json"
    if node "$pq/duckdb_json.mjs" --footer-key "$k" --units-from "$f" "$out" >"$tmp/enc.duck.json" 2>"$tmp/duck.err"; then
      check "$name" cmp -s "$tmp/plain.duck.json" "$tmp/enc.duck.json"
    else
      check "$name: $(grep -m1 -o 'Error.*' "$tmp/duck.err" | cut -c1-160)" false
    fi
  done
done

# basalt reads DuckDB's encrypted files (no AAD; nested columns, several
# row groups, pages and dictionaries): the rows basalt reads from DuckDB's
# plaintext copy of the same table, and for the corpus files the rows
# DuckDB reads (the generated table has float32 values whose shortest text
# the two renderers break differently, plaintext or not).
k=fedcba9876543210
printf 'footer %s\n' "$(hexof $k)" >"$tmp/dk.txt"
for f in "$gen" "$data/nested_lists.snappy.parquet" "$data/nested_maps.snappy.parquet" \
         "$data/alltypes_tiny_pages_plain.parquet"; do
  name="basalt reads DuckDB's encryption of $(basename "$f")"
  node "$pq/duckdb_write_encrypted.mjs" "$f" "$tmp/duck_enc.parquet" "$k" 2000 "$tmp/duck_plain.parquet" ||
    { check "$name: DuckDB writes it" false; continue; }
  "$basalt" parquet cat "$tmp/duck_plain.parquet" --format json >"$tmp/plain.json"
  expect 0 "$basalt" parquet cat "$tmp/duck_enc.parquet" --key-file "$tmp/dk.txt" --format json &&
    check "$name: as its plaintext copy" cmp -s "$tmp/plain.json" "$tmp/out"
  if [ "$f" != "$gen" ]; then
    node "$pq/duckdb_json.mjs" --footer-key "$k" --units-from "$tmp/duck_plain.parquet" \
      "$tmp/duck_enc.parquet" >"$tmp/duck.json"
    check "$name: as DuckDB reads it" cmp -s "$tmp/duck.json" "$tmp/out"
  fi
done

finish
