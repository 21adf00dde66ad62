/* Arrow IPC schema messages: base64, every type through encode and decode,
 * truncation, corruption, hostile
 * flatbuffers and allocation failures. Files written by Arrow C++ are in
 * ipc_schema_corpus_test.c. */
#include <stdlib.h>

#include "basalt/arrow.h"
#include "ipc_schema_internal.h"
#include "test.h"

/* Canonical text of a schema, shared with ipc_schema_corpus_test.c:
 *   name:format[?][!][^][[dictionary]][<children>][{key=value;...}]
 * '?' nullable, '!' dictionary ordered, '^' map keys sorted; a dictionary's
 * value type is rendered without a name inside []. The top level has no name.
 * Metadata pairs are listed in key order (the integration JSON, one of the
 * oracles, does not keep the file's order). */
void ipc_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name);

static void put(struct basalt_buffer *out, const char *s, size_t n)
{
    if (basalt_buffer_append(out, s, n, NULL) != BASALT_OK)
        abort();
}

static void puts_(struct basalt_buffer *out, const char *s) { put(out, s, strlen(s)); }

static int item_cmp(const void *a, const void *b)
{
    const struct basalt_arrow_metadata_item *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

void ipc_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name)
{
    if (with_name) {
        puts_(out, s->name ? s->name : "(null)");
        puts_(out, ":");
    }
    puts_(out, s->format);
    if (s->flags & ARROW_FLAG_NULLABLE)
        puts_(out, "?");
    if (s->flags & ARROW_FLAG_DICTIONARY_ORDERED)
        puts_(out, "!");
    if (s->flags & ARROW_FLAG_MAP_KEYS_SORTED)
        puts_(out, "^");
    if (s->dictionary) {
        puts_(out, "[");
        ipc_test_render(s->dictionary, out, false);
        puts_(out, "]");
    }
    if (s->n_children) {
        puts_(out, "<");
        for (int64_t i = 0; i < s->n_children; i++) {
            if (i)
                puts_(out, ",");
            ipc_test_render(s->children[i], out, true);
        }
        puts_(out, ">");
    }
    if (s->metadata) {
        struct basalt_arrow_metadata_reader r;
        struct basalt_arrow_metadata_item items[64];
        if (basalt_arrow_metadata_reader_init(&r, s->metadata, NULL) != BASALT_OK)
            abort();
        int n = 0;
        while (n < 64 && basalt_arrow_metadata_reader_next(&r, &items[n]))
            n++;
        qsort(items, (size_t)n, sizeof items[0], item_cmp);
        puts_(out, "{");
        for (int i = 0; i < n; i++) {
            if (i)
                puts_(out, ";");
            put(out, items[i].key, items[i].key_len);
            puts_(out, "=");
            put(out, items[i].value, items[i].value_len);
        }
        puts_(out, "}");
    }
}

/* Renders into a NUL-terminated string held by `buf`. */
static const char *render(const struct ArrowSchema *s, struct basalt_buffer *buf)
{
    buf->size = 0;
    ipc_test_render(s, buf, false);
    put(buf, "", 1);
    return (const char *)buf->data;
}

/* ------------------------------------------------------------ base64 */

