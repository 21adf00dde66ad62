/* store_check: reading and writing whole objects, and the modes that only do
 * that (--cat, --write-fail, --faults). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store_check.h"

/* Local outputs, unlike object stores, need their directory to exist (the
 * callers above io make it, as a catalog does): mkdir -p for local URIs. */
static void make_parents(const char *uri)
{
    if (basalt_io_uri_is_remote(uri))
        return;
    char path[1200];
    snprintf(path, sizeof path, "%s", strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
}

uint8_t *sc_data(const char *name, size_t len)
{
    uint8_t *d = malloc(len ? len : 1);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (const char *p = name; *p; p++)
        x = (x ^ (uint8_t)*p) * 0x100000001B3ull;
    for (size_t i = 0; d && i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d[i] = (uint8_t)(x >> 24);
    }
    return d;
}

basalt_status sc_write(struct basalt_io_store *store, const char *uri, const uint8_t *data,
                       size_t len, unsigned flags, struct basalt_error *err)
{
    struct basalt_output *out;
    make_parents(uri);
    basalt_status st = basalt_io_open_output(store, uri, flags, &out, err);
    if (st != BASALT_OK)
        return st;
    /* Uneven writes, so parts are cut across write boundaries. */
    size_t at = 0, step = 1000;
    while (st == BASALT_OK && at < len) {
        size_t n = len - at < step ? len - at : step;
        st = basalt_output_write(out, data + at, n, err);
        at += n;
        step = step * 3 + 7;
    }
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    return st;
}

basalt_status sc_read(struct basalt_io_store *store, const char *uri, uint8_t **out, size_t *len,
                      struct basalt_error *err)
{
    struct basalt_input *in;
    *out = NULL;
    *len = 0;
    basalt_status st = basalt_io_open_input(store, uri, &in, err);
    if (st != BASALT_OK)
        return st;
    size_t n = (size_t)in->size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    else if (n > 0)
        st = basalt_input_read_at(in, 0, n, buf, err);
    basalt_input_close(in);
    if (st != BASALT_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *len = n;
    return BASALT_OK;
}

int sc_cat(struct basalt_io_store *store, const char *uri)
{
    struct basalt_error err;
    basalt_error_init(&err);
    uint8_t *data;
    size_t len;
    basalt_status st = sc_read(store, uri, &data, &len, &err);
    if (st != BASALT_OK) {
        fprintf(stderr, "store_check: %s: %s\n", basalt_status_name(st), err.message);
        return 1;
    }
    fwrite(data, 1, len, stdout);
    free(data);
    return 0;
}

int sc_put(struct basalt_io_store *store, const char *uri)
{
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *data = malloc(cap);
    while (data && (n = fread(data + len, 1, cap - len, stdin)) > 0)
        if ((len += n) == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (!grown)
                free(data);
            data = grown;
        }
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = data ? sc_write(store, uri, data, len, 0, &err) : BASALT_NOMEM;
    free(data);
    if (st != BASALT_OK) {
        fprintf(stderr, "store_check: %s: %s\n", basalt_status_name(st), err.message);
        return 1;
    }
    return 0;
}

void sc_write_fail(struct basalt_io_store *store, const char *uri, size_t size)
{
    struct basalt_error err;
    basalt_error_init(&err);
    uint8_t *data = sc_data(uri, size);
    basalt_status st = sc_write(store, uri, data, size, 0, &err);
    sc_report(st != BASALT_OK, "a %zu-byte write fails (%s: %s)", size, basalt_status_name(st),
              err.message);
    struct basalt_io_object_info info;
    st = basalt_io_stat(store, uri, &info, &err);
    sc_report(st == BASALT_NOT_FOUND, "the failed write left no object (stat: %s)",
              basalt_status_name(st));
    free(data);
}

/* --faults: write and read back `count` objects through whatever the
 * network does; each must come back identical or fail with a message. A
 * wrong byte, or a success that is not one, is the only FAIL. */
void sc_faults(const struct sc_context *c, unsigned count)
{
    unsigned same = 0, write_failed = 0, read_failed = 0, different = 0;
    char (*uris)[1200] = calloc(count ? count : 1, sizeof *uris);
    for (unsigned k = 0; uris && k < count; k++) {
        /* Sizes from 1 byte to max_size (default: past the part size, so
         * some go in parts). */
        uint64_t part = c->part_size ? c->part_size : 8u << 20;
        uint64_t max = c->max_size ? c->max_size : part + part / 2;
        size_t len = (size_t)(1 + (k * 2654435761u) % max);
        snprintf(uris[k], sizeof uris[k], "%sobj-%03u.bin", c->root, k);
        uint8_t *data = sc_data(uris[k], len), *back = NULL;
        size_t got = 0;
        struct basalt_error err;
        basalt_error_init(&err);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        basalt_status st = sc_write(c->store, uris[k], data, len, 0, &err);
        basalt_status written = st;
        if (st == BASALT_OK)
            st = sc_read(c->store, uris[k], &back, &got, &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        if (written != BASALT_OK) {
            write_failed++;
            printf("object %u (%zu bytes, %ld ms): write failed: %s: %s\n", k, len, ms,
                   basalt_status_name(st), err.message);
        } else if (st != BASALT_OK) {
            read_failed++;
            printf("object %u (%zu bytes, %ld ms): read failed: %s: %s\n", k, len, ms,
                   basalt_status_name(st), err.message);
        } else if (got != len || memcmp(back, data, len) != 0) {
            different++;
            sc_report(false, "object %u: read back %zu bytes, not the %zu written", k, got, len);
        } else {
            same++;
            printf("object %u (%zu bytes, %ld ms): identical\n", k, len, ms);
        }
        free(data);
        free(back);
    }
    printf("outcomes: identical=%u write_failed=%u read_failed=%u different=%u\n", same,
           write_failed, read_failed, different);
    sc_report(different == 0, "no object came back with other bytes");
    /* Best effort: the faults may get in the way of cleaning up too. */
    const char **list = malloc(sizeof *list * (count ? count : 1));
    for (unsigned k = 0; list && k < count; k++)
        list[k] = uris[k];
    struct basalt_error err;
    basalt_error_init(&err);
    if (list && basalt_io_delete(c->store, list, count, &err) != BASALT_OK)
        printf("cleanup: %s\n", err.message);
    free(list);
    free(uris);
}
