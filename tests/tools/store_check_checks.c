/* store_check: the checks of a full run over one prefix. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"
#include "store_check.h"

struct object {
    const char *name; /* under the root */
    size_t size;
    char uri[1200];
    uint8_t *data;
    char etag[BASALT_IO_ETAG_MAX];
};

#define NOBJ 4

static const char *status(basalt_status st) { return basalt_status_name(st); }

static void check_round_trips(const struct sc_context *c, struct object *objs)
{
    for (int k = 0; k < NOBJ; k++) {
        struct object *ob = &objs[k];
        snprintf(ob->uri, sizeof ob->uri, "%s%s", c->root, ob->name);
        ob->data = sc_data(ob->uri, ob->size);
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = sc_write(c->store, ob->uri, ob->data, ob->size, 0, &err);
        sc_report(st == BASALT_OK, "write %s (%zu bytes) %s%s", ob->name, ob->size, status(st),
                  st == BASALT_OK ? "" : err.message);
        uint8_t *back = NULL;
        size_t len = 0;
        if (st == BASALT_OK)
            st = sc_read(c->store, ob->uri, &back, &len, &err);
        sc_report(st == BASALT_OK && len == ob->size && memcmp(back, ob->data, len) == 0,
                  "read back %s: %zu bytes, byte-exact (%s %s)", ob->name, len, status(st),
                  st == BASALT_OK ? "" : err.message);
        free(back);
    }
}

/* Ranges of the big object: neighbours that coalesce, far ones that do not,
 * one across a part boundary, one in the tail kept at open. */
static size_t make_ranges(size_t size, uint64_t part, struct basalt_io_range *r, uint8_t **bufs)
{
    uint64_t at[][2] = {{0, 10},          {20, 100},       {130, 4000},
                        {size / 2, 1000}, {part - 5, 10},  {size - 50, 50},
                        {size / 3, 70000}};
    size_t n = sizeof at / sizeof at[0];
    for (size_t i = 0; i < n; i++) {
        bufs[i] = malloc((size_t)at[i][1]);
        r[i] = (struct basalt_io_range){at[i][0], at[i][1], bufs[i]};
    }
    return n;
}

static bool ranges_match(const struct basalt_io_range *r, size_t n, const uint8_t *data)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(r[i].dst, data + r[i].offset, (size_t)r[i].length) != 0)
            return false;
    return true;
}

static void check_ranges(const struct sc_context *c, const struct object *big)
{
    struct basalt_io_range r[8];
    uint8_t *bufs[8];
    size_t n = make_ranges(big->size, c->part_size ? c->part_size : 8u << 20, r, bufs);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_input *in = NULL;
    basalt_status st = basalt_io_open_input(c->store, big->uri, &in, &err);
    if (st == BASALT_OK)
        st = basalt_input_read_ranges(in, r, n, &err);
    sc_report(st == BASALT_OK && ranges_match(r, n, big->data),
              "read_ranges: %zu ranges near and far equal the source (%s %s)", n, status(st),
              st == BASALT_OK ? "" : err.message);
    basalt_input_close(in);
    in = NULL;

    /* Prefetch, then the same ranges: served from what the prefetch brought. */
    for (size_t i = 0; i < n; i++)
        memset(bufs[i], 0, (size_t)r[i].length);
    st = basalt_io_open_input(c->store, big->uri, &in, &err);
    if (st == BASALT_OK) {
        basalt_input_prefetch(in, r, n);
        st = basalt_input_read_ranges(in, r, n, &err);
    }
    sc_report(st == BASALT_OK && ranges_match(r, n, big->data),
              "prefetch then read_ranges: the same bytes (%s %s)", status(st),
              st == BASALT_OK ? "" : err.message);
    struct basalt_remote_input_stats rs;
    if (in && basalt_remote_input_stats(in, &rs))
        sc_report(rs.served_from_prefetch > 0,
                  "prefetch fired: served_from_prefetch=%" PRIu64 " served_from_tail=%" PRIu64
                  " fetches=%" PRIu64,
                  rs.served_from_prefetch, rs.served_from_tail, rs.fetches);
    basalt_input_close(in);
    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
}

