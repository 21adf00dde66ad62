/* basalt-transportbench: one column of a table read fully by a consumer,
 * through each transport (docs/PERFORMANCE.md, "Tables to other
 * processes"). Each leg runs in its own process, reads every batch, sums the
 * column's values (so that every byte is touched and the legs can be
 * checked against each other) and prints one JSON line:
 *   {"leg": "...", "rows": N, "sum": S, "bytes": B, "ms": T}
 *
 *   inproc  --catalog URI --table T --column C     the control: an Iceberg
 *           scan's C stream in this process, one thread
 *   flight  --uri grpc://H:P --table T --column C  GetFlightInfo of a CMD
 *           descriptor, then DoGet of every endpoint in order, one connection
 *   shm     --uri grpc://H:P --table T --column C  the same endpoints read
 *           through shared memory (the server's "shm" action names the socket),
 *           all of them in one session (one connection, one mapping)
 *   ipc     --file F [--copy]                      an IPC file, mapped (zero
 *           copy) or read into memory
 *   write-ipc --catalog URI --table T --column C --file F   makes the file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/basalt.h"
#include "basalt/flight.h"
#include "basalt/flight_shm.h"

struct args {
    const char *leg, *catalog, *table, *column, *uri, *file;
    bool copy;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int die(const char *what, const struct basalt_error *err)
{
    fprintf(stderr, "basalt-transportbench: %s: %s\n", what, err ? err->message : "");
    return 1;
}

/* Sums column 0 of a batch (double, or any integer width as a double). */
static double sum_column(const struct ArrowSchema *schema, const struct ArrowArray *batch,
                         int64_t *bytes)
{
    const struct ArrowArray *c = batch->children[0];
    const char *f = schema->children[0]->format;
    double s = 0;
    const uint8_t *valid = c->buffers[0];
    for (int64_t i = 0; i < c->length; i++) {
        int64_t k = c->offset + i;
        if (valid && !basalt_bitmap_get(valid, k))
            continue;
        if (f[0] == 'g')
            s += ((const double *)c->buffers[1])[k];
        else if (f[0] == 'l')
            s += (double)((const int64_t *)c->buffers[1])[k];
        else if (f[0] == 'i')
            s += ((const int32_t *)c->buffers[1])[k];
    }
    *bytes += c->length * (f[0] == 'i' ? 4 : 8);
    return s;
}

/* Reads a stream to the end, summing into the totals. */
static int sum_stream(const char *leg, struct ArrowArrayStream *s, int64_t *rows, int64_t *bytes,
                      double *sum)
{
    struct ArrowSchema schema;
    if (s->get_schema(s, &schema) != 0)
        return die(leg, NULL);
    for (;;) {
        struct ArrowArray b;
        if (s->get_next(s, &b) != 0) {
            fprintf(stderr, "%s: %s\n", leg, s->get_last_error(s));
            return 1;
        }
        if (!b.release)
            break;
        *sum += sum_column(&schema, &b, bytes);
        *rows += b.length;
        b.release(&b);
    }
    schema.release(&schema);
    return 0;
}

static void report(const char *leg, int64_t rows, double sum, int64_t bytes, double t0)
{
    printf("{\"leg\": \"%s\", \"rows\": %lld, \"sum\": %.6f, \"bytes\": %lld, \"ms\": %.2f}\n",
           leg, (long long)rows, sum, (long long)bytes, now_ms() - t0);
}

/* Reads a stream to the end and reports it. */
static int drain(const char *leg, struct ArrowArrayStream *s, double t0)
{
    int64_t rows = 0, bytes = 0;
    double sum = 0;
    int rc = sum_stream(leg, s, &rows, &bytes, &sum);
    if (rc == 0)
        report(leg, rows, sum, bytes, t0);
    return rc;
}

static int leg_inproc(const struct args *a, bool write_ipc)
{
    struct basalt_error err;
    basalt_error_init(&err);
    double t0 = now_ms();
    struct basalt_catalog *c;
    struct basalt_iceberg_table *t;
    if (basalt_catalog_open(a->catalog, NULL, false, &c, &err) != BASALT_OK)
        return die("catalog", &err);
    if (basalt_catalog_load_table(c, a->table, &t, &err) != BASALT_OK)
        return die("table", &err);
    struct basalt_iceberg_scan_options so;
    basalt_iceberg_scan_options_init(&so);
    const char *cols[1] = {a->column};
    so.columns = cols;
    so.n_columns = 1;
    struct basalt_iceberg_scan *scan;
    struct ArrowArrayStream s;
    if (basalt_iceberg_scan_new(t, &so, &scan, &err) != BASALT_OK ||
        basalt_iceberg_scan_stream(scan, &s, &err) != BASALT_OK)
        return die("scan", &err);
    int rc;
    if (write_ipc) {
        struct basalt_output *out;
        if (basalt_output_open_file(a->file, &out, &err) != BASALT_OK)
            return die(a->file, &err);
        struct basalt_ipc_write_options o;
        basalt_ipc_write_options_init(&o);
        o.format = BASALT_IPC_FORMAT_FILE;
        rc = basalt_ipc_write_stream(&s, out, &o, &err) == BASALT_OK &&
                     basalt_output_commit(out, &err) == BASALT_OK
                 ? 0
                 : die(a->file, &err);
        basalt_output_close(out);
    } else {
        rc = drain("inproc", &s, t0);
        s.release(&s);
    }
    basalt_iceberg_scan_free(scan);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    return rc;
}

