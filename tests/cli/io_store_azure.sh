#!/usr/bin/env bash
# The Azure Blob backend against azurite with Shared Key checks on: every
# store_check check over az:// (key from the environment), over abfss://
# (the same account, azurite's endpoint) and with a connection string only;
# blobs written by basalt read by an independent client and the other way
# round; then an account SAS made here with node's crypto: reads, writes,
# listing and deletes work with it, a tampered one is refused with AUTH, and
# the SAS appears in no message. The basalt binary ($1) only locates the
# build tree.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/io_store_lib.bash"
source "$(dirname "$0")/../servers/servers.bash"
servers=$(cd "$(dirname "$0")/../servers" && pwd)
not() { ! "$@"; }

if ! start_azurite; then
  check "azurite starts with Shared Key checks on" false
  finish; exit
fi
part=(--part-size 262144 --parts-in-flight 3)

# ---- Shared Key from AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY ----
run_store_check az_shared_key 100 "${part[@]}" --endpoint "$AZURE_BLOB_ENDPOINT" \
  "az://$AZURE_CONTAINER/shared-key"
check "az://: blocks were committed (multipart writes happened)" grep -q '^ok: write big.bin' "$tmp/az_shared_key.log"

# ---- abfss:// names the account; the store's endpoint serves it ----
run_store_check abfss 100 "${part[@]}" --endpoint "$AZURE_BLOB_ENDPOINT" \
  "abfss://$AZURE_CONTAINER@$AZURE_STORAGE_ACCOUNT.dfs.core.windows.net/abfs"

# ---- a connection string alone (no other Azure variable) ----
conn=$AZURE_STORAGE_CONNECTION_STRING
(unset AZURE_STORAGE_ACCOUNT AZURE_STORAGE_KEY AZURE_BLOB_ENDPOINT AZURE_STORAGE_CONNECTION_STRING
 "$store_check" --connection-string "$conn" "${part[@]}" "az://$AZURE_CONTAINER/conn") \
  >"$tmp/conn.log" 2>&1
rc=$?
check "connection string only: every check ok (rc $rc, $(grep -c '^ok: ' "$tmp/conn.log") ok, $(grep -c '^FAIL: ' "$tmp/conn.log") FAIL)" \
  test "$rc" = 0
grep '^FAIL: ' "$tmp/conn.log" | sed 's/^/  /'

# ---- an independent client (azure_blob.mjs, Shared Key by hand) ----
head -c 300000 /dev/urandom >"$tmp/payload"
expect 0 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --part-size 65536 --put "az://$AZURE_CONTAINER/interop/ours.bin" <"$tmp/payload"
expect 0 node "$servers/azure_blob.mjs" GET "$AZURE_CONTAINER/interop/ours.bin" --out "$tmp/theirs"
check "a blob basalt wrote in blocks reads back through another client: $(cat "$tmp/out")" \
  cmp -s "$tmp/theirs" "$tmp/payload"
expect 0 node "$servers/azure_blob.mjs" PUT "$AZURE_CONTAINER/interop/theirs.bin" --body-file "$tmp/payload" \
  --header x-ms-blob-type:BlockBlob
expect 0 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --cat "az://$AZURE_CONTAINER/interop/theirs.bin"
check "a blob another client wrote reads back through basalt" cmp -s "$tmp/out" "$tmp/payload"
# A name that needs escaping: Shared Key signs the encoded path, which
# azurite checks. (azure_blob.mjs signs the decoded path, so it is not used
# for this name: azurite refuses its signature.)
name="interop/with space+plus&amp.bin"
expect 0 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --part-size 65536 --put "az://$AZURE_CONTAINER/$name" <"$tmp/payload"
expect 0 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --cat "az://$AZURE_CONTAINER/$name"
check "a blob named with a space, '+' and '&' round-trips" cmp -s "$tmp/out" "$tmp/payload"

# ---- wrong key: AUTH, and the key is not in the message ----
wrong=$(printf '%s' "$AZURE_STORAGE_KEY" | tr 'A-Za-z' 'N-ZA-Mn-za-m')
(unset AZURE_STORAGE_CONNECTION_STRING
 AZURE_STORAGE_KEY=$wrong "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" \
   --cat "az://$AZURE_CONTAINER/interop/theirs.bin") >"$tmp/out" 2>"$tmp/err"
check "a wrong key: AUTH ($(cat "$tmp/err"))" grep -q 'AUTH: .*403' "$tmp/err"
check "a wrong key: the key is not in the message" not grep -qF -- "$wrong" "$tmp/err"

