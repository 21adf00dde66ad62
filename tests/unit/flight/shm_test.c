/* The shared-memory transport (include/basalt/flight_shm.h): a producer
 * thread serves batches of mixed types built here by hand, the consumer's
 * batches are compared value by value with the formulas that made them, and
 * zero copy is checked against /proc/self/maps; crashes of either side
 * (kill -9 of a forked process) leave no memory file in any survivor and
 * nothing in /dev/shm; a scripted fake producer sends malformed manifests,
 * which must be CORRUPT or LIMIT, never a crash. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "basalt/flight_shm.h"
#include "shm_internal.h"
#include "test.h"

#define MEMFD_NAME "/memfd:basalt-flight-shm"

/* ------------------------------------------------------------ what the OS shows */

/* Descriptors of `pid` that are this transport's memory files. */
static int count_memfd_fds(pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[320], target[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (strncmp(target, MEMFD_NAME, strlen(MEMFD_NAME)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* Mappings of `pid` of this transport's memory files. */
static int count_memfd_maps(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    char line[1024];
    while (fgets(line, sizeof line, f))
        if (strstr(line, MEMFD_NAME))
            n++;
    fclose(f);
    return n;
}

/* Whether [p, p + len) lies inside one mapping of a memory file of ours. */
static bool in_memfd_mapping(const void *p, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    bool found = false;
    char line[1024];
    uintptr_t a = (uintptr_t)p;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && a >= lo && a + len <= hi &&
            strstr(line, MEMFD_NAME))
            found = true;
    }
    fclose(f);
    return found;
}

/* The names in /dev/shm that could be ours ("basalt" in them), sorted and
 * joined, for before/after comparisons: other programs of a parallel test
 * run (PostgreSQL in the catalog tests) add and remove their own entries. */
static void list_dev_shm(char *out, size_t cap)
{
    out[0] = '\0';
    struct dirent **names = NULL;
    int n = scandir("/dev/shm", &names, NULL, alphasort);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        if (!strcasestr(names[i]->d_name, "basalt")) {
            free(names[i]);
            continue;
        }
        int w = snprintf(out + used, cap - used, "%s\n", names[i]->d_name);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
        free(names[i]);
    }
    free(names);
}

static void socket_path(char *buf, size_t cap, const char *what)
{
    snprintf(buf, cap, "/tmp/basalt-shm-test-%d-%s.sock", (int)getpid(), what);
    unlink(buf);
}

/* ------------------------------------------------------------ the batches */

enum { MIXED_BATCHES = 5 };

static int64_t mixed_len(int b)
{
    return b == 2 ? 0 : 1000 + 137 * b; /* batch 2 is empty */
}

static int32_t int_value(int b, int64_t i)
{
    return (int32_t)(b * 100003 + i * 7 - 3);
}

static bool double_null(int b, int64_t i)
{
    return (i + b) % 3 == 0;
}

static double double_value(int b, int64_t i)
{
    return b + (double)i * 0.25;
}

static bool string_null(int64_t i)
{
    return i % 11 == 5;
}

/* The string of row i: "b:i" repeated i % 3 times (so some are empty). */
static size_t string_value(int b, int64_t i, char *buf)
{
    size_t n = 0;
    for (int64_t k = 0; k < i % 3; k++)
        n += (size_t)sprintf(buf + n, "%d:%lld", b, (long long)i);
    return n;
}

static bool list_null(int64_t i)
{
    return i % 5 == 4;
}

static int64_t list_len(int64_t i)
{
    return list_null(i) ? 0 : i % 4;
}

static int64_t list_item(int b, int64_t i, int64_t k)
{
    return (int64_t)b * 1000000 + i * 10 + k;
}

static const char *const dict_even[] = {"red", "green", "blue"};
static const char *const dict_odd[] = {"x", "y"};

static int dict_size(int b)
{
    return b % 2 ? 2 : 3;
}

static const char *dict_word(int b, int64_t k)
{
    return b % 2 ? dict_odd[k] : dict_even[k];
}

static int8_t dict_index(int b, int64_t i)
{
    return (int8_t)((i + b) % dict_size(b));
}

static void set_bit(uint8_t *bits, int64_t i)
{
    bits[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool get_bit(const void *bits, int64_t i)
{
    return !bits || (((const uint8_t *)bits)[i / 8] >> (i % 8)) & 1;
}

static basalt_status mixed_schema(struct ArrowSchema *s, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(s, "+s", NULL, 0, 5, err);
    if (st != BASALT_OK)
        return st;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[0], "i", "i", 0, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[1], "g", "g", ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[2], "u", "s", ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[3], "+l", "l", ARROW_FLAG_NULLABLE, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[3]->children[0], "l", "item",
                                      ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(s->children[4], "c", "c", ARROW_FLAG_NULLABLE, 0, err);
    struct ArrowSchema dict;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(&dict, "u", NULL, ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_dictionary(s->children[4], &dict, err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(s);
    return st;
}

static basalt_status alloc(struct ArrowArray *a, int64_t i, size_t size, void *out,
                           struct basalt_error *err)
{
    void *p;
    basalt_status st = basalt_arrow_array_allocate_buffer(a, i, size ? size : 1, &p, err);
    if (st == BASALT_OK) {
        memset(p, 0, size ? size : 1);
        memcpy(out, &p, sizeof p);
    }
    return st;
}

/* A utf8 array of `n` strings from `words`. */
static basalt_status utf8_array(struct ArrowArray *a, int n, const char *const *words,
                                struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(a, 3, 0, err);
    int32_t *off = NULL;
    char *data = NULL;
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += strlen(words[k]);
    if (st == BASALT_OK)
        st = alloc(a, 1, sizeof(int32_t) * (size_t)(n + 1), &off, err);
    if (st == BASALT_OK)
        st = alloc(a, 2, total, &data, err);
    if (st != BASALT_OK)
        return st;
    size_t pos = 0;
    for (int k = 0; k < n; k++) {
        off[k] = (int32_t)pos;
        memcpy(data + pos, words[k], strlen(words[k]));
        pos += strlen(words[k]);
    }
    off[n] = (int32_t)pos;
    a->length = n;
    return BASALT_OK;
}

/* Batch b of the mixed stream, built by hand from the formulas above. */
static basalt_status mixed_batch(int b, struct ArrowArray *out, struct basalt_error *err)
{
    int64_t n = mixed_len(b);
    size_t bits = (size_t)(n + 7) / 8;
    basalt_status st = basalt_arrow_array_init(out, 1, 5, err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    struct ArrowArray *ci = out->children[0], *cg = out->children[1], *cu = out->children[2],
                      *cl = out->children[3], *cc = out->children[4];
    int32_t *iv = NULL, *uoff = NULL, *loff = NULL;
    double *gv = NULL;
    uint8_t *gnull = NULL, *unull = NULL, *lnull = NULL;
    char *udata = NULL;
    int64_t *items = NULL;
    int8_t *idx = NULL;
    /* int32 */
    st = basalt_arrow_array_init(ci, 2, 0, err);
    if (st == BASALT_OK)
        st = alloc(ci, 1, sizeof(int32_t) * (size_t)n, &iv, err);
    if (st != BASALT_OK)
        goto fail;
    ci->length = n;
    for (int64_t i = 0; i < n; i++)
        iv[i] = int_value(b, i);
    /* double with nulls */
    st = basalt_arrow_array_init(cg, 2, 0, err);
    if (st == BASALT_OK)
        st = alloc(cg, 0, bits, &gnull, err);
    if (st == BASALT_OK)
        st = alloc(cg, 1, sizeof(double) * (size_t)n, &gv, err);
    if (st != BASALT_OK)
        goto fail;
    cg->length = n;
    for (int64_t i = 0; i < n; i++) {
        if (double_null(b, i)) {
            cg->null_count++;
            continue;
        }
        set_bit(gnull, i);
        gv[i] = double_value(b, i);
    }
    /* strings with nulls */
    st = basalt_arrow_array_init(cu, 3, 0, err);
    if (st == BASALT_OK)
        st = alloc(cu, 0, bits, &unull, err);
    if (st == BASALT_OK)
        st = alloc(cu, 1, sizeof(int32_t) * (size_t)(n + 1), &uoff, err);
    if (st == BASALT_OK)
        st = alloc(cu, 2, (size_t)n * 40, &udata, err);
    if (st != BASALT_OK)
        goto fail;
    cu->length = n;
    size_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        uoff[i] = (int32_t)pos;
        if (string_null(i)) {
            cu->null_count++;
            continue;
        }
        set_bit(unull, i);
        pos += string_value(b, i, udata + pos);
    }
    uoff[n] = (int32_t)pos;
    /* list<int64> with nulls */
    int64_t n_items = 0;
    for (int64_t i = 0; i < n; i++)
        n_items += list_len(i);
    st = basalt_arrow_array_init(cl, 2, 1, err);
    if (st == BASALT_OK)
        st = alloc(cl, 0, bits, &lnull, err);
    if (st == BASALT_OK)
        st = alloc(cl, 1, sizeof(int32_t) * (size_t)(n + 1), &loff, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(cl->children[0], 2, 0, err);
    if (st == BASALT_OK)
        st = alloc(cl->children[0], 1, sizeof(int64_t) * (size_t)n_items, &items, err);
    if (st != BASALT_OK)
        goto fail;
    cl->length = n;
    cl->children[0]->length = n_items;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        loff[i] = (int32_t)at;
        if (list_null(i)) {
            cl->null_count++;
            continue;
        }
        set_bit(lnull, i);
        for (int64_t k = 0; k < list_len(i); k++)
            items[at++] = list_item(b, i, k);
    }
    loff[n] = (int32_t)at;
    /* dictionary-encoded strings, a new dictionary per batch */
    st = basalt_arrow_array_init(cc, 2, 0, err);
    if (st == BASALT_OK)
        st = alloc(cc, 1, (size_t)n, &idx, err);
    if (st != BASALT_OK)
        goto fail;
    cc->length = n;
    for (int64_t i = 0; i < n; i++)
        idx[i] = dict_index(b, i);
    struct ArrowArray dict;
    st = utf8_array(&dict, dict_size(b), b % 2 ? dict_odd : dict_even, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&dict);
        goto fail;
    }
    st = basalt_arrow_array_set_dictionary(cc, &dict, err);
    if (st != BASALT_OK)
        goto fail;
    return BASALT_OK;
fail:
    basalt_arrow_array_release(out);
    return st;
}

/* Checks consumer batch b against the formulas; returns a message or NULL. */
static const char *check_mixed(int b, const struct ArrowArray *a, char *msg, size_t cap)
{
    int64_t n = mixed_len(b);
    if (a->length != n || a->n_children != 5 || a->offset != 0) {
        snprintf(msg, cap, "batch %d: length %lld, %lld children", b, (long long)a->length,
                 (long long)a->n_children);
        return msg;
    }
    const struct ArrowArray *ci = a->children[0], *cg = a->children[1], *cu = a->children[2],
                            *cl = a->children[3], *cc = a->children[4];
    const int32_t *iv = ci->buffers[1];
    const double *gv = cg->buffers[1];
    const int32_t *uoff = cu->buffers[1];
    const char *udata = cu->buffers[2];
    const int32_t *loff = cl->buffers[1];
    const int64_t *items = cl->children[0]->buffers[1];
    const int8_t *idx = cc->buffers[1];
    for (int64_t r = 0; r < n; r++) {
        int64_t i = r;
        if (iv[ci->offset + i] != int_value(b, i) || !get_bit(ci->buffers[0], ci->offset + i)) {
            snprintf(msg, cap, "batch %d row %lld: int", b, (long long)i);
            return msg;
        }
        bool valid = get_bit(cg->buffers[0], cg->offset + i);
        if (valid == double_null(b, i) || (valid && gv[cg->offset + i] != double_value(b, i))) {
            snprintf(msg, cap, "batch %d row %lld: double", b, (long long)i);
            return msg;
        }
        valid = get_bit(cu->buffers[0], cu->offset + i);
        char want[64];
        size_t wl = string_value(b, i, want);
        int64_t so = uoff[cu->offset + i], se = uoff[cu->offset + i + 1];
        if (valid == string_null(i) ||
            (valid && ((size_t)(se - so) != wl || memcmp(udata + so, want, wl) != 0))) {
            snprintf(msg, cap, "batch %d row %lld: string", b, (long long)i);
            return msg;
        }
        valid = get_bit(cl->buffers[0], cl->offset + i);
        int64_t lo = loff[cl->offset + i], le = loff[cl->offset + i + 1];
        if (valid == list_null(i) || (valid && le - lo != list_len(i))) {
            snprintf(msg, cap, "batch %d row %lld: list", b, (long long)i);
            return msg;
        }
        for (int64_t k = 0; valid && k < list_len(i); k++)
            if (items[cl->children[0]->offset + lo + k] != list_item(b, i, k)) {
                snprintf(msg, cap, "batch %d row %lld: list item %lld", b, (long long)i,
                         (long long)k);
                return msg;
            }
        const struct ArrowArray *d = cc->dictionary;
        int8_t k = idx[cc->offset + i];
        if (!d || k != dict_index(b, i) || k >= d->length) {
            snprintf(msg, cap, "batch %d row %lld: dictionary index", b, (long long)i);
            return msg;
        }
        const int32_t *doff = d->buffers[1];
        const char *dd = d->buffers[2];
        const char *w = dict_word(b, k);
        if ((size_t)(doff[d->offset + k + 1] - doff[d->offset + k]) != strlen(w) ||
            memcmp(dd + doff[d->offset + k], w, strlen(w)) != 0) {
            snprintf(msg, cap, "batch %d row %lld: dictionary word", b, (long long)i);
            return msg;
        }
    }
    return NULL;
}

/* Every non-NULL buffer of `a` (children and dictionary too) inside
 * [lo, hi]; counts them in *n. */
static bool buffers_inside(const struct ArrowArray *a, const uint8_t *lo, const uint8_t *hi,
                           int64_t *n)
{
    /* Empty buffers of an empty array point at a static zero block. */
    for (int64_t i = 0; a->length > 0 && i < a->n_buffers; i++) {
        const uint8_t *p = a->buffers[i];
        if (!p)
            continue;
        if (p < lo || p > hi)
            return false;
        (*n)++;
    }
    for (int64_t i = 0; i < a->n_children; i++)
        if (!buffers_inside(a->children[i], lo, hi, n))
            return false;
    return !a->dictionary || buffers_inside(a->dictionary, lo, hi, n);
}

/* ------------------------------------------------------------ a long stream */

/* `batches` batches of one double column ("x", `rows` each, value
 * b * rows + i), with a pause before each; the values in memory from
 * `allocator` when there is one (the producer's segment). */
struct long_stream {
    int64_t batches, rows, next;
    int pause_us;
    const struct basalt_arrow_allocator *allocator;
    struct basalt_error err;
};

static int long_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct long_stream *p = s->private_data;
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, 1, &p->err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(out->children[0], "g", "x", 0, 0, &p->err);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(out);
        return ENOMEM;
    }
    return 0;
}

static int long_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct long_stream *p = s->private_data;
    out->release = NULL;
    if (p->next >= p->batches)
        return 0;
    if (p->pause_us)
        usleep((useconds_t)p->pause_us);
    double *v = NULL;
    if (basalt_arrow_array_init(out, 1, 1, &p->err) != BASALT_OK)
        return ENOMEM;
    if (basalt_arrow_array_init_with(out->children[0], 2, 0, p->allocator, &p->err) !=
            BASALT_OK ||
        alloc(out->children[0], 1, sizeof(double) * (size_t)p->rows, &v, &p->err) != BASALT_OK) {
        basalt_arrow_array_release(out);
        return ENOMEM;
    }
    for (int64_t i = 0; i < p->rows; i++)
        v[i] = (double)(p->next * p->rows + i);
    out->length = out->children[0]->length = p->rows;
    p->next++;
    return 0;
}

static const char *long_last_error(struct ArrowArrayStream *s)
{
    return ((struct long_stream *)s->private_data)->err.message;
}

static void long_release(struct ArrowArrayStream *s)
{
    basalt_free(s->private_data);
    s->release = NULL;
}

static basalt_status long_stream_new(int64_t batches, int64_t rows, int pause_us,
                                     const struct basalt_arrow_allocator *allocator,
                                     struct ArrowArrayStream *out, struct basalt_error *err)
{
    struct long_stream *p = basalt_calloc(1, sizeof *p);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    p->allocator = allocator;
    p->batches = batches;
    p->rows = rows;
    p->pause_us = pause_us;
    out->get_schema = long_get_schema;
    out->get_next = long_get_next;
    out->get_last_error = long_last_error;
    out->release = long_release;
    out->private_data = p;
    return BASALT_OK;
}

static bool check_long(const struct ArrowArray *a, int64_t b, int64_t rows)
{
    if (a->length != rows || a->n_children != 1)
        return false;
    const double *v = a->children[0]->buffers[1];
    for (int64_t i = 0; i < rows; i++)
        if (v[i] != (double)(b * rows + i))
            return false;
    return true;
}

/* ------------------------------------------------------------ the producer */

/* Tickets: "mixed", "long" (4000 batches of 4096 doubles, 200 us apart),
 * "big" (64 batches of 65536 doubles), "placed" ("big" in the producer's
 * segment); anything else is NOT_FOUND. */
static basalt_status open_ticket(void *ctx, const void *ticket, size_t len,
                                 const struct basalt_arrow_allocator *allocator,
                                 struct ArrowArrayStream *out, struct basalt_error *err)
{
    (void)ctx;
    if (len == 5 && !memcmp(ticket, "mixed", 5)) {
        struct basalt_arrow_batches batches;
        basalt_arrow_batches_init(&batches);
        basalt_status st = mixed_schema(&batches.schema, err);
        for (int b = 0; st == BASALT_OK && b < MIXED_BATCHES; b++) {
            struct ArrowArray a;
            st = mixed_batch(b, &a, err);
            if (st == BASALT_OK)
                st = basalt_arrow_batches_append(&batches, &a, err);
        }
        if (st == BASALT_OK)
            return basalt_arrow_stream_from_batches(&batches, out, err);
        basalt_arrow_batches_reset(&batches);
        return st;
    }
    if (len == 4 && !memcmp(ticket, "long", 4))
        return long_stream_new(4000, 4096, 200, NULL, out, err);
    if (len == 3 && !memcmp(ticket, "big", 3))
        return long_stream_new(64, 65536, 0, NULL, out, err);
    if (len == 6 && !memcmp(ticket, "placed", 6))
        return long_stream_new(64, 65536, 0, allocator, out, err);
    return basalt_error_set(err, BASALT_NOT_FOUND, "no such ticket '%.*s'", (int)len,
                            (const char *)ticket);
}

struct serve_one_ctx {
    struct basalt_flight_shm_server *server;
    basalt_status st;
    struct basalt_error err;
};

static void *serve_one_main(void *arg)
{
    struct serve_one_ctx *c = arg;
    c->st = basalt_flight_shm_server_serve_one(c->server, &c->err);
    return NULL;
}

/* ------------------------------------------------------------ tests */

TEST(shm_roundtrip_mixed)
{
    char path[100], shm_before[8192], shm_after[8192];
    socket_path(path, sizeof path, "mixed");
    list_dev_shm(shm_before, sizeof shm_before);
    struct basalt_error err;
    struct serve_one_ctx sc = {0};
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &sc.server, &err), &err);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, serve_one_main, &sc) == 0);

    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, "mixed", 5, NULL, &s, &err);
    if (st != BASALT_OK) {
        pthread_join(t, NULL);
        basalt_flight_shm_server_free(sc.server);
        CHECK_OK(st, &err);
    }
    struct ArrowSchema schema;
    CHECK(s.get_schema(&s, &schema) == 0);
    CHECK_EQ(schema.n_children, 5);
    CHECK_STR(schema.children[3]->format, "+l");
    CHECK(schema.children[4]->dictionary != NULL);
    struct ArrowArray got[MIXED_BATCHES];
    int n = 0;
    char msg[256];
    const char *bad = NULL;
    for (;;) {
        struct ArrowArray a;
        int rc = s.get_next(&s, &a);
        CHECK_MSG(rc == 0, "get_next: %d %s", rc, s.get_last_error(&s));
        if (!a.release)
            break;
        CHECK(n < MIXED_BATCHES);
        basalt_arrow_array_move(&a, &got[n]);
        if (!bad)
            bad = check_mixed(n, &got[n], msg, sizeof msg);
        n++;
    }
    pthread_join(t, NULL);
    CHECK_OK(sc.st, &sc.err);
    CHECK_EQ(n, MIXED_BATCHES);
    CHECK_MSG(!bad, "%s", bad);
    /* A full validation of what came through the mapping. */
    for (int b = 0; b < n; b++)
        CHECK_OK(basalt_arrow_array_validate(&schema, &got[b], BASALT_ARROW_VALIDATE_FULL, &err),
                 &err);
    /* Zero copy: every buffer lies in the mapping, which the kernel says is
     * a mapping of our memory file. */
    struct basalt_flight_shm_stream_info info;
    CHECK_OK(basalt_flight_shm_stream_info(&s, &info, &err), &err);
    CHECK(info.ended);
    CHECK_EQ(info.batches, MIXED_BATCHES);
    CHECK(info.ipc.buffers_zero_copy > 0);
    CHECK_EQ(info.ipc.buffers_copied, 0);
    CHECK(in_memfd_mapping(info.mapping, 4096));
    const uint8_t *lo = info.mapping, *hi = lo + info.published;
    int64_t nbuf = 0;
    for (int b = 0; b < n; b++)
        CHECK_MSG(buffers_inside(&got[b], lo, hi, &nbuf), "batch %d: a buffer outside", b);
    CHECK(nbuf > 30);
    /* The end record closed the descriptor; the mapping lives on. */
    CHECK_EQ(count_memfd_fds(getpid()), 0);
    CHECK_EQ(count_memfd_maps(getpid()), 1);
    /* Arrays outlive the stream. */
    s.release(&s);
    CHECK_MSG(!check_mixed(4, &got[4], msg, sizeof msg), "%s", msg);
    for (int b = 0; b < n - 1; b++)
        basalt_arrow_array_release(&got[b]);
    CHECK_EQ(count_memfd_maps(getpid()), 1);
    basalt_arrow_array_release(&got[n - 1]);
    CHECK_EQ(count_memfd_maps(getpid()), 0);
    basalt_arrow_schema_release(&schema);

    struct basalt_flight_shm_server_stats stats;
    basalt_flight_shm_server_stats(sc.server, &stats);
    CHECK_EQ(stats.streams_ok, 1);
    CHECK_EQ(stats.batches, MIXED_BATCHES);
    basalt_flight_shm_server_free(sc.server);
    CHECK(access(path, F_OK) != 0); /* the socket file is gone */
    list_dev_shm(shm_after, sizeof shm_after);
    CHECK_STR(shm_after, shm_before);
}

