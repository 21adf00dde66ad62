/* Deletion-vector-v1 blobs and portable 64-bit Roaring maps.
 *
 * Portable 32-bit Roaring bitmaps are checked here before CRoaring sees them:
 * its 0.2.66 deserializer trusts container cardinalities and value order,
 * which untrusted files need not respect. */
#include "basalt/hash.h"
#include "manifest_internal.h"

#define SERIAL_COOKIE_NO_RUN 12346u
#define SERIAL_COOKIE 12347u
#define NO_OFFSET_THRESHOLD 4u
#define MAX_DV_BYTES (UINT64_C(1) << 23)

static const uint8_t dv_magic[4] = {0xD1, 0xD3, 0x39, 0x64};

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static basalt_status bad(struct basalt_error *err, const char *what)
{
    return basalt_error_set(err, BASALT_CORRUPT, "roaring bitmap: %s", what);
}

basalt_status basalt_iceberg_mf_roaring32_check(const uint8_t *data, size_t len, size_t *used,
                                                struct basalt_error *err)
{
    if (len < 4)
        return bad(err, "truncated cookie");
    uint32_t cookie = le32(data);
    size_t pos, size;
    const uint8_t *runs = NULL;
    if ((cookie & 0xFFFFu) == SERIAL_COOKIE) {
        size = (cookie >> 16) + 1;
        pos = 4;
        size_t rb = (size + 7) / 8;
        if (len - pos < rb)
            return bad(err, "truncated run flags");
        runs = data + pos;
        pos += rb;
    } else if (cookie == SERIAL_COOKIE_NO_RUN) {
        if (len < 8)
            return bad(err, "truncated container count");
        size = le32(data + 4);
        if (size > 65536)
            return bad(err, "more than 65536 containers");
        pos = 8;
    } else {
        return bad(err, "unknown cookie");
    }
    if ((len - pos) / 4 < size)
        return bad(err, "truncated container headers");
    const uint8_t *hdr = data + pos;
    pos += size * 4;
    if (!runs || size >= NO_OFFSET_THRESHOLD) {
        if ((len - pos) / 4 < size)
            return bad(err, "truncated offsets");
        pos += size * 4;
    }
    int32_t last_key = -1;
    for (size_t i = 0; i < size; i++) {
        uint32_t key = le16(hdr + 4 * i);
        uint32_t card = (uint32_t)le16(hdr + 4 * i + 2) + 1;
        if ((int32_t)key <= last_key)
            return bad(err, "container keys not ascending");
        last_key = (int32_t)key;
        bool is_run = runs && (runs[i / 8] >> (i % 8)) & 1;
        if (is_run) {
            if (len - pos < 2)
                return bad(err, "truncated run container");
            uint32_t nruns = le16(data + pos);
            pos += 2;
            if ((len - pos) / 4 < nruns)
                return bad(err, "truncated run container");
            uint32_t total = 0;
            int64_t prev_end = -1;
            for (uint32_t r = 0; r < nruns; r++) {
                uint32_t start = le16(data + pos + 4 * r);
                uint32_t length = le16(data + pos + 4 * r + 2);
                if ((int64_t)start <= prev_end || start + length > 65535)
                    return bad(err, "run container runs overlap or overflow");
                prev_end = start + length;
                total += length + 1;
            }
            if (nruns == 0 || total != card)
                return bad(err, "run container cardinality mismatch");
            pos += (size_t)nruns * 4;
        } else if (card > 4096) {
            if (len - pos < 8192)
                return bad(err, "truncated bitset container");
            uint32_t total = 0;
            for (size_t w = 0; w < 8192; w += 8) {
                uint64_t word = 0;
                memcpy(&word, data + pos + w, 8);
                total += (uint32_t)__builtin_popcountll(word);
            }
            if (total != card)
                return bad(err, "bitset container cardinality mismatch");
            pos += 8192;
        } else {
            if ((len - pos) / 2 < card)
                return bad(err, "truncated array container");
            int32_t prev = -1;
            for (uint32_t v = 0; v < card; v++) {
                int32_t x = le16(data + pos + 2 * v);
                if (x <= prev)
                    return bad(err, "array container values not ascending");
                prev = x;
            }
            pos += (size_t)card * 2;
        }
    }
    *used = pos;
    return BASALT_OK;
}

