/* basalt ipc: Arrow IPC files and streams (Feather v2 too): schema, cat,
 * convert to and from Parquet. */
#include <stdlib.h>
#include <string.h>

#include "batch_source.h"
#include "cli.h"
#include "format.h"

static int open_reader(const char *path, struct basalt_ipc_reader **r)
{
    struct basalt_error err;
    struct basalt_input *in;
    if (cli_open_input(path, &in, &err) != BASALT_OK ||
        basalt_ipc_reader_open(in, NULL, r, &err) != BASALT_OK)
        return cli_fail_error(&err);
    return CLI_OK;
}

static void print_metadata(const char *metadata, int depth)
{
    struct basalt_arrow_metadata_reader mr;
    struct basalt_arrow_metadata_item it;
    if (basalt_arrow_metadata_reader_init(&mr, metadata, NULL) != BASALT_OK)
        return;
    while (basalt_arrow_metadata_reader_next(&mr, &it))
        printf("%*s  metadata %.*s = %.*s\n", 2 * depth, "", (int)it.key_len, it.key,
               (int)(it.value_len > 120 ? 120 : it.value_len), it.value);
}

static void print_field(const struct ArrowSchema *s, int depth)
{
    const struct ArrowSchema *values = s->dictionary ? s->dictionary : s;
    struct basalt_arrow_type t;
    const char *type = basalt_arrow_type_parse(values->format, &t, NULL) == BASALT_OK
                           ? basalt_arrow_type_name(t.id)
                           : "?";
    printf("%*s%s: %s (%s)%s", 2 * depth, "", s->name ? s->name : "", type, values->format,
           (s->flags & ARROW_FLAG_NULLABLE) ? "" : " not null");
    if (s->dictionary)
        printf(" dictionary, indices %s%s", s->format,
               (s->flags & ARROW_FLAG_DICTIONARY_ORDERED) ? ", ordered" : "");
    printf("\n");
    print_metadata(s->metadata, depth);
    for (int64_t i = 0; i < values->n_children; i++)
        print_field(values->children[i], depth + 1);
}

static int cmd_schema(int argc, char **argv)
{
    if (argc != 2 || cli_is_help(argv[1])) {
        printf("usage: basalt ipc schema FILE\n\nPrints the format (stream or file), the "
               "endianness, the number of record batches of a file and the fields.\n");
        return argc == 2 ? CLI_OK : CLI_USAGE;
    }
    struct basalt_ipc_reader *r;
    int rc = open_reader(argv[1], &r);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    struct ArrowSchema schema;
    if (basalt_ipc_reader_schema(r, &schema, &err) != BASALT_OK) {
        basalt_ipc_reader_close(r);
        return cli_fail_error(&err);
    }
    printf("format: %s, %s-endian", basalt_ipc_reader_format(r) == BASALT_IPC_FORMAT_FILE
                                        ? "file"
                                        : "stream",
           basalt_ipc_reader_big_endian(r) ? "big" : "little");
    if (basalt_ipc_reader_num_batches(r) >= 0)
        printf(", %lld record batches", (long long)basalt_ipc_reader_num_batches(r));
    printf("\n");
    print_metadata(schema.metadata, -1);
    for (int64_t i = 0; i < schema.n_children; i++)
        print_field(schema.children[i], 0);
    basalt_arrow_schema_release(&schema);
    basalt_ipc_reader_close(r);
    return CLI_OK;
}

