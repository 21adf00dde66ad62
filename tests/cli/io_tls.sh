#!/usr/bin/env bash
# https:// objects: TLS verification against a CA made here (--ca-file), the
# system store refusing it, --insecure, a certificate for another host name
# refused, and HTTP/2 on the wire. The server is node's http2 server with
# HTTP/1.1 allowed (tests/servers/tls_server.mjs), so the protocol each
# request came over is the one ALPN chose and is in its log.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"

t0=$SECONDS
section() { echo "[$((SECONDS - t0)) s] $*"; }
has() { grep -q -- "$1" "$tmp/err"; } # the stderr of the last run holds TEXT
same() { cmp -s "$tmp/out" "$1"; }    # the stdout of the last run is FILE's bytes
# The last run ended by exit(), not by a signal (a crash exits 128 + N).
no_crash() { [ "$(cat "$tmp/rc")" -lt 128 ]; }
# run ARGS...: basalt, whatever its status (kept in $tmp/rc).
run() { "$basalt" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
status_is() { [ "$(cat "$tmp/rc")" = "$1" ]; }

unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE

# Larger than the 64 KiB tail read at open: its columns come in range
# requests after it.
file=$testdata/parquet-testing/data/lz4_raw_compressed_larger.parquet
www=$tmp/www
mkdir -p "$www"
cp "$file" "$www/file.parquet"

# ------------------------------------------------------------ certificates
section certificates
pki=$tmp/pki
mkdir -p "$pki"
# A CA, a certificate for 127.0.0.1 and localhost, and one for another name,
# both issued by the CA. ECDSA P-256 keeps it quick.
ossl() { openssl "$@" >>"$pki/openssl.log" 2>&1; }
ossl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -keyout "$pki/ca.key" -out "$pki/ca.pem" -subj "/CN=basalt test CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
issue() { # NAME SUBJECT_ALT_NAMES
  ossl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$pki/$1.key" -out "$pki/$1.csr" -subj "/CN=$1"
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" \
    >"$pki/$1.ext"
  ossl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 2 -out "$pki/$1.pem" -extfile "$pki/$1.ext"
}
issue server 'IP:127.0.0.1,DNS:localhost'
issue other 'DNS:other.example'
# A second CA that issued nothing here: trusting it alone must not do.
ossl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -keyout "$pki/stranger.key" -out "$pki/stranger.pem" -subj "/CN=another CA"
if ! check "openssl made the CA and the certificates" \
    ossl verify -CAfile "$pki/ca.pem" "$pki/server.pem" "$pki/other.pem"; then
  sed 's/^/  openssl: /' "$pki/openssl.log" | tail -n 20
  finish; exit
fi

# ------------------------------------------------------------ servers
section servers
if ! start_tls_server "$www" "$pki/server.pem" "$pki/server.key"; then
  check "the HTTPS server starts" false
  finish; exit
fi
good_port=$TLS_SERVER_PORT good_log=$TLS_SERVER_LOG
if ! start_tls_server "$www" "$pki/other.pem" "$pki/other.key"; then
  check "the HTTPS server with the other host's certificate starts" false
  finish; exit
fi
other_port=$TLS_SERVER_PORT other_log=$TLS_SERVER_LOG
url=https://127.0.0.1:$good_port/file.parquet

# -------------------------------------------- 1. the system store refuses
section "system CA store"
run io cat "$url"
check "without --ca-file: exit 1 (got $(cat "$tmp/rc"))" status_is 1
check "without --ca-file: no crash" no_crash
check "without --ca-file: one error line" one_line_stderr
check "without --ca-file: the error says TLS and why ($(head -n 1 "$tmp/err"))" \
  grep -Eq '^basalt: IO: .*TLS: .*certificate' "$tmp/err"
check "without --ca-file: nothing on stdout" test ! -s "$tmp/out"
# A refused certificate is not a transient failure: one request, no retries.
run --stats io cat "$url"
check "without --ca-file: one request, not retried ($(grep '^io:' "$tmp/err" | head -n 1))" \
  grep -q '^io: 1 requests (0 retries, 1 failed)' "$tmp/err"
run parquet cat "$url"
check "parquet cat without --ca-file: exit 1, one line naming TLS" \
  eval 'status_is 1 && one_line_stderr && has TLS'
check "no request reached the server's handler without a trusted CA" \
  test ! -s "$good_log"

# ------------------------------------------------ 2. --ca-file is trusted
section "--ca-file"
run --ca-file "$pki/ca.pem" io cat "$url"
check "--ca-file: exit 0 ($(head -c 300 "$tmp/err"))" status_is 0
check "--ca-file: io cat gives the file's bytes" same "$file"
run --ca-file="$pki/ca.pem" io cat "https://localhost:$good_port/file.parquet" --offset 100000 --length 5000
check "--ca-file=PATH, host name localhost, a range: exit 0" status_is 0
tail -c +100001 "$file" | head -c 5000 >"$tmp/slice"
check "--ca-file: the range's bytes" same "$tmp/slice"
run parquet cat "$file"
cp "$tmp/out" "$tmp/local.txt"
check "parquet cat of the local file works" status_is 0
run --ca-file "$pki/ca.pem" parquet cat "$url"
check "--ca-file: parquet cat over https exits 0" status_is 0
check "--ca-file: parquet cat over https equals the local file's" same "$tmp/local.txt"
run --ca-file "$pki/ca.pem" io cp "$url" "$tmp/copy.parquet"
check "--ca-file: io cp to a local file" eval 'status_is 0 && cmp -s "$tmp/copy.parquet" "$file"'
run --ca-file "$pki/stranger.pem" io cat "$url"
check "--ca-file naming another CA: refused (exit 1, TLS)" \
  eval 'status_is 1 && no_crash && one_line_stderr && has TLS'
run --ca-file "$tmp/no-such-ca.pem" io cat "$url"
check "--ca-file naming no file: exit 1, one line naming the file ($(head -n 1 "$tmp/err"))" \
  eval 'status_is 1 && no_crash && one_line_stderr && has no-such-ca.pem'
expect 2 "$basalt" io cat "$url" --ca-file && check "--ca-file without a value: usage" one_line_stderr

# --------------------------------------------------------- 3. --insecure
section "--insecure"
run --insecure io cat "$url"
check "--insecure: exit 0" status_is 0
check "--insecure: the file's bytes" same "$file"

# ------------------------------------------------------------ 4. HTTP/2
section "HTTP/2"
requests=$(wc -l <"$good_log")
h2=$(grep -c '"httpVersion":"2.0"' "$good_log")
check "the server logged requests ($requests)" test "$requests" -ge 8
check "every request came over HTTP/2 ($h2 of $requests; versions: $(grep -o '"httpVersion":"[^"]*"' "$good_log" | sort | uniq -c | tr -s ' \n' ' '))" \
  test "$h2" -eq "$requests"
check "ranges were asked for and answered 206 over HTTP/2" \
  grep -q '"range":"bytes=[0-9]*-[0-9]*","httpVersion":"2.0","status":206' "$good_log"
# curl speaks HTTP/1.1 when told to: the server's log would show it.
curl -sS --http1.1 --cacert "$pki/ca.pem" -o /dev/null "$url"
check "the log tells HTTP/1.1 apart (curl --http1.1)" \
  eval 'tail -n 1 "$good_log" | grep -q "\"httpVersion\":\"1.1\""'

# ------------------------------------------- 5. another host's certificate
section "wrong host name"
run --ca-file "$pki/ca.pem" io cat "https://127.0.0.1:$other_port/file.parquet"
check "a certificate for other.example at 127.0.0.1: exit 1 ($(head -n 1 "$tmp/err"))" \
  eval 'status_is 1 && no_crash && one_line_stderr'
check "the error says the name does not match" \
  grep -Eq 'TLS: .*(subject name|does not match|host name)' "$tmp/err"
run --ca-file "$pki/ca.pem" io cat "https://localhost:$other_port/file.parquet"
check "a certificate for other.example at localhost: refused too" \
  eval 'status_is 1 && has TLS'
check "nothing was served under the wrong name" test ! -s "$other_log"
run --insecure io cat "https://localhost:$other_port/file.parquet"
check "--insecure takes the wrong name too (verification off)" \
  eval 'status_is 0 && same "$file"'

finish