TEST(ipc_base64_rfc4648_vectors)
{
    /* RFC 4648 section 10, both directions, plus the unpadded forms. */
    static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *coded[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                  "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    struct basalt_error err;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    for (size_t v = 0; v < 7; v++) {
        buf.size = 0;
        CHECK_OK(basalt_arrow_base64_encode((const uint8_t *)plain[v], strlen(plain[v]), &buf,
                                            &err),
                 &err);
        CHECK_EQ(buf.size, strlen(coded[v]));
        if (buf.size)
            CHECK_MEM(buf.data, coded[v], buf.size);
        buf.size = 0;
        CHECK_OK(basalt_arrow_base64_decode(coded[v], strlen(coded[v]), &buf, &err), &err);
        CHECK_EQ(buf.size, strlen(plain[v]));
        if (buf.size)
            CHECK_MEM(buf.data, plain[v], buf.size);
        size_t unpadded = strlen(coded[v]);
        while (unpadded && coded[v][unpadded - 1] == '=')
            unpadded--;
        buf.size = 0;
        CHECK_OK(basalt_arrow_base64_decode(coded[v], unpadded, &buf, &err), &err);
        CHECK_EQ(buf.size, strlen(plain[v]));
        if (buf.size)
            CHECK_MEM(buf.data, plain[v], buf.size);
    }
    /* Every byte value survives (the last two characters of the alphabet). */
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    CHECK_OK(basalt_arrow_base64_encode(all, 256, &text, &err), &err);
    CHECK(memchr(text.data, '+', text.size) && memchr(text.data, '/', text.size));
    buf.size = 0;
    CHECK_OK(basalt_arrow_base64_decode((const char *)text.data, text.size, &buf, &err), &err);
    CHECK_EQ(buf.size, 256);
    CHECK_MEM(buf.data, all, 256);
    /* Rejected: a character outside the alphabet, '=' inside, three '=',
     * a lone character in the last group, padding that is not a multiple of 4. */
    static const char *bad[] = {"Zm9v*mFy", "Zm=vYmFy", "Zg===", "Zm9vY", "Zm8==", "Zg="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf.size = 0;
        CHECK_STATUS(basalt_arrow_base64_decode(bad[i], strlen(bad[i]), &buf, &err),
                     BASALT_CORRUPT, &err);
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&text);
}

/* A small schema, its message, and the message's base64 built by hand from
 * the RFC alphabet, decoded through the public API with and without padding. */
