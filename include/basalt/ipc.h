/* basalt ipc: the Arrow IPC formats, read and written.
 *
 * Both framings of the specification (format/Message.fbs, format/File.fbs,
 * "Serialization and Interprocess Communication"):
 *   - the stream format: a Schema message, then DictionaryBatch and
 *     RecordBatch messages, then an end-of-stream marker (or the end of the
 *     bytes); messages before Arrow 0.15 lack the 0xFFFFFFFF continuation
 *     marker and are read too;
 *   - the file format (Feather v2 is the same): "ARROW1" magic, the stream,
 *     a Footer flatbuffer listing the blocks, its length and the magic again;
 *     record batches are reached at random through the footer.
 *
 * Reading yields the schema as an ArrowSchema (format "+s", one child per
 * field, custom metadata kept, extension types as their ARROW:extension:*
 * field metadata) and each record batch as an ArrowArray struct array. Every
 * type of the C data interface is read: null, bool, integers, half/float/
 * double, decimal32/64/128/256, dates, times, timestamps with zones,
 * durations, the three intervals, binary and string (large and view),
 * fixed-size binary, list, large list, fixed-size list, list view, large list
 * view, struct, map, sparse and dense unions, run-end encoded, and
 * dictionary-encoded fields with any index type (dictionaries nested inside
 * dictionaries too), with dictionary replacement and deltas. Bodies
 * compressed with LZ4_FRAME or ZSTD are decompressed; files written on a
 * big-endian machine are byte-swapped to native order.
 *
 * Zero copy: when the input is in memory (a mapped file or caller memory),
 * buffers that need neither decompression nor byte swapping and are 8-byte
 * aligned point into it; the arrays then hold a reference on the mapping,
 * which stays mapped until the reader and every array from it are released.
 * Other buffers are copied into 64-byte aligned memory.
 *
 * Untrusted input: every length, offset and count in a message is checked
 * against the bytes that hold it, every buffer against the size its type and
 * length require, offsets for monotonicity and bounds, union type ids
 * against the declared ones, dense union offsets, run ends, view lengths and
 * buffer indices, list view ranges, and dictionary indices against the
 * dictionary's length; nesting, message sizes and decompressed sizes are
 * limited by options. Errors name the input, the message and the field:
 * `t.arrow: message 3 (record batch 1): field 'a.b': offsets not monotonic at 7`.
 *
 * Thread safety: a reader or writer is used by one thread at a time. Arrays
 * and schemas it hands out are independent of it and may be released on any
 * thread (the shared mapping is reference-counted atomically). */
#ifndef BASALT_IPC_H
#define BASALT_IPC_H

#include "basalt/arrow.h"
#include "basalt/codec.h"
#include "basalt/io.h"

