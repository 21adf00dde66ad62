/* basalt io cp: copies objects between any two places (local files, S3,
 * GCS, Azure; HTTP as a source), streaming in bounded chunks, one object or
 * every object under a prefix. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd_io.h"

/* -------------------------------------------------------------- progress */

/* "cp: [#####     ] 12.0 MiB / 20.0 MiB  5.3 MiB/s" on stderr, redrawn in
 * place at most ten times a second; only when stderr is a terminal. */
struct progress {
    bool on;
    bool sized_by_object; /* one object: the total is its size, known at open */
    uint64_t total, done;
    double t0, drawn;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_draw(struct progress *p, bool last)
{
    if (!p->on)
        return;
    double t = now_s();
    if (!last && t - p->drawn < 0.1)
        return;
    p->drawn = t;
    enum { WIDTH = 30 };
    int filled = p->total > 0 ? (int)((double)p->done * WIDTH / (double)p->total) : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : ' ';
    bar[WIDTH] = '\0';
    char done[32], total[32], rate[32];
    cli_format_bytes(p->done, done, sizeof done);
    cli_format_bytes(p->total, total, sizeof total);
    double secs = t - p->t0;
    cli_format_bytes(secs > 0 ? (uint64_t)((double)p->done / secs) : 0, rate, sizeof rate);
    fprintf(stderr, "\rcp: [%s] %s / %s  %s/s   ", bar, done, total, rate);
    if (last)
        fputc('\n', stderr);
    fflush(stderr);
}

/* ------------------------------------------------------------------ copy */

/* Creates the local directories above `path` (mkdir -p of its dirname). */
static basalt_status make_parents(const char *path, struct basalt_error *err)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return BASALT_OK;
    size_t n = (size_t)(slash - path);
    if (n >= sizeof dir)
        return basalt_error_set(err, BASALT_LIMIT, "%s: path too long", path);
    memcpy(dir, path, n);
    dir[n] = '\0';
    for (char *p = dir + 1;; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return basalt_error_set(err, BASALT_IO, "%s: %s", dir, strerror(errno));
            if (end)
                break;
            *p = '/';
        }
    }
    return BASALT_OK;
}

/* Where a copy's bytes go: the output, and the progress bar. */
struct copy_sink {
    struct basalt_output *out;
    struct progress *p;
};

static basalt_status to_output(void *ctx, const void *data, size_t len, struct basalt_error *err)
{
    struct copy_sink *c = ctx;
    basalt_status st = basalt_output_write(c->out, data, len, err);
    c->p->done += len;
    progress_draw(c->p, false);
    return st;
}

/* Copies one object: its bytes streamed from `src` (a remote one in one
 * request, written out as its body arrives) into an output that commits at
 * the end, so a failed copy leaves nothing under `dst`. */