TEST(ipc_base64_decode_padding_and_errors)
{
    struct basalt_error err;
    struct ArrowSchema s, back;
    struct basalt_buffer msg, text, buf;
    basalt_buffer_init(&msg);
    basalt_buffer_init(&text);
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "u", "name", ARROW_FLAG_NULLABLE, 0, &err),
             &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode_base64(&s, &text, &err), &err);
    CHECK_EQ(text.size, (msg.size + 2) / 3 * 4);
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i + 3 <= msg.size; i += 3) {
        uint32_t x = (uint32_t)msg.data[i] << 16 | (uint32_t)msg.data[i + 1] << 8 |
                     msg.data[i + 2];
        CHECK(text.data[i / 3 * 4] == (uint8_t)alphabet[x >> 18]);
        CHECK(text.data[i / 3 * 4 + 3] == (uint8_t)alphabet[x & 63]);
    }
    const char *t = (const char *)text.data;
    CHECK_OK(basalt_arrow_ipc_schema_decode_base64(t, text.size, &back, NULL, &err), &err);
    CHECK_STR(render(&back, &buf), "+s<name:u?>");
    basalt_arrow_schema_release(&back);
    size_t unpadded = text.size;
    while (t[unpadded - 1] == '=')
        unpadded--;
    CHECK_OK(basalt_arrow_ipc_schema_decode_base64(t, unpadded, &back, NULL, &err), &err);
    basalt_arrow_schema_release(&back);
    /* Dropping one '=' leaves valid unpadded text only when there was one. */
    basalt_status st = basalt_arrow_ipc_schema_decode_base64(t, text.size - 1, &back, NULL, &err);
    CHECK_EQ(st, text.size - unpadded == 1 ? BASALT_OK : BASALT_CORRUPT);
    basalt_arrow_schema_release(&back);
    /* A stray character. */
    char *bad = malloc(text.size);
    CHECK(bad != NULL);
    memcpy(bad, t, text.size);
    bad[5] = '*';
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_base64(bad, text.size, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "offset 5") != NULL);
    free(bad);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_base64("QUJDR", 5, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_base64("QUJD=", 5, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(back.release == NULL);
    basalt_arrow_schema_release(&s);
    basalt_buffer_reset(&msg);
    basalt_buffer_reset(&text);
    basalt_buffer_reset(&buf);
}

/* ------------------------------------------------------------ every type */

struct type_case {
    const char *format;
    int64_t flags;
    int n_children;      /* children named c0, c1, ... of type int32 */
    const char *dict;    /* dictionary value format, or NULL */
};

static const struct type_case every_type[] = {
    {"n", ARROW_FLAG_NULLABLE, 0, NULL},
    {"b", 0, 0, NULL},
    {"c", 0, 0, NULL},
    {"C", 0, 0, NULL},
    {"s", 0, 0, NULL},
    {"S", 0, 0, NULL},
    {"i", 0, 0, NULL},
    {"I", 0, 0, NULL},
    {"l", 0, 0, NULL},
    {"L", ARROW_FLAG_NULLABLE, 0, NULL},
    {"e", 0, 0, NULL},
    {"f", 0, 0, NULL},
    {"g", 0, 0, NULL},
    {"z", 0, 0, NULL},
    {"u", 0, 0, NULL},
    {"Z", 0, 0, NULL},
    {"U", 0, 0, NULL},
    {"vz", 0, 0, NULL},
    {"vu", 0, 0, NULL},
    {"w:1", 0, 0, NULL},
    {"w:16", 0, 0, NULL},
    {"d:9,2,32", 0, 0, NULL},
    {"d:18,-3,64", 0, 0, NULL},
    {"d:38,10", 0, 0, NULL},
    {"d:76,38,256", 0, 0, NULL},
    {"tdD", 0, 0, NULL},
    {"tdm", 0, 0, NULL},
    {"tts", 0, 0, NULL},
    {"ttm", 0, 0, NULL},
    {"ttu", 0, 0, NULL},
    {"ttn", 0, 0, NULL},
    {"tss:", 0, 0, NULL},
    {"tsm:UTC", 0, 0, NULL},
    {"tsu:Europe/Paris", 0, 0, NULL},
    {"tsn:+07:30", 0, 0, NULL},
    {"tDs", 0, 0, NULL},
    {"tDm", 0, 0, NULL},
    {"tDu", 0, 0, NULL},
    {"tDn", 0, 0, NULL},
    {"tiM", 0, 0, NULL},
    {"tiD", 0, 0, NULL},
    {"tin", 0, 0, NULL},
    {"+l", 0, 1, NULL},
    {"+L", 0, 1, NULL},
    {"+vl", 0, 1, NULL},
    {"+vL", 0, 1, NULL},
    {"+w:3", 0, 1, NULL},
    {"+s", 0, 0, NULL},
    {"+s", ARROW_FLAG_NULLABLE, 3, NULL},
    {"+us:4,9", 0, 2, NULL},
    {"+ud:0,1,2", 0, 3, NULL},
    {"+r", 0, 2, NULL},
    {"c", ARROW_FLAG_NULLABLE, 0, "u"},
    {"S", ARROW_FLAG_DICTIONARY_ORDERED, 0, "g"},
    {"l", 0, 0, "tsu:UTC"},
};

/* Builds a schema with one field per row of every_type (named t0, t1, ...),
 * plus a sorted map and a field with metadata; the caller releases it. */
static basalt_status build_every_type(struct ArrowSchema *s, struct basalt_error *err)
{
    size_t n = sizeof every_type / sizeof every_type[0];
    basalt_status st = basalt_arrow_schema_init(s, "+s", "", 0, (int64_t)n + 2, err);
    if (st != BASALT_OK)
        return st;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        const struct type_case *c = &every_type[i];
        char name[16];
        snprintf(name, sizeof name, "t%zu", i);
        struct ArrowSchema *f = s->children[i];
        st = basalt_arrow_schema_init(f, c->format, name, c->flags, c->n_children, err);
        for (int k = 0; k < c->n_children && st == BASALT_OK; k++) {
            char cname[16];
            snprintf(cname, sizeof cname, "c%d", k);
            const char *cf = "i";
            st = basalt_arrow_schema_init(f->children[k], cf, cname,
                                          k ? ARROW_FLAG_NULLABLE : 0, 0, err);
        }
        if (st == BASALT_OK && c->dict) {
            struct ArrowSchema d;
            st = basalt_arrow_schema_init(&d, c->dict, NULL, ARROW_FLAG_NULLABLE, 0, err);
            if (st == BASALT_OK)
                st = basalt_arrow_schema_set_dictionary(f, &d, err);
        }
    }
    if (st != BASALT_OK)
        return st;
    struct ArrowSchema *m = s->children[n];
    st = basalt_arrow_schema_init(m, "+m", "map", ARROW_FLAG_MAP_KEYS_SORTED | ARROW_FLAG_NULLABLE,
                                  1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(m->children[0], "+s", "entries", 0, 2, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(m->children[0]->children[0], "u", "key", 0, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(m->children[0]->children[1], "+l", "value",
                                      ARROW_FLAG_NULLABLE, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(m->children[0]->children[1]->children[0], "U", "item",
                                      ARROW_FLAG_NULLABLE, 0, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    st = basalt_arrow_metadata_append(&md, "ARROW:extension:name", 20, "arrow.uuid", 10, err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&md, "ARROW:extension:metadata", 24, "", 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[n + 1], "w:16", "uuid", ARROW_FLAG_NULLABLE, 0,
                                      err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s->children[n + 1], (const char *)md.data, err);
    md.size = 0;
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&md, "origin", 6, "basalt test", 11, err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&md, "empty", 5, "", 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)md.data, err);
    basalt_buffer_reset(&md);
    return st;
}

/* The text every_type must come back as, written out by hand. */
static const char every_type_text[] =
    "+s<t0:n?,t1:b,t2:c,t3:C,t4:s,t5:S,t6:i,t7:I,t8:l,t9:L?,t10:e,t11:f,t12:g,t13:z,t14:u,"
    "t15:Z,t16:U,t17:vz,t18:vu,t19:w:1,t20:w:16,t21:d:9,2,32,t22:d:18,-3,64,t23:d:38,10,"
    "t24:d:76,38,256,t25:tdD,t26:tdm,t27:tts,t28:ttm,t29:ttu,t30:ttn,t31:tss:,t32:tsm:UTC,"
    "t33:tsu:Europe/Paris,t34:tsn:+07:30,t35:tDs,t36:tDm,t37:tDu,t38:tDn,t39:tiM,t40:tiD,"
    "t41:tin,t42:+l<c0:i>,t43:+L<c0:i>,t44:+vl<c0:i>,t45:+vL<c0:i>,t46:+w:3<c0:i>,t47:+s,"
    "t48:+s?<c0:i,c1:i?,c2:i?>,t49:+us:4,9<c0:i,c1:i?>,t50:+ud:0,1,2<c0:i,c1:i?,c2:i?>,"
    "t51:+r<c0:i,c1:i?>,t52:c?[u?],t53:S![g?],t54:l[tsu:UTC?],"
    "map:+m?^<entries:+s<key:u,value:+l?<item:U?>>>,"
    "uuid:w:16?{ARROW:extension:metadata=;ARROW:extension:name=arrow.uuid}>"
    "{empty=;origin=basalt test}";

TEST(ipc_every_type_round_trip)
{
    struct basalt_error err;
    struct ArrowSchema s, back;
    struct basalt_buffer msg, buf;
    basalt_buffer_init(&msg);
    basalt_buffer_init(&buf);
    CHECK_OK(build_every_type(&s, &err), &err);
    CHECK_STR(render(&s, &buf), every_type_text);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    /* Framing: continuation, length, 8-byte padding. */
    CHECK(msg.size % 8 == 0);
    uint32_t words[2];
    memcpy(words, msg.data, 8);
    CHECK_UEQ(words[0], 0xFFFFFFFFu);
    CHECK_EQ(words[1], msg.size - 8);
    struct basalt_arrow_ipc_schema_info info;
    CHECK_OK(basalt_arrow_ipc_schema_decode(msg.data, msg.size, &back, &info, &err), &err);
    CHECK_EQ(info.metadata_version, 4);
    CHECK(!info.big_endian);
    CHECK_EQ(info.features, 0);
    CHECK_OK(basalt_arrow_schema_validate(&back, &err), &err);
    CHECK_STR(render(&back, &buf), every_type_text);
    /* Encoding what was decoded gives the same bytes. */
    struct basalt_buffer again;
    basalt_buffer_init(&again);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&back, &again, &err), &err);
    CHECK_EQ(again.size, msg.size);
    CHECK_MEM(again.data, msg.data, msg.size);
    basalt_buffer_reset(&again);
    /* The bare flatbuffer decodes too, and so does the legacy framing (a
     * length without the continuation marker). */
    basalt_arrow_schema_release(&back);
    CHECK_OK(basalt_arrow_ipc_schema_decode_message(msg.data + 8, msg.size - 8, &back, NULL, &err),
             &err);
    CHECK_STR(render(&back, &buf), every_type_text);
    basalt_arrow_schema_release(&back);
    CHECK_OK(basalt_arrow_ipc_schema_decode(msg.data + 4, msg.size - 4, &back, NULL, &err), &err);
    CHECK_STR(render(&back, &buf), every_type_text);
    basalt_arrow_schema_release(&back);
    basalt_arrow_schema_release(&s);
    basalt_buffer_reset(&msg);
    basalt_buffer_reset(&buf);
}

TEST(ipc_truncated_at_every_offset_is_corrupt)
{
    struct basalt_error err;
    struct ArrowSchema s, back;
    struct basalt_buffer msg;
    basalt_buffer_init(&msg);
    CHECK_OK(build_every_type(&s, &err), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    uint32_t fb_len = (uint32_t)msg.size - 8;
    /* Strip the zero padding: the flatbuffer proper ends at its last object. */
    while (fb_len > 0 && msg.data[8 + fb_len - 1] == 0)
        fb_len--;
    /* Trailing zeros may belong to the last string's NUL and padding; a
     * flatbuffer reader does not need them, so truncation starts below. */
    for (size_t cut = 0; cut < msg.size; cut++) {
        basalt_status st = basalt_arrow_ipc_schema_decode(msg.data, cut, &back, NULL, &err);
        CHECK_MSG(st == BASALT_CORRUPT, "framed cut at %zu: %s", cut, basalt_status_name(st));
        CHECK(back.release == NULL);
    }
    for (uint32_t cut = 0; cut < fb_len; cut++) {
        basalt_status st = basalt_arrow_ipc_schema_decode_message(msg.data + 8, cut, &back, NULL,
                                                                  &err);
        CHECK_MSG(st == BASALT_CORRUPT, "flatbuffer cut at %u: %s (%s)", cut,
                  basalt_status_name(st), err.message);
        CHECK(back.release == NULL);
    }
    basalt_arrow_schema_release(&s);
    basalt_buffer_reset(&msg);
}

TEST(ipc_random_corruption_never_crashes)
{
    struct basalt_error err;
    struct ArrowSchema s, back;
    struct basalt_buffer msg;
    basalt_buffer_init(&msg);
    CHECK_OK(build_every_type(&s, &err), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    basalt_arrow_schema_release(&s);
    uint8_t *copy = malloc(msg.size);
    CHECK(copy != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 0x5eed1);
    int outcomes[16] = {0};
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(copy, msg.data, msg.size);
        int flips = 1 + (int)bt_rng_below(&rng, 4);
        for (int k = 0; k < flips; k++) {
            size_t at = 8 + bt_rng_below(&rng, msg.size - 8);
            copy[at] = (uint8_t)bt_rng_next(&rng);
        }
        basalt_status st = basalt_arrow_ipc_schema_decode(copy, msg.size, &back, NULL, &err);
        CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_UNSUPPORTED ||
                      st == BASALT_LIMIT,
                  "iteration %d: %s", iter, basalt_status_name(st));
        outcomes[st]++;
        if (st == BASALT_OK) {
            /* Whatever decodes is a valid schema. */
            CHECK_OK(basalt_arrow_schema_validate(&back, &err), &err);
            basalt_arrow_schema_release(&back);
        } else {
            CHECK(back.release == NULL);
        }
    }
    /* Both outcomes occur: the mutations reach the checks and some are benign. */
    CHECK(outcomes[BASALT_OK] > 0);
    CHECK(outcomes[BASALT_CORRUPT] > 0);
    free(copy);
    basalt_buffer_reset(&msg);
}

/* ------------------------------------------------------------ hostile */

/* Writes little-endian words into a hand-made flatbuffer. */
static void w16(uint8_t *b, size_t at, uint16_t v)
{
    b[at] = (uint8_t)v;
    b[at + 1] = (uint8_t)(v >> 8);
}
static void w32(uint8_t *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[at + i] = (uint8_t)(v >> (8 * i));
}

/* The fixed part of the hand-made flatbuffers below: vtables at 4 (Message:
 * version, header_type, header), 16 (Schema: fields), 24 (Field: type_type,
 * type, children) and 40 (an empty table); the root Message at 48 and its
 * Schema at 64, whose fields vector is at `fields`. */
static void hostile_prefix(uint8_t *b, size_t fields)
{
    w16(b, 4, 10); w16(b, 6, 12); w16(b, 8, 4); w16(b, 10, 6); w16(b, 12, 8);
    w16(b, 16, 8); w16(b, 18, 8); w16(b, 20, 0); w16(b, 22, 4);
    w16(b, 24, 16); w16(b, 26, 16); w16(b, 28, 0); w16(b, 30, 0); w16(b, 32, 4);
    w16(b, 34, 8); w16(b, 36, 0); w16(b, 38, 12);
    w16(b, 40, 4); w16(b, 42, 4);
    w32(b, 0, 48);
    w32(b, 48, 48 - 4);  /* soffset: vtable at 4 */
    w16(b, 52, 4);       /* V5 */
    b[54] = 1;           /* Schema */
    w32(b, 56, 64 - 56); /* header */
    w32(b, 64, 64 - 16);
    w32(b, 68, (uint32_t)(fields - 68));
}

TEST(ipc_offsets_never_leave_the_buffer)
{
    /* One Struct_ field whose children offset would point back to the fields
     * vector: offsets are unsigned and point forward, so it wraps past the
     * end. CORRUPT, and nothing before the buffer is read. */
    uint8_t b[128];
    memset(b, 0, sizeof b);
    hostile_prefix(b, 72);
    w32(b, 72, 1);
    w32(b, 76, 80 - 76);
    w32(b, 80, 80 - 24); /* field: soffset to the Field vtable */
    b[84] = 13;          /* Struct_ */
    w32(b, 88, 96 - 88); /* type: the empty table at 96 */
    w32(b, 92, (uint32_t)(72 - 92)); /* children: "back" to 72 */
    w32(b, 96, 96 - 40);
    struct basalt_error err;
    struct ArrowSchema back;
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_message(b, 100, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(back.release == NULL);
    /* With an empty children vector instead, the same bytes are a schema. */
    w32(b, 92, 100 - 92);
    w32(b, 100, 0);
    CHECK_OK(basalt_arrow_ipc_schema_decode_message(b, 104, &back, NULL, &err), &err);
    CHECK_EQ(back.n_children, 1);
    CHECK_STR(back.children[0]->format, "+s");
    CHECK_STR(back.children[0]->name, "");
    basalt_arrow_schema_release(&back);
    /* A vtable claiming more bytes than remain. */
    w16(b, 26, 200);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_message(b, 104, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "table size beyond the buffer") != NULL);
    /* A field whose name is longer than the buffer: its own vtable (placed
     * after the table, a negative soffset) holds only the name. */
    memset(b, 0, sizeof b);
    hostile_prefix(b, 72);
    w32(b, 72, 1);
    w32(b, 76, 80 - 76);
    w32(b, 80, (uint32_t)(80 - 104)); /* vtable at 104 */
    w32(b, 84, 112 - 84);             /* name -> 112 */
    w16(b, 104, 6);
    w16(b, 106, 8);
    w16(b, 108, 4);
    w32(b, 112, 1000);
    memcpy(b + 116, "abcd", 4);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_message(b, 120, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "string longer than the buffer") != NULL);
    /* The same name, 4 bytes long: now the missing type is what is wrong. */
    w32(b, 112, 4);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode_message(b, 120, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "field 'abcd': field has no type") != NULL);
}

