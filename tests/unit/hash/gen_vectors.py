#!/usr/bin/env python3
"""Independent reference implementations of MurmurHash3 x86_32 and XXH64,
written from the published algorithm descriptions, used only to produce the
known-answer vectors hard-coded in murmur3_test.c and xxh64_test.c.

The references are first checked against vectors published elsewhere
(SMHasher / widely quoted MurmurHash3 values, the Iceberg spec Appendix B,
the xxHash sanity table); only then are new vectors printed.

    python3 tests/unit/hash/gen_vectors.py
"""
import struct

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & M32


def rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def murmur3_32(data, seed=0):
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & M32
    n = len(data) // 4
    for i in range(n):
        k = struct.unpack_from("<I", data, 4 * i)[0]
        k = (k * c1) & M32
        k = rotl32(k, 15)
        k = (k * c2) & M32
        h ^= k
        h = rotl32(h, 13)
        h = (h * 5 + 0xE6546B64) & M32
    tail = data[4 * n:]
    k = 0
    for i, b in enumerate(tail):
        k |= b << (8 * i)
    if tail:
        k = (k * c1) & M32
        k = rotl32(k, 15)
        k = (k * c2) & M32
        h ^= k
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return h


P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63
P5 = 0x27D4EB2F165667C5


def xxh64_round(acc, lane):
    acc = (acc + lane * P2) & M64
    acc = rotl64(acc, 31)
    return (acc * P1) & M64


def xxh64_merge(acc, val):
    acc ^= xxh64_round(0, val)
    return (acc * P1 + P4) & M64


def xxh64(data, seed=0):
    n = len(data)
    p = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed & M64, (seed - P1) & M64]
        while p + 32 <= n:
            for i in range(4):
                v[i] = xxh64_round(v[i], struct.unpack_from("<Q", data, p + 8 * i)[0])
            p += 32
        h = (rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18)) & M64
        for i in range(4):
            h = xxh64_merge(h, v[i])
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while p + 8 <= n:
        h ^= xxh64_round(0, struct.unpack_from("<Q", data, p)[0])
        h = (rotl64(h, 27) * P1 + P4) & M64
        p += 8
    if p + 4 <= n:
        h ^= (struct.unpack_from("<I", data, p)[0] * P1) & M64
        h = (rotl64(h, 23) * P2 + P3) & M64
        p += 4
    while p < n:
        h ^= (data[p] * P5) & M64
        h = (rotl64(h, 11) * P1) & M64
        p += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def xxh_sanity_buffer(n):
    """The buffer of xxHash's own sanity test: bytes from a PRIME64 LCG."""
    gen = 2654435761  # PRIME32
    out = bytearray()
    for _ in range(n):
        out.append(gen >> 56)
        gen = (gen * 11400714785074694797) & M64  # PRIME64
    return bytes(out)


def pattern(n):
    """The deterministic buffer the C tests build: byte i = (i * 31 + 7) & 0xff."""
    return bytes((i * 31 + 7) & 0xFF for i in range(n))


def check_references():
    published_murmur = [
        (b"", 0, 0),
        (b"", 1, 0x514E28B7),
        (b"", 0xFFFFFFFF, 0x81F16F39),
        (b"\0\0\0\0", 0, 0x2362F9DE),
        (b"aaaa", 0x9747B28C, 0x5A97808A),
        (b"Hello, world!", 0x9747B28C, 0x24884CBA),
        (b"The quick brown fox jumps over the lazy dog", 0x9747B28C, 0x2FA826CD),
        # Iceberg spec Appendix B
        (struct.pack("<q", 34), 0, 2017239379),
        (b"iceberg", 0, 1210000089),
        (bytes([0, 1, 2, 3]), 0, (-188683207) & M32),
    ]
    for data, seed, want in published_murmur:
        assert murmur3_32(data, seed) == want, (data, seed)
    assert xxh64(b"", 0) == 0xEF46DB3751D8E999
    sb = xxh_sanity_buffer(222)
    for n, seed, want in [(0, 0, 0xEF46DB3751D8E999), (1, 0, 0xE934A84ADB052768),
                          (1, 2654435761, 0x5014607643A9B4C3), (4, 0, 0x9136A0DCA57457EE),
                          (14, 0, 0x8282DCC4994E35C8), (14, 2654435761, 0xC3BD6BF63DEB6DF0),
                          (222, 0, 0xB641AE8CB691C174), (222, 2654435761, 0x20CB8AB7AE10C14A)]:
        assert xxh64(sb[:n], seed) == want, (n, seed)


def main():
    check_references()
    print("/* murmur3: pattern(n), seed */")
    for n in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 100, 255, 1000]:
        for seed in [0, 0x9747B28C]:
            print("    {%d, 0x%08XU, 0x%08XU}," % (n, seed, murmur3_32(pattern(n), seed)))
    print("/* murmur3 i64 */")
    for v in [0, 1, -1, 34, 2**31, -(2**63), 2**63 - 1, 1510871468000000]:
        print("    {INT64_C(%d), 0x%08XU}," % (v, murmur3_32(struct.pack("<q", v), 0)))
    print("/* xxh64: pattern(n), seed */")
    for n in [1, 3, 4, 7, 8, 11, 12, 31, 32, 33, 63, 64, 65, 100, 1000, 4096]:
        for seed in [0, 0x27D4EB2F165667C5]:
            print("    {%d, UINT64_C(0x%016X), UINT64_C(0x%016X)}," % (n, seed, xxh64(pattern(n), seed)))


if __name__ == "__main__":
    main()