static void count_log(void *ctx, basalt_status st, const char *message)
{
    (void)st;
    (void)message;
    __atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELAXED);
}

TEST(shm_unknown_ticket_and_no_server)
{
    char path[100];
    socket_path(path, sizeof path, "ticket");
    struct basalt_error err;
    struct ArrowArrayStream s;
    /* No socket at all. */
    CHECK_STATUS(basalt_flight_shm_open(path, "x", 1, NULL, &s, &err), BASALT_NOT_FOUND, &err);
    CHECK(s.release == NULL);
    int logged = 0;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.log = count_log;
    o.log_ctx = &logged;
    struct serve_one_ctx sc = {0};
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &sc.server, &err), &err);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, serve_one_main, &sc) == 0);
    basalt_status st = basalt_flight_shm_open(path, "nope", 4, NULL, &s, &err);
    pthread_join(t, NULL);
    CHECK_STATUS(st, BASALT_NOT_FOUND, &err);
    CHECK_MSG(strstr(err.message, "no such ticket 'nope'") != NULL, "%s", err.message);
    CHECK_EQ(sc.st, BASALT_NOT_FOUND);
    CHECK_EQ(logged, 1);
    /* A second server on a live socket. */
    struct basalt_flight_shm_server *other;
    CHECK_STATUS(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &other, &err),
                 BASALT_CONFLICT, &err);
    basalt_flight_shm_server_free(sc.server);
    /* A stale socket file (its server gone without unlinking) is replaced;
     * a regular file is not. */
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    CHECK(bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    close(fd);
    CHECK_STATUS(basalt_flight_shm_open(path, "x", 1, NULL, &s, &err), BASALT_IO, &err);
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &sc.server, &err), &err);
    basalt_flight_shm_server_free(sc.server);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fclose(f);
    CHECK_STATUS(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &other, &err),
                 BASALT_CONFLICT, &err);
    unlink(path);
}

