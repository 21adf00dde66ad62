/* Spill files: temporary Arrow IPC streams that operators write batches to
 * when their input passes the memory limit, and read back later.
 *
 * A file is made with mkstemp in the spill directory (the option's, else
 * $TMPDIR, else /tmp) and unlinked at once: only the descriptor names it, so
 * nothing is left behind whatever ends the query (success, error, cancel or
 * a crash), and its disk space goes back when it is freed. Batches are
 * written uncompressed through basalt's own IPC writer (over an output on the
 * descriptor) and read back in order through the IPC reader (over an input
 * that preads it). A file is used by one thread at a time. */
#ifndef BASALT_QUERY_SPILL_H
#define BASALT_QUERY_SPILL_H

#include <pthread.h>

#include "basalt/query.h"

struct basalt_qspill_file;

/* Partitions of a spilled GROUP BY or hash join: 6 bits of the key hash. */
#define BASALT_QSPILL_PARTS 64

/* Creates an empty spill file for batches of `schema` (a struct; copied).
 * dir NULL or "": $TMPDIR or /tmp. OK; IO (the directory cannot take a file:
 * the message names it); the IPC writer's statuses; NOMEM. */
basalt_status basalt_qspill_file_new(const char *dir, const struct ArrowSchema *schema,
                                     struct basalt_qspill_file **out, struct basalt_error *err);
/* Closes the descriptor (the space goes back). NULL is a no-op. */
void basalt_qspill_file_free(struct basalt_qspill_file *f);

/* Appends one batch (borrowed; a struct of the file's schema). Not after the
 * first read. OK; INVALID_ARG; IO (a full disk: the message says so); NOMEM. */
basalt_status basalt_qspill_file_write(struct basalt_qspill_file *f, const struct ArrowArray *batch,
                                       struct basalt_error *err);
/* Ends the writing and frees the writer's buffers (the file keeps only its
 * descriptor until read). OK; IO; NOMEM. */
basalt_status basalt_qspill_file_seal(struct basalt_qspill_file *f, struct basalt_error *err);
/* The next batch written, in order (the first call ends the writing); at
 * the end OK with out->release NULL. OK; IO; CORRUPT; NOMEM. */
basalt_status basalt_qspill_file_next(struct basalt_qspill_file *f, struct ArrowArray *out,
                                      struct basalt_error *err);

/* The next basalt_qspill_file_next starts again at the first batch (after
 * the writing is sealed: a block nested loop reads its probe side once per
 * block of the build side). */
void basalt_qspill_file_rewind(struct basalt_qspill_file *f);
/* Rows written. */
int64_t basalt_qspill_file_rows(const struct basalt_qspill_file *f);
/* Bytes written to the file so far. */
int64_t basalt_qspill_file_bytes(const struct basalt_qspill_file *f);

/* Writes rows [0, n) of `src` (borrowed, a struct of `schema`), row i to
 * partition part[i] (< BASALT_QSPILL_PARTS), each partition's rows as one
 * slice appended to files[part] (made in `dir` on first use, under
 * locks[part] when many workers write at once; `locks` NULL for one
 * writer). OK; the file statuses; NOMEM. */
basalt_status basalt_qspill_write_partitioned(const struct ArrowSchema *schema,
                                             const struct ArrowArray *src, const uint8_t *part,
                                             int64_t n, const char *dir,
                                             struct basalt_qspill_file **files,
                                             pthread_mutex_t *locks, struct basalt_error *err);

/* About how many bytes the buffers of `a` (of `s`) hold: what holding the
 * batch costs, for deciding when to spill. */
int64_t basalt_qspill_array_bytes(const struct ArrowSchema *s, const struct ArrowArray *a);

/* Test hook (process-wide): spilled GROUP BY partitions larger than this on
 * disk are split again (bytes > 0; 0, the default, means a quarter of the
 * memory limit), so that tests reach the split with small data. */
void basalt_qspill_test_set_budget(int64_t bytes);
int64_t basalt_qspill_test_budget(void);
/* Test hook (process-wide): the most sorted runs one merge reads (>= 2;
 * 0, the default, sizes it from the memory limit), so that tests reach the
 * merge of runs into longer runs with small data. */
void basalt_qspill_test_set_fan_in(int64_t runs);
int64_t basalt_qspill_test_fan_in(void);

/* Process-wide counters for tests: spill files made and not yet freed, and
 * made in all. */
int64_t basalt_qspill_files_open(void);
int64_t basalt_qspill_files_made(void);

#endif