static void check_stat(const struct sc_context *c, struct object *objs, bool remote)
{
    for (int k = 0; k < NOBJ; k++) {
        struct basalt_io_object_info info;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_io_stat(c->store, objs[k].uri, &info, &err);
        snprintf(objs[k].etag, sizeof objs[k].etag, "%s", st == BASALT_OK ? info.etag : "");
        sc_report(st == BASALT_OK && info.size == objs[k].size && (!remote || info.etag[0]),
                  "stat %s: size %" PRIu64 " (want %zu), etag '%s' (%s %s)", objs[k].name,
                  info.size, objs[k].size, info.etag, status(st),
                  st == BASALT_OK ? "" : err.message);
    }
    char missing[1300];
    snprintf(missing, sizeof missing, "%sno-such-object", c->root);
    struct basalt_io_object_info info;
    basalt_status st = basalt_io_stat(c->store, missing, &info, NULL);
    sc_report(st == BASALT_NOT_FOUND, "stat of a missing object: NOT_FOUND (got %s)", status(st));
    struct basalt_input *in = NULL;
    st = basalt_io_open_input(c->store, missing, &in, NULL);
    sc_report(st == BASALT_NOT_FOUND, "open of a missing object: NOT_FOUND (got %s)", status(st));
    basalt_input_close(in);
}

/* ---------------------------------------------------------------- listing */

struct seen {
    const struct sc_context *c;
    struct object *objs;
    char found[16][256];
    uint64_t sizes[16];
    char etags[16][BASALT_IO_ETAG_MAX];
    bool prefix[16];
    int count;
};

/* Entries are named relative to the root, whatever form the backend gives
 * (local listings give paths, remote ones the URI's scheme). */
static basalt_status on_entry(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    (void)err;
    struct seen *s = ctx;
    const char *tag = strrchr(s->c->root, '/');
    const char *base = s->c->root;
    for (const char *p = tag - 1; p > s->c->root && *p != '/'; p--)
        base = p;
    const char *at = strstr(e->uri, base);
    const char *rel = at ? at + strlen(base) : e->uri;
    if (s->count < 16) {
        snprintf(s->found[s->count], sizeof s->found[0], "%s", rel);
        s->sizes[s->count] = e->size;
        snprintf(s->etags[s->count], sizeof s->etags[0], "%s", e->etag);
        s->prefix[s->count] = e->is_prefix;
    }
    s->count++;
    return BASALT_OK;
}

static bool listed(const struct seen *s, const char *name, uint64_t size, const char *etag,
                   bool prefix)
{
    for (int i = 0; i < s->count && i < 16; i++)
        if (strcmp(s->found[i], name) == 0)
            return s->prefix[i] == prefix && (prefix || s->sizes[i] == size) &&
                   (prefix || !etag[0] || !s->etags[i][0] || strcmp(s->etags[i], etag) == 0);
    return false;
}

static void check_list(const struct sc_context *c, struct object *objs)
{
    for (int delimited = 0; delimited < 2; delimited++) {
        struct seen s = {.c = c, .objs = objs};
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_io_list(c->store, c->root, delimited, on_entry, &s, &err);
        int want = 0;
        bool all = st == BASALT_OK;
        for (int k = 0; k < NOBJ; k++) {
            bool nested = strchr(objs[k].name, '/') != NULL;
            if (delimited && nested)
                continue;
            want++;
            all = all && listed(&s, objs[k].name, objs[k].size, objs[k].etag, false);
        }
        if (delimited) {
            want++;
            all = all && listed(&s, "sub/", 0, "", true);
        }
        char names[600] = "";
        for (int i = 0; i < s.count && i < 16; i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s(%" PRIu64 ")", i ? " " : "",
                     s.found[i], s.sizes[i]);
        }
        for (int i = 1; i < s.count && i < 16; i++)
            all = all && strcmp(s.found[i - 1], s.found[i]) < 0;
        sc_report(all && s.count == want,
                  "%s list: exactly the %d written keys, in order, with their sizes and etags: %s (%s %s)",
                  delimited ? "delimited" : "recursive", want, names, status(st),
                  st == BASALT_OK ? "" : err.message);
    }
}