static basalt_status copy_one(const char *src, const char *dst, unsigned flags,
                              struct progress *p, struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    struct basalt_output *out = NULL;
    basalt_status st = cli_open_input_flags(src, BASALT_IO_SEQUENTIAL, &in, err);
    if (st == BASALT_OK && !cli_is_remote(dst))
        st = make_parents(dst, err);
    if (st == BASALT_OK)
        st = cli_open_output(dst, flags, &out, err);
    const uint64_t size = in ? in->size : 0;
    if (p->sized_by_object)
        p->total = size;
    struct copy_sink sink = {out, p};
    if (st == BASALT_OK)
        st = basalt_input_read_stream(in, 0, size, to_output, &sink, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    basalt_input_close(in);
    return st;
}

/* `a` + `b` into a new basalt_malloc'd string. */
static char *join(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = basalt_malloc(na + nb + 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/* `s` with a trailing '/' (copied). */
static char *with_slash(const char *s)
{
    size_t n = strlen(s);
    return join(s, n && s[n - 1] == '/' ? "" : "/");
}

static bool is_local_dir(const char *path)
{
    struct stat sb;
    return !cli_is_remote(path) && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static const char *local_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) == 0)
        return uri + 7;
    if (strncmp(uri, "file:", 5) == 0)
        return uri + 5;
    return uri;
}

static basalt_status copy_tree(const char *src, const char *dst, unsigned flags,
                               struct progress *p, struct basalt_error *err)
{
    char *from = with_slash(cli_is_remote(src) ? src : local_path(src));
    char *to = with_slash(dst);
    struct cli_io_listing l;
    memset(&l, 0, sizeof l);
    basalt_status st = from && to ? cli_io_list_all(from, &l, err)
                                  : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && l.n == 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "%s: no objects under this prefix", from);
    for (size_t i = 0; st == BASALT_OK && i < l.n; i++)
        p->total += l.sizes[i];
    const size_t from_len = from ? strlen(from) : 0;
    for (size_t i = 0; st == BASALT_OK && i < l.n; i++) {
        if (strncmp(l.uris[i], from, from_len) != 0) {
            st = basalt_error_set(err, BASALT_INTERNAL, "%s: listed under %s", l.uris[i], from);
            break;
        }
        char *target = join(to, l.uris[i] + from_len);
        if (!target) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            break;
        }
        st = copy_one(l.uris[i], target, flags, p, err);
        basalt_free(target);
    }
    cli_io_listing_reset(&l);
    basalt_free(from);
    basalt_free(to);
    return st;
}

int cli_io_cp(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            printf("usage: basalt io cp SRC DST [--exclusive] [--recursive]\n\n"
                   "Copies an object from SRC to DST, any scheme to any scheme (http(s)://\n"
                   "as a source only), streaming: a remote source comes down in one request\n"
                   "whose body is written out as it arrives, and memory stays bounded\n"
                   "whatever the size. Large remote objects go up in parts (--part-size).\n"
                   "Nothing appears under DST unless the whole copy succeeds. A DST ending\n"
                   "in '/' or naming a local directory gets SRC's file name appended.\n"
                   "  --exclusive      fail (CONFLICT) when DST already exists\n"
                   "  -r, --recursive  copy every object under the prefix SRC/ to DST/,\n"
                   "                   keeping the rest of each name\n"
                   "A progress bar goes to stderr when it is a terminal.\n");
            return CLI_OK;
        }
    const char *src = NULL, *dst = NULL;
    bool recursive = false;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--recursive") == 0)
            recursive = true;
        else if (strcmp(argv[i], "--exclusive") == 0)
            flags |= BASALT_IO_CREATE_EXCLUSIVE;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("io cp: unknown option '%s'", argv[i]);
        else if (!src)
            src = argv[i];
        else if (!dst)
            dst = argv[i];
        else
            return cli_usage_error("io cp: unexpected argument '%s'", argv[i]);
    }
    if (!dst)
        return cli_usage_error("io cp: expected SRC and DST");
    size_t src_len = strlen(src);
    if (!recursive && src_len && src[src_len - 1] == '/')
        return cli_usage_error("io cp: %s is a prefix: use --recursive", src);
    struct basalt_error err;
    basalt_error_init(&err);
    struct progress p = {.on = isatty(STDERR_FILENO) != 0, .t0 = now_s()};
    basalt_status st;
    if (recursive) {
        st = copy_tree(src, dst, flags, &p, &err);
    } else {
        size_t dst_len = strlen(dst);
        char *target = NULL;
        st = BASALT_OK;
        if ((dst_len && dst[dst_len - 1] == '/') || is_local_dir(dst)) {
            const char *base = strrchr(src, '/');
            char *dir = with_slash(dst);
            target = dir ? join(dir, base ? base + 1 : src) : NULL;
            basalt_free(dir);
            if (!target)
                st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
        }
        p.sized_by_object = true;
        if (st == BASALT_OK)
            st = copy_one(src, target ? target : dst, flags, &p, &err);
        basalt_free(target);
    }
    if (p.on && (st == BASALT_OK || p.done > 0))
        progress_draw(&p, true);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}
