#!/usr/bin/env bash
# basalt hash: digests against coreutils and Python, file handling, exit codes.
set -u
basalt=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_status WANT CMD...: runs CMD, checks its exit status.
expect_status() {
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] || fail "$* exited $got, expected $want ($(head -c 300 "$tmp/err"))"
}

printf '123456789' >"$tmp/check.txt"
: >"$tmp/empty"
head -c 300000 /dev/urandom >"$tmp/random.bin"
printf 'iceberg' >"$tmp/iceberg.txt"

# sha256 equals sha256sum, byte for byte, several files at once.
want=$(cd "$tmp" && sha256sum check.txt empty random.bin)
got=$(cd "$tmp" && "$basalt" hash sha256 check.txt empty random.bin)
[ "$got" = "$want" ] || fail "sha256 differs from sha256sum: $got vs $want"

# stdin as "-" and as the default
want=$(sha256sum <"$tmp/random.bin")
got=$("$basalt" hash sha256 - <"$tmp/random.bin")
[ "$got" = "$want" ] || fail "sha256 of stdin: $got vs $want"
got=$("$basalt" hash sha256 <"$tmp/random.bin")
[ "$got" = "$want" ] || fail "sha256 of default stdin: $got vs $want"

# crc32 of the CRC catalogue check string, and of random data against Python's zlib
got=$("$basalt" hash crc32 "$tmp/check.txt")
[ "$got" = "cbf43926  $tmp/check.txt" ] || fail "crc32 check value: $got"
got=$("$basalt" hash crc32 "$tmp/empty")
[ "$got" = "00000000  $tmp/empty" ] || fail "crc32 of empty file: $got"
if command -v python3 >/dev/null; then
    want=$(python3 -c 'import sys, zlib; print("%08x" % zlib.crc32(open(sys.argv[1], "rb").read()))' "$tmp/random.bin")
    got=$("$basalt" hash crc32 "$tmp/random.bin" | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "crc32 of random data: $got vs python $want"
    # --seed continues a CRC: crc(crc("12345"), "6789") == crc("123456789")
    printf '12345' >"$tmp/a"; printf '6789' >"$tmp/b"
    first=$("$basalt" hash crc32 "$tmp/a" | cut -d' ' -f1)
    got=$("$basalt" hash crc32 --seed "0x$first" "$tmp/b" | cut -d' ' -f1)
    [ "$got" = "cbf43926" ] || fail "crc32 --seed continuation: $got"
    # hmac-sha256 against Python's hmac (RFC 4231 case 2 and a random file)
    want=$(printf 'what do ya want for nothing?' | python3 -c 'import hmac, hashlib, sys; print(hmac.new(b"Jefe", sys.stdin.buffer.read(), hashlib.sha256).hexdigest())')
    got=$(printf 'what do ya want for nothing?' | "$basalt" hash hmac-sha256 --key Jefe - | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "hmac-sha256 --key: $got vs $want"
    got=$(printf 'what do ya want for nothing?' | "$basalt" hash hmac-sha256 --key-hex 4a656665 - | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "hmac-sha256 --key-hex: $got vs $want"
fi
[ "$want" = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" ] ||
    fail "RFC 4231 case 2 oracle: $want"

# murmur3: Iceberg spec Appendix B, hash("iceberg") = 1210000089 = 0x481f22d9
got=$("$basalt" hash murmur3 "$tmp/iceberg.txt" | cut -d' ' -f1)
[ "$got" = "481f22d9" ] || fail "murmur3 of 'iceberg': $got"
# MurmurHash3 of "" with seed 1 is 0x514e28b7
got=$("$basalt" hash murmur3 --seed 1 "$tmp/empty" | cut -d' ' -f1)
[ "$got" = "514e28b7" ] || fail "murmur3 --seed 1 of empty: $got"

# xxh64 of the empty input, seed 0
got=$("$basalt" hash xxh64 "$tmp/empty" | cut -d' ' -f1)
[ "$got" = "ef46db3751d8e999" ] || fail "xxh64 of empty: $got"

# Exit codes: 0 ok, 1 unreadable file (others still printed), 2 usage.
expect_status 0 "$basalt" hash sha256 "$tmp/check.txt"
expect_status 1 "$basalt" hash sha256 "$tmp/does-not-exist"
expect_status 1 "$basalt" hash crc32 "$tmp/check.txt" "$tmp/does-not-exist"
grep -q "check.txt" "$tmp/out" || fail "files before a missing one should still be printed"
grep -q "does-not-exist" "$tmp/err" || fail "a missing file should be named on stderr"
expect_status 2 "$basalt" hash no-such-verb "$tmp/check.txt"
expect_status 2 "$basalt" hash sha256 --bogus "$tmp/check.txt"
expect_status 2 "$basalt" hash sha256 --seed 1 "$tmp/check.txt"
expect_status 2 "$basalt" hash murmur3 --seed 4294967296 "$tmp/check.txt"
expect_status 2 "$basalt" hash murmur3 --seed -1 "$tmp/check.txt"
expect_status 2 "$basalt" hash xxh64 --seed
expect_status 2 "$basalt" hash hmac-sha256 "$tmp/check.txt"
expect_status 2 "$basalt" hash hmac-sha256 --key-hex abc "$tmp/check.txt"
expect_status 2 "$basalt" hash
expect_status 0 "$basalt" hash --help
expect_status 0 "$basalt" hash sha256 --help
# "--" ends options: a file named like an option
printf 'x' >"$tmp/--seed"
expect_status 0 "$basalt" hash sha256 -- "$tmp/--seed"

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "ok"