TEST(shm_segment_limit)
{
    char path[100];
    socket_path(path, sizeof path, "limit");
    struct basalt_error err;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.max_segment_size = 1 << 20;
    o.grow_step = 1 << 16;
    struct serve_one_ctx sc = {0};
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &sc.server, &err), &err);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, serve_one_main, &sc) == 0);
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, "big", 3, NULL, &s, &err);
    int rc = 0, batches = 0;
    /* The batches are kept: memory handed back would be written again. */
    struct ArrowArray kept[8];
    while (st == BASALT_OK && batches < 8) {
        struct ArrowArray a;
        rc = s.get_next(&s, &a);
        if (rc != 0 || !a.release)
            break;
        CHECK(check_long(&a, batches, 65536));
        basalt_arrow_array_move(&a, &kept[batches++]);
    }
    for (int i = 0; i < batches; i++)
        kept[i].release(&kept[i]);
    char msg[BASALT_ERROR_MESSAGE_MAX];
    snprintf(msg, sizeof msg, "%s", st == BASALT_OK ? s.get_last_error(&s) : "");
    if (st == BASALT_OK)
        s.release(&s);
    pthread_join(t, NULL);
    basalt_flight_shm_server_free(sc.server);
    CHECK_OK(st, &err);
    /* 1 MiB holds one 512 KiB batch, not two. */
    CHECK_EQ(batches, 1);
    CHECK_EQ(rc, EOVERFLOW);
    CHECK_MSG(strstr(msg, "producer:") && strstr(msg, "max_segment_size"), "%s", msg);
    CHECK_EQ(sc.st, BASALT_LIMIT);
}