/* A forward-only DAG: vector V holds two offsets to the same Struct_ field F
 * whose children vector is V2, and so on, each level doubling the fields. The
 * bytes grow linearly with the depth; without a budget the work would not. */
TEST(ipc_shared_children_are_bounded)
{
    enum { LEVELS = 40 };
    /* Per level: a vector (count + 2 offsets = 12 bytes) then a field table
     * (soffset, type tag byte + pad, type offset, children offset = 16 bytes). */
    static uint8_t b[96 + LEVELS * 28];
    memset(b, 0, sizeof b);
    size_t vec = 76;
    hostile_prefix(b, vec);
    for (int level = 0; level < LEVELS; level++) {
        size_t field = vec + 12;
        w32(b, vec, 2);
        w32(b, vec + 4, (uint32_t)(field - (vec + 4)));
        w32(b, vec + 8, (uint32_t)(field - (vec + 8)));
        w32(b, field, (uint32_t)(field - 24));
        b[field + 4] = 13; /* Struct_ */
        /* The type table must come after; reuse one placed at the end. */
        size_t next_vec = field + 16;
        w32(b, field + 12, (uint32_t)(next_vec - (field + 12)));
        vec = next_vec;
    }
    /* Terminal: an empty vector, then the shared type table. */
    w32(b, vec, 0);
    size_t type_table = vec + 4;
    w32(b, type_table, (uint32_t)(type_table - 40));
    size_t len = type_table + 4;
    /* Point every field's type at it. */
    vec = 76;
    for (int level = 0; level < LEVELS; level++) {
        size_t field = vec + 12;
        w32(b, field + 8, (uint32_t)(type_table - (field + 8)));
        vec = field + 16;
    }
    struct basalt_error err;
    struct ArrowSchema back;
    basalt_status st = basalt_arrow_ipc_schema_decode_message(b, len, &back, NULL, &err);
    CHECK_MSG(st == BASALT_CORRUPT || st == BASALT_LIMIT, "%s: %s", basalt_status_name(st),
              err.message);
    CHECK(back.release == NULL);
    /* The same bytes with 3 levels are a legal (if shared) schema: 2 + 4 + 8 fields. */
    vec = 76;
    for (int level = 0; level < 3; level++)
        vec += 28;
    w32(b, vec, 0); /* level 3's vector is empty: fields of level 2 are leaves */
    st = basalt_arrow_ipc_schema_decode_message(b, len, &back, NULL, &err);
    CHECK_OK(st, &err);
    CHECK_EQ(back.n_children, 2);
    CHECK_EQ(back.children[0]->n_children, 2);
    CHECK_EQ(back.children[0]->children[1]->n_children, 2);
    CHECK_EQ(back.children[0]->children[1]->children[0]->n_children, 0);
    basalt_arrow_schema_release(&back);
}