# ---- account SAS, signed here with the emulator's key ----
# Account SAS StringToSign for versions 2020-12-06 and later ("Create an
# account SAS" in the Azure Storage REST docs).
sas=$(node -e '
const crypto = require("node:crypto");
const [account, key] = [process.env.AZURE_STORAGE_ACCOUNT, process.env.AZURE_STORAGE_KEY];
const f = { sv: "2021-08-06", ss: "b", srt: "sco", sp: "rwdlac",
            se: new Date(Date.now() + 3600e3).toISOString().replace(/\.\d+Z$/, "Z") };
const sts = [account, f.sp, f.ss, f.srt, "", f.se, "", "", f.sv, "", ""].join("\n");
const sig = crypto.createHmac("sha256", Buffer.from(key, "base64")).update(sts, "utf8").digest("base64");
const q = new URLSearchParams({ ...f, sig });
console.log(q.toString());')
check "a SAS token was made" test -n "$sas"
sig=$(sed -n 's/.*sig=\([^&]*\).*/\1/p' <<<"$sas")
(unset AZURE_STORAGE_KEY AZURE_STORAGE_CONNECTION_STRING
 export AZURE_STORAGE_SAS_TOKEN="?$sas"
 run_store_check sas 100 "${part[@]}" --endpoint "$AZURE_BLOB_ENDPOINT" "az://$AZURE_CONTAINER/sas"
 echo "$checks $failures" >"$tmp/sas.counts")
read -r c f <"$tmp/sas.counts"
checks=$c failures=$f
check "SAS: no output line holds the signature" not grep -qF -- "$sig" "$tmp/sas.log"

(unset AZURE_STORAGE_KEY AZURE_STORAGE_CONNECTION_STRING
 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --sas "$sas" \
   --cat "az://$AZURE_CONTAINER/interop/theirs.bin") >"$tmp/out" 2>"$tmp/err"
check "SAS: a blob reads back byte-exact ($(head -c 200 "$tmp/err"))" cmp -s "$tmp/out" "$tmp/payload"

# Tampered: the signature's first character changed.
first=${sig:0:1}
other=A; [ "$first" = A ] && other=B
bad_sas=${sas/sig=$first/sig=$other}
check "the tampered SAS differs from the real one" test "$bad_sas" != "$sas"
(unset AZURE_STORAGE_KEY AZURE_STORAGE_CONNECTION_STRING
 "$store_check" --endpoint "$AZURE_BLOB_ENDPOINT" --sas "$bad_sas" \
   --cat "az://$AZURE_CONTAINER/interop/theirs.bin") >"$tmp/out" 2>"$tmp/err"
rc=$?
check "tampered SAS: the read fails with AUTH (rc $rc: $(cat "$tmp/err"))" \
  test "$rc" = 1 -a "$(grep -c 'AUTH: .*403' "$tmp/err")" = 1
check "tampered SAS: the message holds no part of the SAS" \
  not grep -qF -e "sig=" -e "${sig:1:12}" -e "se=" "$tmp/err"

# ---- URIs to URLs without azurite: no such host, offline ----
# (An account name with '-' is invalid, so it never resolves anywhere.)
(unset AZURE_STORAGE_CONNECTION_STRING AZURE_BLOB_ENDPOINT
 AZURE_STORAGE_ACCOUNT=basalt-none "$store_check" --max-attempts 1 --sas "sv=x&sig=SECRETSIG" \
   --cat "abfss://cont@basalt-other.dfs.core.windows.net/dir/x.bin"
 AZURE_STORAGE_ACCOUNT=basalt-none "$store_check" --max-attempts 1 --cat "az://cont/dir/x.bin") \
  >"$tmp/out" 2>"$tmp/err"
check "abfss:// goes to the account's blob endpoint ($(head -n 1 "$tmp/err"))" \
  grep -q 'https://basalt-other.blob.core.windows.net/cont/dir/x.bin' "$tmp/err"
check "az:// goes to the configured account's blob endpoint ($(tail -n 1 "$tmp/err"))" \
  grep -q 'https://basalt-none.blob.core.windows.net/cont/dir/x.bin' "$tmp/err"
check "the SAS is not in the messages" not grep -q SECRETSIG "$tmp/err"

# ---- nothing left behind by the checks (each deletes its own root) ----
expect 0 node "$servers/azure_blob.mjs" GET "$AZURE_CONTAINER?restype=container&comp=list" --out "$tmp/listing"
left=$(grep -o '<Name>[^<]*</Name>' "$tmp/listing" | grep -v '<Name>interop/' | head -5)
check "the escaped name is listed as written" grep -qF '<Name>interop/with space+plus&amp;amp.bin</Name>' "$tmp/listing"
check "only the interop blobs are left in the container (${left:-none else})" test -z "$left"
check "no server log holds the Azure key" not grep -rqF -- "$AZURE_STORAGE_KEY" "$SERVER_LOG_DIR"

finish