/* Reads ticket `ticket` (64 batches of 65536 doubles) through a 4 MiB
 * segment, releasing each batch as it goes, and gives the server's
 * counters. */
static void read_big_through_small_segment(const char *ticket, bool decode_in_place,
                                           struct basalt_flight_shm_server_stats *stats)
{
    char path[100];
    socket_path(path, sizeof path, ticket);
    struct basalt_error err;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.max_segment_size = 4 << 20;
    o.reuse_window = 2 << 20;
    o.decode_in_place = decode_in_place;
    struct serve_one_ctx sc = {0};
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &sc.server, &err), &err);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, serve_one_main, &sc) == 0);
    struct basalt_flight_shm_client_options co;
    basalt_flight_shm_client_options_init(&co);
    co.max_segment_size = 4 << 20;
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, ticket, strlen(ticket), &co, &s, &err);
    int rc = 0, batches = 0;
    while (st == BASALT_OK) {
        struct ArrowArray a;
        rc = s.get_next(&s, &a);
        if (rc != 0 || !a.release)
            break;
        CHECK(check_long(&a, batches, 65536));
        batches++;
        a.release(&a);
    }
    char msg[BASALT_ERROR_MESSAGE_MAX] = "";
    if (st == BASALT_OK) {
        if (rc != 0)
            snprintf(msg, sizeof msg, "%s", s.get_last_error(&s));
        s.release(&s);
    }
    pthread_join(t, NULL);
    basalt_flight_shm_server_stats(sc.server, stats);
    basalt_flight_shm_server_free(sc.server);
    CHECK_OK(st, &err);
    CHECK_MSG(rc == 0, "%s", msg);
    CHECK_EQ(batches, 64);
    CHECK_EQ(sc.st, BASALT_OK);
}

/* A consumer that releases each batch as it goes reads 32 MiB through a
 * 4 MiB segment: the producer copies each batch where memory came back. */
TEST(shm_released_memory_is_reused)
{
    struct basalt_flight_shm_server_stats stats;
    read_big_through_small_segment("big", true, &stats);
    CHECK_EQ(stats.batches, 64);
    CHECK_EQ(stats.decoded_bytes, 0);
    CHECK_EQ(stats.in_place_bytes, 0);
    CHECK_EQ(stats.copied_bytes, 64 * 65536 * 8);
}

/* With decode_in_place, a source that allocates through the producer's
 * allocator fills the segment itself: every value buffer is published
 * where it was written, nothing is copied, and the memory the consumer
 * hands back is allocated again (32 MiB through 4 MiB). Without it the
 * source gets no allocator and its batches are copied. */
TEST(shm_decoded_in_place)
{
    struct basalt_flight_shm_server_stats stats;
    read_big_through_small_segment("placed", true, &stats);
    CHECK_EQ(stats.batches, 64);
    CHECK_EQ(stats.decoded_bytes, 64 * 65536 * 8);
    CHECK_EQ(stats.in_place_bytes, 64 * 65536 * 8);
    CHECK_EQ(stats.copied_bytes, 0);
    read_big_through_small_segment("placed", false, &stats);
    CHECK_EQ(stats.decoded_bytes, 0);
    CHECK_EQ(stats.in_place_bytes, 0);
    CHECK_EQ(stats.copied_bytes, 64 * 65536 * 8);
}