static void check_exclusive(const struct sc_context *c, const struct object *one)
{
    struct basalt_error err;
    basalt_error_init(&err);
    uint8_t other[1] = {(uint8_t)(one->data[0] ^ 0xff)};
    basalt_status st = sc_write(c->store, one->uri, other, 1, BASALT_IO_CREATE_EXCLUSIVE, &err);
    sc_report(st == BASALT_CONFLICT, "exclusive create onto %s: CONFLICT (got %s: %s)",
              one->name, status(st), err.message);
    uint8_t *back = NULL;
    size_t len = 0;
    st = sc_read(c->store, one->uri, &back, &len, &err);
    sc_report(st == BASALT_OK && len == 1 && back[0] == one->data[0],
              "the failed exclusive create left the old bytes (%s)", status(st));
    free(back);
    char fresh[1300];
    snprintf(fresh, sizeof fresh, "%sexclusive-new.bin", c->root);
    st = sc_write(c->store, fresh, other, 1, BASALT_IO_CREATE_EXCLUSIVE, &err);
    sc_report(st == BASALT_OK, "exclusive create of a new key succeeds (%s %s)", status(st),
              st == BASALT_OK ? "" : err.message);
    const char *uris[1] = {fresh};
    basalt_io_delete(c->store, uris, 1, NULL);
}

/* An output closed without commit, small and multipart: nothing visible. */
static void check_uncommitted(const struct sc_context *c)
{
    size_t sizes[2] = {100, c->part_size ? (size_t)c->part_size * 2 + 1 : 100000};
    for (int k = 0; k < 2; k++) {
        char uri[1300];
        snprintf(uri, sizeof uri, "%suncommitted-%d.bin", c->root, k);
        uint8_t *data = sc_data(uri, sizes[k]);
        struct basalt_output *out = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        sc_write(c->store, uri, data, 0, 0, NULL); /* local: makes the directory */
        const char *gone[1] = {uri};
        basalt_io_delete(c->store, gone, 1, NULL);
        basalt_status st = basalt_io_open_output(c->store, uri, 0, &out, &err);
        if (st == BASALT_OK)
            st = basalt_output_write(out, data, sizes[k], &err);
        basalt_output_close(out);
        struct basalt_io_object_info info;
        basalt_status s2 = basalt_io_stat(c->store, uri, &info, NULL);
        sc_report(st == BASALT_OK && s2 == BASALT_NOT_FOUND,
                  "%zu bytes written, closed without commit: no object (write %s, stat %s)",
                  sizes[k], status(st), status(s2));
        free(data);
    }
}

static void check_delete(const struct sc_context *c, struct object *objs)
{
    const char *uris[NOBJ + 1];
    char missing[1300];
    snprintf(missing, sizeof missing, "%snever-written.bin", c->root);
    for (int k = 0; k < NOBJ; k++)
        uris[k] = objs[k].uri;
    uris[NOBJ] = missing;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_io_delete(c->store, uris, NOBJ + 1, &err);
    sc_report(st == BASALT_OK, "delete of all (and of a missing key) %s %s", status(st),
              st == BASALT_OK ? "" : err.message);
    if (c->skip_list) {
        struct basalt_io_object_info info;
        int left = 0;
        for (int k = 0; k < NOBJ; k++)
            left += basalt_io_stat(c->store, objs[k].uri, &info, NULL) != BASALT_NOT_FOUND;
        sc_report(left == 0, "after delete every object is gone (stat: %d left)", left);
        return;
    }
    struct seen s = {.c = c, .objs = objs};
    st = basalt_io_list(c->store, c->root, false, on_entry, &s, &err);
    sc_report(st == BASALT_OK && s.count == 0, "after delete the listing is empty (%d entries, %s)",
              s.count, status(st));
}

void sc_all_checks(const struct sc_context *c)
{
    size_t part = c->part_size ? (size_t)c->part_size : 8u << 20;
    struct object objs[NOBJ] = {{.name = "empty.bin", .size = 0},
                                {.name = "one.bin", .size = 1},
                                {.name = "sub/small.bin", .size = 100 << 10},
                                {.name = "big.bin", .size = part * 2 + 123}};
    printf("root: %s\n", c->root);
    bool remote = basalt_io_uri_is_remote(c->root);
    check_round_trips(c, objs);
    check_ranges(c, &objs[3]);
    check_stat(c, objs, remote);
    if (!c->skip_list)
        check_list(c, objs);
    check_exclusive(c, &objs[1]);
    check_uncommitted(c);
    check_delete(c, objs);
    for (int k = 0; k < NOBJ; k++)
        free(objs[k].data);
}