TEST(ipc_decode_rejects_other_messages)
{
    struct basalt_error err;
    struct ArrowSchema s, back;
    struct basalt_buffer msg;
    basalt_buffer_init(&msg);
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    basalt_arrow_schema_release(&s);
    CHECK_OK(basalt_arrow_ipc_schema_decode(msg.data, msg.size, &back, NULL, &err), &err);
    CHECK_EQ(back.n_children, 0);
    basalt_arrow_schema_release(&back);
    /* Find the header_type byte (value 1) through the Message vtable and
     * make it a RecordBatch (3). */
    const uint8_t *fb = msg.data + 8;
    uint32_t root;
    memcpy(&root, fb, 4);
    int32_t soff;
    memcpy(&soff, fb + root, 4);
    uint32_t vt = root - (uint32_t)soff;
    uint16_t off;
    memcpy(&off, fb + vt + 6, 2);
    CHECK(off != 0);
    CHECK_EQ(msg.data[8 + root + off], 1);
    msg.data[8 + root + off] = 3;
    CHECK_STATUS(basalt_arrow_ipc_schema_decode(msg.data, msg.size, &back, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "not a Schema") != NULL);
    /* An end-of-stream marker (length 0) and a negative length. */
    static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    CHECK_STATUS(basalt_arrow_ipc_schema_decode(eos, 8, &back, NULL, &err), BASALT_CORRUPT, &err);
    static const uint8_t neg[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0xFF};
    CHECK_STATUS(basalt_arrow_ipc_schema_decode(neg, 8, &back, NULL, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode(NULL, 0, &back, NULL, &err), BASALT_CORRUPT,
                 &err);
    CHECK_STATUS(basalt_arrow_ipc_schema_decode(eos, 8, NULL, NULL, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_buffer_reset(&msg);
}

TEST(ipc_encode_rejects_bad_schemas)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct basalt_buffer msg;
    basalt_buffer_init(&msg);
    CHECK_OK(basalt_arrow_schema_init(&s, "i", "x", 0, 0, &err), &err);
    CHECK_STATUS(basalt_arrow_ipc_schema_encode(&s, &msg, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_schema_release(&s);
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "w:x", "bad", 0, 0, &err), &err);
    CHECK_STATUS(basalt_arrow_ipc_schema_encode(&s, &msg, &err), BASALT_CORRUPT, &err);
    basalt_arrow_schema_release(&s);
    CHECK_STATUS(basalt_arrow_ipc_schema_encode(&s, &msg, &err), BASALT_INVALID_ARG, &err);
    CHECK_EQ(msg.size, 0);
    basalt_buffer_reset(&msg);
}

/* ------------------------------------------------------------ allocation */

struct sweep_ctx {
    const struct basalt_buffer *msg;
    const struct ArrowSchema *schema;
};

static basalt_status decode_attempt(void *p)
{
    struct sweep_ctx *ctx = p;
    struct ArrowSchema back;
    basalt_status st =
        basalt_arrow_ipc_schema_decode(ctx->msg->data, ctx->msg->size, &back, NULL, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&back);
    else if (back.release)
        return BASALT_INTERNAL;
    return st;
}

static basalt_status encode_attempt(void *p)
{
    struct sweep_ctx *ctx = p;
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status st = basalt_arrow_ipc_schema_encode_base64(ctx->schema, &out, NULL);
    basalt_buffer_reset(&out);
    return st;
}

TEST(ipc_alloc_failure_sweeps)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct basalt_buffer msg;
    basalt_buffer_init(&msg);
    CHECK_OK(build_every_type(&s, &err), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode(&s, &msg, &err), &err);
    struct sweep_ctx ctx = {&msg, &s};
    CHECK_ALLOC_SWEEP(decode_attempt, &ctx);
    CHECK_ALLOC_SWEEP(encode_attempt, &ctx);
    basalt_arrow_schema_release(&s);
    basalt_buffer_reset(&msg);
}