static int leg_flight(const struct args *a, bool shm)
{
    struct basalt_error err;
    basalt_error_init(&err);
    double t0 = now_ms();
    struct basalt_flight_client *c;
    struct basalt_flight_client_options co;
    basalt_flight_client_options_init(&co);
    co.token = getenv("BASALT_FLIGHT_TOKEN");
    if (basalt_flight_client_connect(a->uri, &co, &c, &err) != BASALT_OK)
        return die("connect", &err);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "{\"table\":\"%s\",\"columns\":[\"%s\"]}", a->table, a->column);
    struct basalt_flight_descriptor d = {NULL, 0, cmd, strlen(cmd)};
    struct basalt_flight_info info;
    if (basalt_flight_client_get_info(c, &d, &info, &err) != BASALT_OK)
        return die("GetFlightInfo", &err);
    char socket_path[512] = "";
    if (shm) {
        char *where = NULL;
        if (basalt_flight_client_do_action(c, "shm", NULL, &where, &err) != BASALT_OK)
            return die("the shm action", &err);
        const char *p = strstr(where, "\"socket\":\"");
        if (!p)
            return die("the shm action's answer", NULL);
        p += 10;
        size_t n = strcspn(p, "\"");
        snprintf(socket_path, sizeof socket_path, "%.*s", (int)n, p);
        basalt_free(where);
    }
    int64_t rows = 0, bytes = 0;
    double sum = 0;
    /* One session for every endpoint: one connection and one mapping. */
    struct basalt_flight_shm_session *session = NULL;
    if (shm && basalt_flight_shm_session_open(socket_path, NULL, &session, &err) != BASALT_OK)
        return die("shm session", &err);
    for (size_t i = 0; i < info.n_endpoints; i++) {
        struct ArrowArrayStream s;
        basalt_status st =
            shm ? basalt_flight_shm_session_get(session, info.endpoints[i].ticket,
                                                info.endpoints[i].ticket_len, &s, &err)
                : basalt_flight_client_do_get(c, info.endpoints[i].ticket,
                                              info.endpoints[i].ticket_len, &s, &err);
        if (st != BASALT_OK)
            return die(shm ? "shm" : "DoGet", &err);
        int rc = sum_stream(shm ? "shm" : "flight", &s, &rows, &bytes, &sum);
        s.release(&s);
        if (rc != 0)
            return rc;
    }
    basalt_flight_shm_session_close(session);
    report(shm ? "shm" : "flight", rows, sum, bytes, t0);
    basalt_flight_info_reset(&info);
    basalt_flight_client_close(c);
    return 0;
}

static int leg_ipc(const struct args *a)
{
    struct basalt_error err;
    basalt_error_init(&err);
    double t0 = now_ms();
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    o.use_mmap = !a->copy;
    struct basalt_ipc_reader *r;
    struct ArrowArrayStream s;
    if (basalt_ipc_reader_open_file(a->file, &o, &r, &err) != BASALT_OK ||
        basalt_ipc_reader_to_stream(r, &s, &err) != BASALT_OK)
        return die(a->file, &err);
    int rc = drain(a->copy ? "ipc-copied" : "ipc-mapped", &s, t0);
    s.release(&s);
    return rc;
}

int main(int argc, char **argv)
{
    basalt_exec_with_huge_pages(argv); /* as the CLI: src/core/huge_pages.c */
    struct args a = {0};
    if (argc < 2) {
        fprintf(stderr, "usage: basalt-transportbench inproc|flight|ipc|write-ipc [options]\n");
        return 2;
    }
    a.leg = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--copy")) {
            a.copy = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "%s needs a value\n", o);
            return 2;
        }
        i++;
        if (!strcmp(o, "--catalog"))
            a.catalog = v;
        else if (!strcmp(o, "--table"))
            a.table = v;
        else if (!strcmp(o, "--column"))
            a.column = v;
        else if (!strcmp(o, "--uri"))
            a.uri = v;
        else if (!strcmp(o, "--file"))
            a.file = v;
        else {
            fprintf(stderr, "unknown option %s\n", o);
            return 2;
        }
    }
    if (!strcmp(a.leg, "inproc"))
        return leg_inproc(&a, false);
    if (!strcmp(a.leg, "write-ipc"))
        return leg_inproc(&a, true);
    if (!strcmp(a.leg, "flight"))
        return leg_flight(&a, false);
    if (!strcmp(a.leg, "shm"))
        return leg_flight(&a, true);
    if (!strcmp(a.leg, "ipc"))
        return leg_ipc(&a);
    fprintf(stderr, "unknown leg %s\n", a.leg);
    return 2;
}