/* Reads every batch of `s` (the "big" ticket's values), then releases it;
 * the mapping's address in *mapping. */
static int64_t read_big(struct ArrowArrayStream *s, const void **mapping)
{
    int64_t batches = 0;
    for (;;) {
        struct ArrowArray a;
        if (s->get_next(s, &a) != 0 || !a.release)
            break;
        if (!check_long(&a, batches, 65536))
            batches = -1000;
        batches++;
        a.release(&a);
    }
    struct basalt_flight_shm_stream_info info;
    *mapping = basalt_flight_shm_stream_info(s, &info, NULL) == BASALT_OK ? info.mapping : NULL;
    s->release(s);
    return batches;
}

/* A session reads several tickets over one connection and one mapping,
 * the later streams written over memory the earlier ones handed back
 * (the 4 MiB file holds 32 MiB a stream); a stream left before its end
 * drops the connection, and so does the producer's idle timeout: the next
 * _get connects again. */
TEST(shm_session_reads_tickets_in_one_file)
{
    char path[100];
    socket_path(path, sizeof path, "session");
    struct basalt_error err;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.max_segment_size = 4 << 20;
    o.reuse_window = 2 << 20;
    o.idle_timeout_ms = 300;
    struct basalt_flight_shm_server *server;
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &server, &err), &err);
    CHECK_OK(basalt_flight_shm_server_start(server, &err), &err);
    struct basalt_flight_shm_client_options co;
    basalt_flight_shm_client_options_init(&co);
    co.max_segment_size = 4 << 20;
    struct basalt_flight_shm_session *session;
    CHECK_OK(basalt_flight_shm_session_open(path, &co, &session, &err), &err);
    const void *maps[3] = {NULL, NULL, NULL};
    int64_t batches[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        struct ArrowArrayStream s;
        CHECK_OK(basalt_flight_shm_session_get(session, "big", 3, &s, &err), &err);
        struct ArrowArrayStream other;
        CHECK_STATUS(basalt_flight_shm_session_get(session, "big", 3, &other, &err),
                     BASALT_INVALID_ARG, &err);
        batches[i] = read_big(&s, &maps[i]);
    }
    struct basalt_flight_shm_server_stats one;
    basalt_flight_shm_server_stats(server, &one);
    /* Left after one batch: the connection goes; the next stream gets a new one. */
    struct ArrowArrayStream s;
    CHECK_OK(basalt_flight_shm_session_get(session, "big", 3, &s, &err), &err);
    struct ArrowArray a;
    CHECK(s.get_next(&s, &a) == 0 && a.release);
    a.release(&a);
    s.release(&s);
    const void *map_after_drop = NULL;
    CHECK_OK(basalt_flight_shm_session_get(session, "big", 3, &s, &err), &err);
    int64_t after_drop = read_big(&s, &map_after_drop);
    /* Idle past the producer's timeout: the connection is closed under the
     * session, which connects again. */
    usleep(600 * 1000);
    const void *map_after_idle = NULL;
    CHECK_OK(basalt_flight_shm_session_get(session, "big", 3, &s, &err), &err);
    int64_t after_idle = read_big(&s, &map_after_idle);
    basalt_flight_shm_session_close(session);
    struct basalt_flight_shm_server_stats two;
    for (int i = 0; i < 2000; i++) {
        basalt_flight_shm_server_stats(server, &two);
        if (two.connections == 3 && two.streams_ok == 5)
            break;
        usleep(5000);
    }
    basalt_flight_shm_server_free(server);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(batches[i], 64);
        CHECK(maps[i] != NULL && maps[i] == maps[0]);
    }
    CHECK_EQ(one.connections, 1);
    CHECK_EQ(one.streams_ok, 3);
    CHECK_EQ(one.failures, 0);
    CHECK_EQ(after_drop, 64);
    CHECK_EQ(after_idle, 64);
    CHECK(map_after_drop != NULL && map_after_idle != NULL);
    CHECK_EQ(two.connections, 3);
    CHECK_EQ(two.streams_ok, 5);
    CHECK_EQ(two.failures, 1); /* the stream left mid-way */
}

/* Waits for one byte on `fd`, at most `ms`. */
static bool wait_byte(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c;
    return poll(&p, 1, ms) == 1 && read(fd, &c, 1) == 1;
}

TEST(shm_producer_killed)
{
    char path[100], shm_before[8192], shm_after[8192];
    socket_path(path, sizeof path, "pkill");
    list_dev_shm(shm_before, sizeof shm_before);
    struct basalt_error err;
    struct basalt_flight_shm_server *server;
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &server, &err), &err);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        /* The producer: serves one "long" stream (4000 batches). */
        basalt_flight_shm_server_serve_one(server, NULL);
        _exit(0);
    }
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, "long", 4, NULL, &s, &err);
    if (st != BASALT_OK) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        basalt_flight_shm_server_free(server);
        CHECK_OK(st, &err);
    }
    struct ArrowArray held[3];
    int n = 0, rc = 0;
    for (; n < 3; n++) {
        rc = s.get_next(&s, &held[n]);
        if (rc != 0 || !held[n].release)
            break;
    }
    /* Mid-transfer: both sides hold the file (the control for the checks
     * after the kill). */
    int producer_fds = count_memfd_fds(child), my_maps = count_memfd_maps(getpid());
    int my_fds = count_memfd_fds(getpid());
    kill(child, SIGKILL);
    int wst = 0;
    waitpid(child, &wst, 0);
    CHECK_MSG(rc == 0 && n == 3, "rc %d after %d batches: %s", rc, n, s.get_last_error(&s));
    CHECK_EQ(producer_fds, 1);
    CHECK_EQ(my_fds, 1);
    CHECK_EQ(my_maps, 1);
    CHECK(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL);
    /* The consumer drains what was published, then fails cleanly. */
    int more = 0;
    for (;;) {
        struct ArrowArray a;
        rc = s.get_next(&s, &a);
        if (rc != 0 || !a.release)
            break;
        CHECK(check_long(&a, 3 + more, 4096));
        more++;
        a.release(&a);
    }
    CHECK_EQ(rc, EIO);
    const char *msg = s.get_last_error(&s);
    CHECK_MSG(strstr(msg, "closed the connection before the end of the stream"), "%s", msg);
    CHECK(more < 4000 - 3);
    /* An error is final. */
    struct ArrowArray a;
    CHECK_EQ(s.get_next(&s, &a), EIO);
    CHECK_EQ(count_memfd_fds(getpid()), 0); /* closed at the failure */
    s.release(&s);
    /* The arrays already handed out are intact. */
    for (int b = 0; b < 3; b++) {
        CHECK(check_long(&held[b], b, 4096));
        held[b].release(&held[b]);
    }
    CHECK_EQ(count_memfd_fds(getpid()), 0);
    CHECK_EQ(count_memfd_maps(getpid()), 0);
    basalt_flight_shm_server_free(server);
    list_dev_shm(shm_after, sizeof shm_after);
    CHECK_STR(shm_after, shm_before);
}

struct log_capture {
    pthread_mutex_t mu;
    int n;
    char last[BASALT_ERROR_MESSAGE_MAX + 64];
};