basalt_status basalt_iceberg_roaring64_parse(const void *data, size_t len,
                                             struct basalt_iceberg_posset **out,
                                             struct basalt_error *err)
{
    *out = NULL;
    const uint8_t *d = data;
    if (len < 8)
        return basalt_error_set(err, BASALT_CORRUPT, "roaring64: truncated bitmap count");
    uint64_t count = (uint64_t)le32(d) | (uint64_t)le32(d + 4) << 32;
    if (count > (len - 8) / 12)
        return basalt_error_set(err, BASALT_CORRUPT, "roaring64: bitmap count %llu too large",
                                (unsigned long long)count);
    struct basalt_iceberg_posset *set;
    basalt_status st = basalt_iceberg_posset_new(&set, err);
    if (st != BASALT_OK)
        return st;
    size_t pos = 8;
    int64_t last_key = -1;
    for (uint64_t i = 0; i < count; i++) {
        if (len - pos < 4) {
            st = basalt_error_set(err, BASALT_CORRUPT, "roaring64: truncated key");
            break;
        }
        uint32_t key = le32(d + pos);
        if (key > (uint32_t)INT32_MAX) {
            st = basalt_error_set(err, BASALT_CORRUPT, "roaring64: Invalid unsigned key: %u", key);
            break;
        }
        if ((int64_t)key <= last_key) {
            st = basalt_error_set(err, BASALT_CORRUPT, "roaring64: keys must be ascending");
            break;
        }
        last_key = key;
        pos += 4;
        size_t used;
        st = basalt_iceberg_mf_roaring32_check(d + pos, len - pos, &used, err);
        if (st != BASALT_OK) {
            st = basalt_error_context(err, st, "roaring64: key %u", key);
            break;
        }
        roaring_bitmap_t *bm = roaring_bitmap_portable_deserialize_safe((const char *)d + pos, used);
        if (!bm) {
            st = basalt_error_set(err, BASALT_CORRUPT, "roaring64: key %u: bitmap rejected", key);
            break;
        }
        pos += used;
        if (roaring_bitmap_is_empty(bm)) {
            roaring_bitmap_free(bm);
            continue;
        }
        roaring_bitmap_t *got;
        st = basalt_iceberg_posset_insert_bitmap(set, key, bm, &got, err);
        if (st != BASALT_OK) {
            roaring_bitmap_free(bm);
            break;
        }
    }
    if (st == BASALT_OK && pos != len)
        st = basalt_error_set(err, BASALT_CORRUPT, "roaring64: %zu trailing bytes", len - pos);
    if (st != BASALT_OK) {
        basalt_iceberg_posset_free(set);
        return st;
    }
    *out = set;
    return BASALT_OK;
}

basalt_status basalt_iceberg_dv_parse(const void *blob, size_t len,
                                      struct basalt_iceberg_posset **out, struct basalt_error *err)
{
    *out = NULL;
    const uint8_t *d = blob;
    if (len < 12)
        return basalt_error_set(err, BASALT_CORRUPT, "deletion vector: %zu bytes is too short",
                                len);
    uint32_t n = be32(d);
    if (n != len - 8)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "deletion vector: length %u does not match the blob (%zu)", n,
                                len - 8);
    if (memcmp(d + 4, dv_magic, 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "deletion vector: invalid magic");
    uint32_t crc = basalt_hash_crc32(0, d + 4, n);
    if (crc != be32(d + 4 + n))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "deletion vector: CRC mismatch (stored %08x, computed %08x)",
                                be32(d + 4 + n), crc);
    basalt_status st = basalt_iceberg_roaring64_parse(d + 8, n - 4, out, err);
    return st != BASALT_OK ? basalt_error_context(err, st, "deletion vector") : BASALT_OK;
}

basalt_status basalt_iceberg_dv_serialize(const struct basalt_iceberg_posset *set, uint8_t **out,
                                          size_t *len, struct basalt_error *err)
{
    *out = NULL;
    *len = 0;
    uint32_t max_key = set->n ? set->buckets[set->n - 1].key : 0;
    if (max_key > (uint32_t)INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "deletion vector: position beyond 2^63-1");
    uint64_t count = set->n ? (uint64_t)max_key + 1 : 0;
    /* Java keeps one bitmap per key from 0 to the highest, empty ones included. */
    roaring_bitmap_t **opt = NULL;
    if (set->n && !(opt = basalt_calloc(set->n, sizeof *opt)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    uint64_t total = 4 + 8 + 4; /* magic, count, CRC */
    for (uint32_t i = 0; i < set->n; i++) {
        if (!(opt[i] = roaring_bitmap_copy(set->buckets[i].bitmap))) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        roaring_bitmap_run_optimize(opt[i]);
        total += roaring_bitmap_portable_size_in_bytes(opt[i]);
    }
    total += count * 4 + (count - set->n) * 8; /* keys, empty bitmaps */
    /* An empty bitmap per absent key makes a position near 2^62 cost
     * gigabytes; Java would fail the same way. */
    if (st == BASALT_OK && total > MAX_DV_BYTES)
        st = basalt_error_set(err, BASALT_LIMIT, "deletion vector of %llu bytes is too large",
                              (unsigned long long)total);
    uint8_t *buf = NULL;
    if (st == BASALT_OK && !(buf = basalt_malloc((size_t)total + 4)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        put_be32(buf, (uint32_t)(total - 4));
        memcpy(buf + 4, dv_magic, 4);
        size_t pos = 8;
        put_le32(buf + pos, (uint32_t)count);
        put_le32(buf + pos + 4, (uint32_t)(count >> 32));
        pos += 8;
        uint32_t b = 0;
        for (uint64_t key = 0; key < count; key++) {
            put_le32(buf + pos, (uint32_t)key);
            pos += 4;
            if (b < set->n && set->buckets[b].key == key) {
                pos += roaring_bitmap_portable_serialize(opt[b], (char *)buf + pos);
                b++;
            } else {
                put_le32(buf + pos, SERIAL_COOKIE_NO_RUN);
                put_le32(buf + pos + 4, 0);
                pos += 8;
            }
        }
        put_be32(buf + pos, basalt_hash_crc32(0, buf + 4, pos - 4));
        pos += 4;
        *out = buf;
        *len = pos;
    }
    for (uint32_t i = 0; opt && i < set->n; i++)
        roaring_bitmap_free(opt[i]);
    basalt_free(opt);
    return st;
}
