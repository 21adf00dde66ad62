/* basalt io: where bytes come from and go to.
 *
 * A `struct basalt_input` is a random-access byte source (a local file, a
 * memory buffer, later HTTP and S3 objects); a `struct basalt_output` is an
 * append-only byte sink that commits atomically on close. Readers and writers
 * of every format work over these, never over file descriptors. */
#ifndef BASALT_IO_H
#define BASALT_IO_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One range of a vectored read: read `length` bytes at `offset` into `dst`. */
struct basalt_io_range {
    uint64_t offset;
    uint64_t length;
    void *dst;
};

struct basalt_input;

/* The operations behind an input. Implementations fill this in; callers use
 * the basalt_input_* functions. read_at must read exactly `length` bytes or
 * fail (IO, or CORRUPT when the range passes the end). */
struct basalt_input_ops {
    basalt_status (*read_at)(struct basalt_input *in, uint64_t offset, uint64_t length,
                             void *dst, struct basalt_error *err);
    /* Optional: reads several ranges, coalescing as the backend sees fit.
     * NULL means one read_at per range. */
    basalt_status (*read_ranges)(struct basalt_input *in, struct basalt_io_range *ranges,
                                 size_t count, struct basalt_error *err);
    /* Optional: a pointer to the whole object in memory (memory inputs, mapped
     * files), so readers can use bytes in place. NULL when not available. */
    const uint8_t *(*view)(struct basalt_input *in);
    void (*close)(struct basalt_input *in);
};

/* An open input. `name` names it in error messages (a path or URL). Safe to
 * share between threads for reads when the backend says so (both built-in
 * backends are: pread and memory reads carry no position). */
struct basalt_input {
    const struct basalt_input_ops *ops;
    uint64_t size;
    const char *name;
};

/* Opens a local file for reading. `use_mmap` maps it (and view() then returns
 * the mapping). NOT_FOUND, IO, NOMEM. Close with basalt_input_close. */
BASALT_EXPORT basalt_status basalt_input_open_file(const char *path, bool use_mmap,
                                                   struct basalt_input **out,
                                                   struct basalt_error *err);
/* An input over caller memory, borrowed: it must outlive the input. `name`
 * is copied. NOMEM. */
BASALT_EXPORT basalt_status basalt_input_open_memory(const void *data, size_t size,
                                                     const char *name, struct basalt_input **out,
                                                     struct basalt_error *err);

/* Reads exactly `length` bytes at `offset`. A range past the end is CORRUPT
 * (the caller derived it from the file's own contents), with the input's name. */
BASALT_EXPORT basalt_status basalt_input_read_at(struct basalt_input *in, uint64_t offset,
                                                 uint64_t length, void *dst,
                                                 struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_input_read_ranges(struct basalt_input *in,
                                                     struct basalt_io_range *ranges, size_t count,
                                                     struct basalt_error *err);
/* The whole object in memory if the backend has it, else NULL. Valid until close. */
BASALT_EXPORT const uint8_t *basalt_input_view(struct basalt_input *in);
/* Closes and frees. NULL is a no-op. */
BASALT_EXPORT void basalt_input_close(struct basalt_input *in);

struct basalt_output;

struct basalt_output_ops {
    basalt_status (*write)(struct basalt_output *out, const void *data, size_t len,
                           struct basalt_error *err);
    /* Makes everything written visible under the final name, atomically. */
    basalt_status (*commit)(struct basalt_output *out, struct basalt_error *err);
    /* Frees the output; if it was not committed, discards what was written so
     * that nothing is left under the final name. */
    void (*close)(struct basalt_output *out);
};

struct basalt_output {
    const struct basalt_output_ops *ops;
    uint64_t written;
    const char *name;
    bool committed;
};

/* Creates a local file output. Bytes go to a temporary file beside `path`
 * ("<path>.tmp-<pid>-<n>"); basalt_output_commit fsyncs it and renames it over
 * `path`. Closing without a successful commit removes the temporary file, so
 * a failed write never leaves a file that looks valid. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_output_open_file(const char *path, struct basalt_output **out,
                                                    struct basalt_error *err);
/* An output into a growable memory buffer. NOMEM. */
BASALT_EXPORT basalt_status basalt_output_open_memory(const char *name, struct basalt_output **out,
                                                      struct basalt_error *err);
/* After a successful commit of a memory output: returns the bytes (free with
 * basalt_free) and stores their length; the output keeps nothing. NULL if the
 * output is not a committed memory output. */
BASALT_EXPORT uint8_t *basalt_output_memory_take(struct basalt_output *out, size_t *len);

/* Appends bytes. INVALID_ARG after commit; IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_output_write(struct basalt_output *out, const void *data,
                                                size_t len, struct basalt_error *err);
/* Makes the data durable under the output's name. On failure nothing is left
 * under the name. The output must still be closed. */
BASALT_EXPORT basalt_status basalt_output_commit(struct basalt_output *out,
                                                 struct basalt_error *err);
/* Frees the output, discarding what was written unless it was committed.
 * NULL is a no-op. */
BASALT_EXPORT void basalt_output_close(struct basalt_output *out);

#ifdef __cplusplus
}
#endif

#endif