static void capture_log(void *ctx, basalt_status st, const char *message)
{
    struct log_capture *c = ctx;
    pthread_mutex_lock(&c->mu);
    c->n++;
    snprintf(c->last, sizeof c->last, "%s: %s", basalt_status_name(st), message);
    pthread_mutex_unlock(&c->mu);
}

static int log_count(struct log_capture *c)
{
    pthread_mutex_lock(&c->mu);
    int n = c->n;
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* Reads the whole mixed stream and checks it; NULL when right. */
static const char *read_mixed(const char *path, char *msg, size_t cap)
{
    struct basalt_error err;
    struct ArrowArrayStream s;
    if (basalt_flight_shm_open(path, "mixed", 5, NULL, &s, &err) != BASALT_OK) {
        snprintf(msg, cap, "open: %.200s", err.message);
        return msg;
    }
    const char *bad = NULL;
    int n = 0;
    for (;;) {
        struct ArrowArray a;
        if (s.get_next(&s, &a) != 0) {
            snprintf(msg, cap, "get_next: %.200s", s.get_last_error(&s));
            bad = msg;
            break;
        }
        if (!a.release)
            break;
        if (!bad)
            bad = check_mixed(n, &a, msg, cap);
        n++;
        a.release(&a);
    }
    s.release(&s);
    if (!bad && n != MIXED_BATCHES) {
        snprintf(msg, cap, "%d batches", n);
        bad = msg;
    }
    return bad;
}

TEST(shm_consumer_killed)
{
    char path[100], shm_before[8192], shm_after[8192];
    socket_path(path, sizeof path, "ckill");
    list_dev_shm(shm_before, sizeof shm_before);
    struct basalt_error err;
    struct log_capture logs = {.mu = PTHREAD_MUTEX_INITIALIZER};
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.log = capture_log;
    o.log_ctx = &logs;
    struct basalt_flight_shm_server *server;
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &server, &err), &err);
    int ready[2];
    CHECK(pipe(ready) == 0);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        /* The consumer: three batches of the long stream, then it hangs. */
        close(ready[0]);
        struct ArrowArrayStream s;
        if (basalt_flight_shm_open(path, "long", 4, NULL, &s, NULL) != BASALT_OK)
            _exit(3);
        for (int b = 0; b < 3; b++) {
            struct ArrowArray a;
            if (s.get_next(&s, &a) != 0 || !a.release || !check_long(&a, b, 4096))
                _exit(4);
            a.release(&a);
        }
        if (write(ready[1], "r", 1) != 1)
            _exit(5);
        for (;;)
            pause();
    }
    close(ready[1]);
    CHECK_OK(basalt_flight_shm_server_start(server, &err), &err);
    bool got = wait_byte(ready[0], 20000);
    close(ready[0]);
    /* Mid-transfer: the producer holds the file (the control). */
    int producer_fds = count_memfd_fds(getpid()), child_maps = count_memfd_maps(child);
    kill(child, SIGKILL);
    int wst = 0;
    waitpid(child, &wst, 0);
    if (!got) {
        basalt_flight_shm_server_free(server);
        CHECK_MSG(got, "the consumer did not read three batches (exit %d)",
                  WIFEXITED(wst) ? WEXITSTATUS(wst) : -1);
    }
    CHECK_EQ(producer_fds, 1);
    CHECK_EQ(child_maps, 1);
    /* The producer notices at its next send, logs, and lets the file go. */
    for (int i = 0; i < 2000 && log_count(&logs) == 0; i++)
        usleep(5000);
    struct basalt_flight_shm_server_stats stats;
    basalt_flight_shm_server_stats(server, &stats);
    int fds_after = count_memfd_fds(getpid()), maps_after = count_memfd_maps(getpid());
    pthread_mutex_lock(&logs.mu);
    char last[sizeof logs.last];
    snprintf(last, sizeof last, "%s", logs.last);
    pthread_mutex_unlock(&logs.mu);
    /* And serves the next client. */
    char msg[256];
    const char *bad = read_mixed(path, msg, sizeof msg);
    struct basalt_flight_shm_server_stats stats2;
    for (int i = 0; i < 2000; i++) {
        basalt_flight_shm_server_stats(server, &stats2);
        if (stats2.streams_ok == 1)
            break;
        usleep(5000);
    }
    /* The connection, and its file, go when the producer sees the consumer
     * close its end (a consumer may ask for more on the same connection). */
    for (int i = 0; i < 2000 && count_memfd_fds(getpid()) > 0; i++)
        usleep(5000);
    int fds_end = count_memfd_fds(getpid()), maps_end = count_memfd_maps(getpid());
    basalt_flight_shm_server_free(server);
    CHECK_EQ(stats.failures, 1);
    CHECK_MSG(strstr(last, "IO: ") && strstr(last, "the consumer went away"), "%s", last);
    CHECK_EQ(fds_after, 0);
    CHECK_EQ(maps_after, 0);
    CHECK_MSG(!bad, "%s", bad);
    CHECK_EQ(stats2.streams_ok, 1);
    CHECK_EQ(stats2.connections, 2);
    CHECK_EQ(fds_end, 0);
    CHECK_EQ(maps_end, 0);
    list_dev_shm(shm_after, sizeof shm_after);
    CHECK_STR(shm_after, shm_before);
}

TEST(shm_server_threads_concurrent)
{
    char path[100];
    socket_path(path, sizeof path, "threads");
    struct basalt_error err;
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.max_connections = 2; /* a third consumer waits its turn */
    struct basalt_flight_shm_server *server;
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, &o, &server, &err), &err);
    CHECK_OK(basalt_flight_shm_server_start(server, &err), &err);
    struct ArrowArrayStream s[3];
    int opened = 0;
    basalt_status st = BASALT_OK;
    for (; opened < 3 && st == BASALT_OK; opened++)
        st = basalt_flight_shm_open(path, "mixed", 5, NULL, &s[opened], &err);
    if (st != BASALT_OK)
        opened--;
    /* Interleaved reads over three live connections. */
    const char *bad = NULL;
    char msg[256];
    struct ArrowArray a;
    for (int b = 0; st == BASALT_OK && !bad && b <= MIXED_BATCHES; b++)
        for (int k = 0; k < 3 && !bad; k++) {
            if (s[k].get_next(&s[k], &a) != 0) {
                snprintf(msg, sizeof msg, "get_next: %.200s", s[k].get_last_error(&s[k]));
                bad = msg;
            } else if (b < MIXED_BATCHES) {
                bad = a.release ? check_mixed(b, &a, msg, sizeof msg) : "early end";
                basalt_arrow_array_release(&a);
            } else if (a.release) {
                bad = "a batch after the last";
                a.release(&a);
            }
        }
    for (int k = 0; k < opened; k++)
        s[k].release(&s[k]);
    basalt_flight_shm_server_free(server);
    CHECK_OK(st, &err);
    CHECK_MSG(!bad, "%s", bad);
    CHECK_EQ(count_memfd_fds(getpid()), 0);
    CHECK_EQ(count_memfd_maps(getpid()), 0);
}