#ifdef __cplusplus
extern "C" {
#endif

enum basalt_ipc_format {
    BASALT_IPC_FORMAT_STREAM = 0,
    BASALT_IPC_FORMAT_FILE
};

/* ------------------------------------------------------------------ reading */

struct basalt_ipc_read_options {
    /* open_file maps the file (zero-copy buffers). Default true. */
    bool use_mmap;
    /* Largest message flatbuffer accepted (LIMIT above). Default 64 MiB. */
    int64_t max_metadata_size;
    /* Largest message body, and largest decompressed buffer. Default 16 GiB. */
    int64_t max_body_size;
    /* Deepest type nesting accepted (LIMIT above). Default 64. */
    int max_depth;
};

/* Fills in the defaults. */
BASALT_EXPORT void basalt_ipc_read_options_init(struct basalt_ipc_read_options *options);

/* Counters of what a reader did, for tests and benchmarks: zero-copy is
 * proven by buffers_zero_copy, not assumed. */
struct basalt_ipc_read_stats {
    int64_t messages;
    int64_t record_batches;
    int64_t dictionary_batches;
    int64_t dictionary_deltas;
    int64_t buffers_zero_copy;   /* buffers pointing into the input */
    int64_t buffers_copied;      /* buffers copied (misaligned, or no in-memory view) */
    int64_t buffers_decompressed;
    int64_t buffers_swapped;     /* buffers byte-swapped from big-endian */
};

struct basalt_ipc_reader;

/* Opens an IPC file or stream; the format is recognised by its first bytes.
 * basalt_ipc_reader_open takes ownership of `in` in every case (it is closed
 * with the reader, or on failure). The schema message (and for the file
 * format the footer and every dictionary) are read here. `options` may be
 * NULL for the defaults.
 * Returns OK; INVALID_ARG; CORRUPT (not IPC, malformed framing, schema or
 * footer); UNSUPPORTED (a Type, codec or metadata version this library does
 * not know, a pre-1.0 union with a validity bitmap); LIMIT; IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_ipc_reader_open(struct basalt_input *in,
                                                   const struct basalt_ipc_read_options *options,
                                                   struct basalt_ipc_reader **out,
                                                   struct basalt_error *err);
/* Opens a local file (mapped when options->use_mmap). NOT_FOUND too. */
BASALT_EXPORT basalt_status basalt_ipc_reader_open_file(
    const char *path, const struct basalt_ipc_read_options *options,
    struct basalt_ipc_reader **out, struct basalt_error *err);
/* Reads `len` bytes of caller memory, borrowed: the memory must outlive the
 * reader and every array read from it (buffers point into it). `name` names
 * it in errors (NULL: "memory"). */
BASALT_EXPORT basalt_status basalt_ipc_reader_open_memory(
    const void *data, size_t len, const char *name,
    const struct basalt_ipc_read_options *options, struct basalt_ipc_reader **out,
    struct basalt_error *err);

/* Closes the reader. Arrays already read stay valid. NULL is a no-op. */
BASALT_EXPORT void basalt_ipc_reader_close(struct basalt_ipc_reader *reader);

BASALT_EXPORT enum basalt_ipc_format basalt_ipc_reader_format(
    const struct basalt_ipc_reader *reader);

/* A copy of the schema into `out` (caller storage, owned). OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_ipc_reader_schema(const struct basalt_ipc_reader *reader,
                                                     struct ArrowSchema *out,
                                                     struct basalt_error *err);

/* The schema's endianness as written (true: big-endian, data was swapped). */
BASALT_EXPORT bool basalt_ipc_reader_big_endian(const struct basalt_ipc_reader *reader);

/* Number of record batches of a file (its footer's count); -1 for a stream. */
BASALT_EXPORT int64_t basalt_ipc_reader_num_batches(const struct basalt_ipc_reader *reader);

/* Reads record batch `i` of a file (0 <= i < num_batches) into `out` (caller
 * storage, owned on OK). Returns OK; INVALID_ARG (a stream, i out of range);
 * the statuses of open. */
BASALT_EXPORT basalt_status basalt_ipc_reader_read_batch(struct basalt_ipc_reader *reader,
                                                         int64_t i, struct ArrowArray *out,
                                                         struct basalt_error *err);

/* The next record batch, in order, for both formats (dictionary messages of
 * a stream are applied on the way). At the end, returns OK with `out`
 * released (out->release == NULL). */
BASALT_EXPORT basalt_status basalt_ipc_reader_next(struct basalt_ipc_reader *reader,
                                                   struct ArrowArray *out,
                                                   struct basalt_error *err);

/* Turns the reader into an ArrowArrayStream (caller storage) that owns it:
 * on OK the reader belongs to the stream, on failure it is closed. Errors of
 * get_next are EINVAL (corrupt input), ENOMEM, EIO or ENOTSUP with the
 * message in get_last_error. */
BASALT_EXPORT basalt_status basalt_ipc_reader_to_stream(struct basalt_ipc_reader *reader,
                                                        struct ArrowArrayStream *out,
                                                        struct basalt_error *err);

BASALT_EXPORT void basalt_ipc_reader_stats(const struct basalt_ipc_reader *reader,
                                           struct basalt_ipc_read_stats *stats);

/* ------------------------------------------------- decoding pushed messages */

/* A reader without an input, fed one message at a time by a transport that
 * splits the stream itself (Arrow Flight's FlightData): the schema message
 * first, then dictionary and record batches. `name` names it in errors.
 * basalt_ipc_reader_schema and _stats work on it once the schema came;
 * it has no input for read_batch and next. */
BASALT_EXPORT basalt_status basalt_ipc_reader_new_messages(
    const char *name, const struct basalt_ipc_read_options *options,
    struct basalt_ipc_reader **out, struct basalt_error *err);

/* Decodes one message: `metadata` (its flatbuffer, borrowed for the call)
 * and `body` (taken: arrays point into it without copying, and
 * free_body(ctx) runs when the last of them is released, or at once on
 * failure; free_body may be NULL for memory that outlives everything). A
 * record batch lands in `out` (caller storage, owned); after a schema or a
 * dictionary message out->release is NULL. Errors name the message:
 * `flight: message 3 (record batch): ...`. CORRUPT, LIMIT, UNSUPPORTED,
 * NOMEM as basalt_ipc_reader_next. */
BASALT_EXPORT basalt_status basalt_ipc_reader_push_message(
    struct basalt_ipc_reader *reader, const uint8_t *metadata, size_t metadata_len,
    const void *body, size_t body_len, void (*free_body)(void *ctx), void *ctx,
    struct ArrowArray *out, struct basalt_error *err);

/* ------------------------------------------------------------------ writing */

struct basalt_ipc_write_options {
    enum basalt_ipc_format format;   /* default STREAM */
    /* UNCOMPRESSED (default), LZ4_FRAME or ZSTD body compression. A buffer
     * that does not shrink is stored raw (length prefix -1). */
    enum basalt_codec_kind compression;
    int compression_level;           /* default BASALT_CODEC_LEVEL_DEFAULT */
    /* Alignment of message bodies and buffers: 8 or 64 (default 64). */
    int alignment;
    /* A dictionary that only gains entries at its end since the last one
     * written goes out as a delta (just the new entries) rather than whole,
     * when its values are of a flat type (fixed width, bool, null, binary or
     * string) (default true; the file format allows deltas, not replacements). */
    bool dictionary_deltas;
};

BASALT_EXPORT void basalt_ipc_write_options_init(struct basalt_ipc_write_options *options);

struct basalt_ipc_writer;

/* Starts writing to `out` (borrowed; the caller commits and closes it after
 * finish) and writes the schema message. `schema` (borrowed, copied) is a
 * struct ("+s") whose children are the fields. Dictionary-encoded fields get
 * ids 0, 1, ... in depth-first order.
 * Returns OK; INVALID_ARG (NULL, released or non-struct schema, bad
 * options); UNSUPPORTED (a format the schema encoder does not know, a
 * compression other than LZ4_FRAME or ZSTD); IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_ipc_writer_open(struct basalt_output *out,
                                                   const struct ArrowSchema *schema,
                                                   const struct basalt_ipc_write_options *options,
                                                   struct basalt_ipc_writer **writer,
                                                   struct basalt_error *err);

/* Writes one record batch (borrowed struct array of the writer's schema, any
 * offset). Dictionaries are written before the batch when they differ from
 * the ones last written: as a delta when they only add entries at the end
 * (dictionary_deltas), else whole, a replacement in the stream format (the
 * file format allows no replacement: UNSUPPORTED). Returns OK; INVALID_ARG (released
 * batch, a batch that does not fit the schema); CORRUPT (offsets outside
 * their data); UNSUPPORTED; IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_ipc_writer_write(struct basalt_ipc_writer *writer,
                                                    const struct ArrowArray *batch,
                                                    struct basalt_error *err);

/* Ends the stream (end-of-stream marker) or the file (footer, magic).
 * The output is not committed. OK; IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_ipc_writer_finish(struct basalt_ipc_writer *writer,
                                                     struct basalt_error *err);

/* Frees the writer (the output stays open). NULL is a no-op. */
BASALT_EXPORT void basalt_ipc_writer_free(struct basalt_ipc_writer *writer);

/* Writes every batch of `stream` (released on return in every case) to
 * `out`, finishing the stream or file; the output is not committed.
 * Statuses of open/write/finish and of the stream's producer. */
BASALT_EXPORT basalt_status basalt_ipc_write_stream(struct ArrowArrayStream *stream,
                                                    struct basalt_output *out,
                                                    const struct basalt_ipc_write_options *options,
                                                    struct basalt_error *err);

/* ------------------------------------------------------- encoding messages
 *
 * An encoder makes the stream format's messages without writing them, for a
 * transport that frames them itself (Arrow Flight's FlightData carries a
 * message's flatbuffer and body apart). A body is handed out as pieces that
 * point into the batch's own buffers wherever they can be sent as they are
 * (no copy); only what must be computed (bitmaps of a slice that does not
 * start on a byte, rebased offsets, compressed buffers, dictionaries) is
 * copied into the encoder. Padding pieces point at static zeros. */

struct basalt_ipc_piece {
    const void *data;
    size_t len;
};

struct basalt_ipc_message {
    const uint8_t *metadata;  /* the Message flatbuffer, without the stream's length prefix */
    size_t metadata_len;
    const struct basalt_ipc_piece *body;  /* concatenated in order: the message body */
    size_t n_body;
    int64_t body_len;         /* the sum of the pieces' lengths */
    /* basalt_ipc_encoder_batch_placed: no pieces; the body is
     * [body_offset, body_offset + body_len) of the memory the place
     * function put the buffers in. */
    uint64_t body_offset;
};

struct basalt_ipc_encoder;

/* An encoder for batches of `schema` (borrowed, copied). `options` as for
 * the writer; its format must be STREAM. Statuses of basalt_ipc_writer_open. */
BASALT_EXPORT basalt_status basalt_ipc_encoder_new(const struct ArrowSchema *schema,
                                                   const struct basalt_ipc_write_options *options,
                                                   struct basalt_ipc_encoder **out,
                                                   struct basalt_error *err);

/* The schema message (no body); a view valid until the encoder is freed. */
BASALT_EXPORT void basalt_ipc_encoder_schema(const struct basalt_ipc_encoder *encoder,
                                             struct basalt_ipc_message *out);

/* The messages of `batch` (borrowed): the dictionary batches that changed,
 * then the record batch; *msgs views *n messages. The views, and the pieces
 * they list, are valid until the next call on the encoder, and point into
 * `batch`: keep it alive (unreleased) as long as they are used.
 * Statuses of basalt_ipc_writer_write. */
BASALT_EXPORT basalt_status basalt_ipc_encoder_batch(struct basalt_ipc_encoder *encoder,
                                                     const struct ArrowArray *batch,
                                                     const struct basalt_ipc_message **msgs,
                                                     size_t *n, struct basalt_error *err);

/* Puts one buffer of a placed batch: `len` (> 0) bytes at `data` (NULL:
 * zeros), the batch's own memory when `stable`, else a temporary of the
 * encoder's valid during the call. The function copies them into its
 * memory, or finds them there already (a batch decoded into it), and gives
 * their offset there in *offset, 8-byte aligned. A status other than OK
 * fails the batch with `err`. */
typedef basalt_status (*basalt_ipc_place_fn)(void *ctx, const void *data, size_t len, bool stable,
                                             uint64_t *offset, struct basalt_error *err);

/* As basalt_ipc_encoder_batch, for memory a consumer reads where it lies
 * (a shared-memory segment): every buffer goes through `place` (with `ctx`)
 * instead of being listed as a piece, and each message has no pieces: its
 * Buffer offsets count from body_offset, the lowest placed byte, and
 * body_len reaches its last. The encoder must not compress (INVALID_ARG). */
BASALT_EXPORT basalt_status basalt_ipc_encoder_batch_placed(
    struct basalt_ipc_encoder *encoder, const struct ArrowArray *batch, basalt_ipc_place_fn place,
    void *ctx, const struct basalt_ipc_message **msgs, size_t *n, struct basalt_error *err);

/* NULL is a no-op. */
BASALT_EXPORT void basalt_ipc_encoder_free(struct basalt_ipc_encoder *encoder);

#ifdef __cplusplus
}
#endif

#endif