static int cmd_cat(int argc, char **argv)
{
    const char *path = NULL;
    enum cli_format_kind kind = CLI_FORMAT_TABLE;
    long long limit = -1;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: basalt ipc cat FILE [--format table|json|csv] [--limit N]\n\n"
                   "Prints the rows of an Arrow IPC file or stream.\n");
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--limit")) {
            if (i + 1 >= argc)
                return cli_usage_error("%s needs a value", argv[i]);
            const char *v = argv[++i];
            if (!strcmp(argv[i - 1], "--format")) {
                if (!cli_format_parse(v, &kind))
                    return cli_usage_error("unknown format '%s'", v);
            } else {
                char *end;
                limit = strtoll(v, &end, 10);
                if (*end || limit < 0)
                    return cli_usage_error("--limit: '%s' is not a count", v);
            }
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error("unexpected argument '%s'", argv[i]);
        }
    }
    if (!path)
        return cli_usage_error("ipc cat needs a FILE");
    struct basalt_ipc_reader *r;
    int rc = open_reader(path, &r);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    struct ArrowSchema schema;
    struct cli_format_writer *w = NULL;
    basalt_status st = basalt_ipc_reader_schema(r, &schema, &err);
    if (st == BASALT_OK)
        st = cli_format_writer_new(stdout, kind, &schema, NULL, 0, &w, &err);
    long long printed = 0;
    while (st == BASALT_OK && (limit < 0 || printed < limit)) {
        struct ArrowArray batch;
        st = basalt_ipc_reader_next(r, &batch, &err);
        if (st != BASALT_OK || !batch.release)
            break;
        for (int64_t i = 0; i < batch.length && st == BASALT_OK && (limit < 0 || printed < limit);
             i++, printed++)
            st = cli_format_writer_row(w, &batch, i, &err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, &err);
    cli_format_writer_free(w);
    if (schema.release)
        basalt_arrow_schema_release(&schema);
    basalt_ipc_reader_close(r);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* IPC -> Parquet (OUT ends in .parquet) or IPC; Parquet or Avro -> IPC. */
static int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    o.format = BASALT_IPC_FORMAT_FILE;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            printf("usage: basalt ipc convert IN OUT [--ipc-format file|stream] "
                   "[--compression none|lz4_frame|zstd]\n\n"
                   "IN is an Arrow IPC file or stream, a Parquet or an Avro file. OUT is "
                   "written as Parquet when its name ends in .parquet, else as Arrow IPC "
                   "(file format unless --ipc-format stream).\n");
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--ipc-format") || !strcmp(argv[i], "--compression")) {
            if (i + 1 >= argc)
                return cli_usage_error("%s needs a value", argv[i]);
            const char *v = argv[++i];
            if (!strcmp(argv[i - 1], "--ipc-format")) {
                if (strcmp(v, "file") && strcmp(v, "stream"))
                    return cli_usage_error("--ipc-format: '%s' (file or stream)", v);
                o.format = !strcmp(v, "file") ? BASALT_IPC_FORMAT_FILE : BASALT_IPC_FORMAT_STREAM;
            } else {
                struct basalt_error e;
                if (basalt_codec_parse_name(v, &o.compression, &e) != BASALT_OK ||
                    (o.compression != BASALT_CODEC_UNCOMPRESSED &&
                     o.compression != BASALT_CODEC_LZ4_FRAME && o.compression != BASALT_CODEC_ZSTD))
                    return cli_usage_error("--compression: '%s' (none, lz4_frame or zstd)", v);
            }
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            return cli_usage_error("unexpected argument '%s'", argv[i]);
        }
    }
    if (!in || !out)
        return cli_usage_error("ipc convert needs IN and OUT");
    struct basalt_error err;
    /* The source as a stream of batches. */
    struct ArrowArrayStream stream = {0};
    struct basalt_input *input;
    uint8_t magic[6] = {0};
    basalt_status st = cli_open_input(in, &input, &err);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    if (input->size >= 6)
        st = basalt_input_read_at(input, 0, 6, magic, &err);
    struct cli_batch_source *src = NULL;
    bool is_ipc = st == BASALT_OK && memcmp(magic, "PAR1", 4) != 0 &&
                  memcmp(magic, "Obj\x01", 4) != 0;
    if (st == BASALT_OK && is_ipc) {
        struct basalt_ipc_reader *r;
        st = basalt_ipc_reader_open(input, NULL, &r, &err);
        if (st == BASALT_OK)
            st = basalt_ipc_reader_to_stream(r, &stream, &err);
    } else {
        basalt_input_close(input);
        if (st == BASALT_OK)
            st = cli_batch_source_open(in, NULL, &src, &err);
    }
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    struct basalt_output *output = NULL;
    st = cli_open_output(out, 0, &output, &err);
    if (st == BASALT_OK && ends_with(out, ".parquet")) {
        if (!is_ipc) {
            st = basalt_error_set(&err, BASALT_INVALID_ARG, "convert to Parquet reads Arrow IPC");
        } else {
            struct ArrowSchema schema;
            struct basalt_parquet_writer *pw = NULL;
            if (stream.get_schema(&stream, &schema) != 0)
                st = basalt_error_set(&err, BASALT_CORRUPT, "%s", stream.get_last_error(&stream));
            if (st == BASALT_OK) {
                st = basalt_parquet_writer_open(output, true, &schema, NULL, &pw, &err);
                output = NULL;
                basalt_arrow_schema_release(&schema);
            }
            if (st == BASALT_OK)
                st = basalt_parquet_writer_write_stream(pw, &stream, &err);
            if (st == BASALT_OK)
                st = basalt_parquet_writer_finish(pw, &err);
            basalt_parquet_writer_close(pw);
        }
    } else if (st == BASALT_OK) {
        if (is_ipc) {
            st = basalt_ipc_write_stream(&stream, output, &o, &err);
        } else {
            struct basalt_ipc_writer *w;
            st = basalt_ipc_writer_open(output, cli_batch_source_schema(src), &o, &w, &err);
            while (st == BASALT_OK) {
                struct ArrowArray batch;
                st = cli_batch_source_next(src, &batch, &err);
                if (st != BASALT_OK || !batch.release)
                    break;
                st = basalt_ipc_writer_write(w, &batch, &err);
                basalt_arrow_array_release(&batch);
            }
            if (st == BASALT_OK)
                st = basalt_ipc_writer_finish(w, &err);
            if (st == BASALT_OK || w)
                basalt_ipc_writer_free(w);
        }
        if (st == BASALT_OK)
            st = basalt_output_commit(output, &err);
    }
    basalt_output_close(output);
    basalt_arrow_stream_release(&stream);
    cli_batch_source_close(src);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

int cli_ipc_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"schema", "the format, endianness and fields of an IPC file or stream", cmd_schema},
        {"cat", "print rows: FILE [--format table|json|csv] [--limit N]", cmd_cat},
        {"convert", "IPC <-> Parquet (and Avro -> IPC): IN OUT", cmd_convert},
        {NULL, NULL, NULL},
    };
    return cli_dispatch_verbs("ipc", verbs, argc, argv);
}