TEST(shm_stop_mid_stream)
{
    char path[100];
    socket_path(path, sizeof path, "stop");
    struct basalt_error err;
    struct basalt_flight_shm_server *server;
    CHECK_OK(basalt_flight_shm_server_new(path, open_ticket, NULL, NULL, &server, &err), &err);
    CHECK_OK(basalt_flight_shm_server_start(server, &err), &err);
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, "long", 4, NULL, &s, &err);
    struct ArrowArray a;
    int rc = st == BASALT_OK ? s.get_next(&s, &a) : -1;
    if (rc == 0 && a.release)
        a.release(&a);
    /* Freeing the server ends the connection; the consumer sees it. */
    basalt_flight_shm_server_free(server);
    CHECK_OK(st, &err);
    CHECK_EQ(rc, 0);
    int n = 0;
    for (;;) {
        rc = s.get_next(&s, &a);
        if (rc != 0 || !a.release)
            break;
        a.release(&a);
        n++;
    }
    CHECK_EQ(rc, EIO);
    CHECK(n < 3999);
    s.release(&s);
    CHECK_EQ(count_memfd_fds(getpid()), 0);
    CHECK_EQ(count_memfd_maps(getpid()), 0);
}

/* ------------------------------------------------------------ a fake producer */

/* An IPC stream of the mixed schema and its first two batches, with the
 * ranges of its messages. */
struct fake_bytes {
    uint8_t *data;
    size_t len;
    uint64_t schema_end, batch_end[2];
};

static basalt_status fake_bytes_make(struct fake_bytes *fb, struct basalt_error *err)
{
    memset(fb, 0, sizeof *fb);
    struct ArrowSchema schema;
    struct basalt_output *out = NULL;
    struct basalt_ipc_writer *w = NULL;
    basalt_status st = mixed_schema(&schema, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_output_open_memory("fake", &out, err);
    if (st == BASALT_OK)
        st = basalt_ipc_writer_open(out, &schema, NULL, &w, err);
    if (st == BASALT_OK)
        fb->schema_end = out->written;
    for (int b = 0; b < 2 && st == BASALT_OK; b++) {
        struct ArrowArray a;
        st = mixed_batch(b, &a, err);
        if (st == BASALT_OK) {
            st = basalt_ipc_writer_write(w, &a, err);
            a.release(&a);
        }
        fb->batch_end[b] = out->written;
    }
    if (st == BASALT_OK)
        st = basalt_ipc_writer_finish(w, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK)
        fb->data = basalt_output_memory_take(out, &fb->len);
    basalt_ipc_writer_free(w);
    basalt_output_close(out);
    basalt_arrow_schema_release(&schema);
    return st;
}

enum fake_script {
    FAKE_PAST_FILE,     /* a range past the end of the file */
    FAKE_GARBAGE,       /* a range of bytes that are no message */
    FAKE_OVERLAP,       /* a range over one still in use (its dictionary) */
    FAKE_TRUNCATED,     /* half of a batch message */
    FAKE_UNSEALED,      /* a memory file without F_SEAL_SHRINK */
    FAKE_PAST_MAP,      /* a range past the consumer's max_segment_size */
    FAKE_BAD_END,       /* an end record with the wrong count */
    FAKE_BAD_STATUS,    /* an error record with status 999 */
    FAKE_EXTRA_FD,      /* a batch record carrying a descriptor */
    FAKE_SILENT,        /* closes without answering */
    FAKE_GOOD,          /* the two batches, properly (the control) */
};

struct fake_ctx {
    int listen_fd;
    enum fake_script script;
    const struct fake_bytes *bytes;
};

static void fake_record(int sock, uint16_t type, uint64_t offset, uint64_t length, uint32_t status,
                        int fd)
{
    struct shm_record r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.offset = offset;
    r.length = length;
    r.status = status;
    uint8_t buf[SHM_RECORD_MAX];
    size_t n = basalt_flight_shm_record_encode(&r, buf);
    basalt_flight_shm_send(sock, buf, n, fd, NULL);
}

static void *fake_main(void *arg)
{
    struct fake_ctx *f = arg;
    int sock = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return NULL;
    uint8_t req[256];
    size_t n;
    basalt_flight_shm_recv(sock, req, sizeof req, &n, NULL, 5000, NULL);
    const struct fake_bytes *fb = f->bytes;
    if (f->script == FAKE_SILENT) {
        close(sock);
        return NULL;
    }
    int fd = memfd_create("basalt-flight-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    size_t size = f->script == FAKE_PAST_MAP ? fb->len + (1 << 20) : fb->len;
    if (ftruncate(fd, (off_t)size) != 0 || pwrite(fd, fb->data, fb->len, 0) != (ssize_t)fb->len)
        fd = -1;
    if (f->script != FAKE_UNSEALED)
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
    fake_record(sock, SHM_RECORD_SEGMENT, 0, fb->schema_end, 0, fd);
    uint64_t b0 = fb->schema_end, b1 = fb->batch_end[0], b2 = fb->batch_end[1];
    switch (f->script) {
    case FAKE_PAST_FILE: fake_record(sock, SHM_RECORD_BATCH, b0, fb->len, 0, -1); break;
    case FAKE_GARBAGE: {
        static const uint8_t junk[64] = {0xAB, 0xAB, 0xAB, 0xAB, 0x10, 0, 0, 0};
        if (pwrite(fd, junk, sizeof junk, (off_t)b0) == (ssize_t)sizeof junk)
            fake_record(sock, SHM_RECORD_BATCH, b0, sizeof junk, 0, -1);
        break;
    }
    case FAKE_OVERLAP:
        fake_record(sock, SHM_RECORD_BATCH, b0, b1 - b0, 0, -1);
        fake_record(sock, SHM_RECORD_BATCH, b0, b1 - b0, 0, -1);
        break;
    case FAKE_TRUNCATED: fake_record(sock, SHM_RECORD_BATCH, b0, (b1 - b0) / 2, 0, -1); break;
    case FAKE_PAST_MAP: fake_record(sock, SHM_RECORD_BATCH, b0, size - b0, 0, -1); break;
    case FAKE_BAD_END:
        fake_record(sock, SHM_RECORD_BATCH, b0, b1 - b0, 0, -1);
        fake_record(sock, SHM_RECORD_END, b1, 7, 0, -1);
        break;
    case FAKE_BAD_STATUS: fake_record(sock, SHM_RECORD_ERROR, 0, 0, 999, -1); break;
    case FAKE_EXTRA_FD: fake_record(sock, SHM_RECORD_BATCH, b0, b1 - b0, 0, fd); break;
    case FAKE_GOOD:
        fake_record(sock, SHM_RECORD_BATCH, b0, b1 - b0, 0, -1);
        fake_record(sock, SHM_RECORD_BATCH, b1, b2 - b1, 0, -1);
        fake_record(sock, SHM_RECORD_END, b2, 2, 0, -1);
        break;
    default: break;
    }
    /* Waits for the consumer to hang up. */
    basalt_flight_shm_recv(sock, req, sizeof req, &n, NULL, 5000, NULL);
    if (fd >= 0)
        close(fd);
    close(sock);
    return NULL;
}

/* Runs `script` against a consumer; returns the status of open (*rc: the
 * first failing get_next's code, 0 when the stream ended) and the error. */
static basalt_status run_fake(const char *path, int listen_fd, const struct fake_bytes *fb,
                              enum fake_script script, uint64_t max_segment, int *rc,
                              int *batches, char *msg, size_t cap)
{
    struct fake_ctx f = {listen_fd, script, fb};
    pthread_t t;
    *rc = 0;
    *batches = 0;
    msg[0] = '\0';
    if (pthread_create(&t, NULL, fake_main, &f) != 0)
        return BASALT_INTERNAL;
    struct basalt_flight_shm_client_options o;
    basalt_flight_shm_client_options_init(&o);
    if (max_segment)
        o.max_segment_size = max_segment;
    o.timeout_ms = 5000;
    struct basalt_error err;
    struct ArrowArrayStream s;
    basalt_status st = basalt_flight_shm_open(path, "t", 1, &o, &s, &err);
    if (st != BASALT_OK) {
        snprintf(msg, cap, "%s", err.message);
    } else {
        for (;;) {
            struct ArrowArray a;
            *rc = s.get_next(&s, &a);
            if (*rc != 0) {
                snprintf(msg, cap, "%s", s.get_last_error(&s));
                break;
            }
            if (!a.release)
                break;
            char m[256];
            if (check_mixed(*batches, &a, m, sizeof m))
                *rc = -1;
            (*batches)++;
            a.release(&a);
        }
        s.release(&s);
    }
    pthread_join(t, NULL);
    return st;
}

TEST(shm_malformed_manifests)
{
    char path[100];
    socket_path(path, sizeof path, "fake");
    struct basalt_error err;
    struct fake_bytes fb;
    CHECK_OK(fake_bytes_make(&fb, &err), &err);
    int lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    bool listening = bind(lfd, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(lfd, 4) == 0;
    struct {
        enum fake_script script;
        basalt_status open_status;
        int rc;
        int batches;
        const char *needle;
    } cases[] = {
        {FAKE_PAST_FILE, BASALT_OK, EINVAL, 0, "passes the end of the memory file"},
        {FAKE_GARBAGE, BASALT_OK, EINVAL, 0, "message"},
        {FAKE_OVERLAP, BASALT_OK, EINVAL, 1, "overlaps a range still in use"},
        {FAKE_TRUNCATED, BASALT_OK, EINVAL, 0, "batch 0"},
        {FAKE_UNSEALED, BASALT_CORRUPT, 0, 0, "not a memory file sealed against shrinking"},
        {FAKE_PAST_MAP, BASALT_OK, EOVERFLOW, 0, "passes max_segment_size"},
        {FAKE_BAD_END, BASALT_OK, EINVAL, 1, "end record for 7 batches after 1"},
        {FAKE_BAD_STATUS, BASALT_OK, EINVAL, 0, "an error record with status 999"},
        {FAKE_EXTRA_FD, BASALT_OK, EINVAL, 0, "unexpected descriptors"},
        {FAKE_SILENT, BASALT_IO, 0, 0, "closed the connection"},
        {FAKE_GOOD, BASALT_OK, 0, 2, NULL},
    };
    const char *failure = NULL;
    char detail[1024];
    for (size_t i = 0; listening && !failure && i < sizeof cases / sizeof cases[0]; i++) {
        int rc, batches;
        char msg[BASALT_ERROR_MESSAGE_MAX];
        uint64_t max_segment = cases[i].script == FAKE_PAST_MAP ? (fb.len + 4095) & ~4095ul : 0;
        basalt_status st = run_fake(path, lfd, &fb, cases[i].script, max_segment, &rc, &batches,
                                    msg, sizeof msg);
        if (st != cases[i].open_status || rc != cases[i].rc || batches != cases[i].batches ||
            (cases[i].needle && !strstr(msg, cases[i].needle))) {
            snprintf(detail, sizeof detail, "case %zu: open %s, rc %d, %d batches: %s", i,
                     basalt_status_name(st), rc, batches, msg);
            failure = detail;
        }
    }
    close(lfd);
    unlink(path);
    basalt_free(fb.data);
    CHECK(listening);
    CHECK_MSG(!failure, "%s", failure);
    CHECK_EQ(count_memfd_fds(getpid()), 0);
    CHECK_EQ(count_memfd_maps(getpid()), 0);
}

TEST(shm_bad_arguments)
{
    struct basalt_error err;
    struct ArrowArrayStream s;
    CHECK_STATUS(basalt_flight_shm_open(NULL, "x", 1, NULL, &s, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_flight_shm_open("/tmp/x", NULL, 1, NULL, &s, &err), BASALT_INVALID_ARG,
                 &err);
    char longpath[200];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    CHECK_STATUS(basalt_flight_shm_open(longpath, "x", 1, NULL, &s, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK_STATUS(basalt_flight_shm_open("/tmp/x", "x", BASALT_FLIGHT_SHM_MAX_TICKET + 1, NULL, &s,
                                        &err),
                 BASALT_INVALID_ARG, &err);
    struct basalt_flight_shm_server *server;
    CHECK_STATUS(basalt_flight_shm_server_new(longpath, open_ticket, NULL, NULL, &server, &err),
                 BASALT_INVALID_ARG, &err);
    struct basalt_flight_shm_server_options o;
    basalt_flight_shm_server_options_init(&o);
    o.alignment = 16;
    CHECK_STATUS(basalt_flight_shm_server_new("/tmp/y", open_ticket, NULL, &o, &server, &err),
                 BASALT_INVALID_ARG, &err);
    struct basalt_flight_shm_stream_info info;
    struct ArrowArrayStream other = {0};
    CHECK_STATUS(basalt_flight_shm_stream_info(&other, &info, &err), BASALT_INVALID_ARG, &err);
    basalt_flight_shm_server_free(NULL);
}

/* The consumer end of a sweep attempt: reads records (closing the
 * descriptors passed along) until the last one, END or ERROR, then closes
 * its end, as a consumer does, so that the producer need not wait for it. */
static void *sweep_consumer(void *arg)
{
    int sock = *(int *)arg;
    for (;;) {
        uint8_t buf[SHM_RECORD_MAX];
        size_t n = 0;
        int fd = -1;
        if (basalt_flight_shm_recv(sock, buf, sizeof buf, &n, &fd, 10000, NULL) != BASALT_OK ||
            n == 0)
            break;
        if (fd >= 0)
            close(fd);
        struct shm_record r;
        if (basalt_flight_shm_record_decode(buf, n, &r, NULL) != BASALT_OK ||
            r.type == SHM_RECORD_END || r.type == SHM_RECORD_ERROR)
            break;
    }
    shutdown(sock, SHUT_RDWR);
    return NULL;
}

/* The producer side of one connection over a socketpair, with allocations
 * failing: a clean error or success, nothing leaked. */
static basalt_status sweep_attempt(void *ctx)
{
    (void)ctx;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return BASALT_IO;
    uint8_t req[SHM_REQUEST_HEAD + 5];
    memcpy(req, SHM_REQUEST_MAGIC, 8);
    req[8] = 5;
    req[9] = req[10] = req[11] = 0;
    memcpy(req + SHM_REQUEST_HEAD, "mixed", 5);
    basalt_status st = basalt_flight_shm_send(sv[1], req, sizeof req, -1, NULL);
    pthread_t consumer;
    bool reading = st == BASALT_OK && pthread_create(&consumer, NULL, sweep_consumer, &sv[1]) == 0;
    if (reading)
        st = basalt_flight_shm_serve_fd(sv[0], open_ticket, NULL, NULL, NULL);
    else if (st == BASALT_OK)
        st = BASALT_NOMEM; /* no thread: an attempt like any that failed */
    if (reading)
        pthread_join(consumer, NULL);
    close(sv[0]);
    close(sv[1]);
    return st;
}

TEST(shm_producer_alloc_failures)
{
    CHECK_ALLOC_SWEEP(sweep_attempt, NULL);
    CHECK_EQ(count_memfd_fds(getpid()), 0);
}
