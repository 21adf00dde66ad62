/* Internals of the shared-memory transport (include/basalt/flight_shm.h):
 * the wire records, the socket helpers both sides use. Visible to
 * src/flight and its tests only.
 *
 * The protocol, over a SOCK_SEQPACKET Unix socket (one packet per record,
 * so a record is never split or merged), every integer little-endian:
 *
 *   consumer -> producer, once per stream:
 *     request   "BSHMREQ1" | u32 ticket_len | ticket bytes: the
 *               connection's last request (the producer ends the connection
 *               after the stream, once the consumer closed its end or a
 *               second went by)
 *               "BSHMREQ2" | ...: a session's request: after the END record
 *               the consumer may ask for the next stream on the same
 *               connection, served in the same file
 *   producer -> consumer:
 *     record    u32 magic "BSHM" | u16 version (2) | u16 type |
 *               u64 offset | u64 length | u32 status | u32 text_len | text
 *     SEGMENT   first, [offset, offset + length) holding the stream's
 *               schema message; the connection's first stream's carries the
 *               memory file's descriptor (SCM_RIGHTS), later ones none
 *     BATCH     [offset, offset + length) holds the dictionary batches a
 *               record batch needs, then the record batch, contiguous, as
 *               in an IPC stream (bodies after their metadata): what a
 *               producer that writes a plain stream into the file sends
 *     PLACED    [offset, offset + length) holds, for the dictionary batches
 *               and then the record batch, each message's body offset in
 *               the file (u64), then the message framed without its body
 *               (continuation, length, metadata); the body is
 *               [body offset, + the message's bodyLength) of the file,
 *               wherever its buffers were decoded or copied
 *     END       the end of the stream: offset = bytes written, length =
 *               record batches sent
 *     ERROR     status (a basalt_status) and text (the producer's message);
 *               may come first, instead of SEGMENT
 *   consumer -> producer, any time after the segment:
 *     release   "BSHMREL1" | u64 offset | u64 length: a BATCH or PLACED
 *               range whose arrays were all released; the producer may
 *               write there again, and over the bodies it names
 * Closing its end is how the consumer says it is gone. */
#ifndef BASALT_FLIGHT_SHM_INTERNAL_H
#define BASALT_FLIGHT_SHM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "basalt/flight_shm.h"

enum {
    SHM_RECORD_SEGMENT = 1,
    SHM_RECORD_BATCH = 2,
    SHM_RECORD_END = 3,
    SHM_RECORD_ERROR = 4,
    SHM_RECORD_PLACED = 5,
};

#define SHM_MAGIC 0x4D485342u /* "BSHM" little-endian */
#define SHM_VERSION 2
#define SHM_REQUEST_MAGIC "BSHMREQ1"
#define SHM_SESSION_REQUEST_MAGIC "BSHMREQ2"
#define SHM_REQUEST_HEAD 12
#define SHM_RELEASE_MAGIC "BSHMREL1"
#define SHM_RELEASE_SIZE 24
#define SHM_RECORD_HEAD 32
#define SHM_TEXT_MAX 480
#define SHM_RECORD_MAX (SHM_RECORD_HEAD + SHM_TEXT_MAX)

struct shm_record {
    uint16_t type;
    uint64_t offset;
    uint64_t length;
    uint32_t status;
    uint32_t text_len;
    char text[SHM_TEXT_MAX + 1]; /* NUL-terminated */
};

/* Encodes `r` into `buf` (at least SHM_RECORD_MAX bytes); returns its size. */
size_t basalt_flight_shm_record_encode(const struct shm_record *r, uint8_t *buf);
/* Decodes one received packet. CORRUPT for a bad magic, version, type,
 * size or text length. */
basalt_status basalt_flight_shm_record_decode(const uint8_t *buf, size_t len,
                                              struct shm_record *r, struct basalt_error *err);

/* Sends one packet with MSG_NOSIGNAL, and `fd` as SCM_RIGHTS when >= 0.
 * A consumer that went away is IO ("the consumer went away"). */
basalt_status basalt_flight_shm_send(int sock, const void *data, size_t len, int fd,
                                     struct basalt_error *err);
/* Receives one packet of at most `cap` bytes into `buf`, waiting at most
 * `timeout_ms` (0: forever). *len is 0 at the end of the connection. A
 * descriptor passed along is returned in *fd (else -1) when `fd` is not NULL;
 * descriptors beyond that one, or any at all when `fd` is NULL, are closed and
 * make the packet CORRUPT. A packet longer than `cap` is CORRUPT. IO for
 * socket failures and the timeout. */
basalt_status basalt_flight_shm_recv(int sock, void *buf, size_t cap, size_t *len, int *fd,
                                     uint32_t timeout_ms, struct basalt_error *err);

/* ------------------------------------------------------------ the segment
 * (shm_segment.c): the producer's memory file and the allocator over it. */

struct shm_segment;

struct shm_segment_stats {
    uint64_t decoded_bytes;  /* allocated in the file by the source's decoder */
    uint64_t in_place_bytes; /* of published buffers, already in the file */
    uint64_t copied_bytes;   /* of published buffers, copied into the file */
};

/* What basalt_flight_shm_segment_publish wrote: the PLACED range and the
 * bytes the batch holds (its buffers and the range). */
struct shm_published {
    uint64_t offset, length;
    uint64_t bytes;
};

/* A new memory file for one stream, reading RELEASE packets from `sock`
 * (borrowed). IO, LIMIT (no address space), NOMEM. */
basalt_status basalt_flight_shm_segment_new(const struct basalt_flight_shm_server_options *o,
                                            int sock, struct shm_segment **out,
                                            struct basalt_error *err);
/* The connection is done: the consumer's holds are dropped and the segment
 * goes with the last of the producer's. NULL is a no-op. */
void basalt_flight_shm_segment_close(struct shm_segment *segment);
/* The allocator that puts buffers in the file (valid until the segment goes). */
const struct basalt_arrow_allocator *basalt_flight_shm_segment_allocator(
    struct shm_segment *segment);
int basalt_flight_shm_segment_fd(const struct shm_segment *segment);
/* The end of what was ever allocated in the file. */
uint64_t basalt_flight_shm_segment_end(struct shm_segment *segment);
void basalt_flight_shm_segment_stats(struct shm_segment *segment, struct shm_segment_stats *out);
/* Copies a stream's schema message into the file, where it stays until
 * the next stream's (the consumer reads it before it asks for another). */
basalt_status basalt_flight_shm_segment_write_schema(struct shm_segment *segment,
                                                     const void *data, size_t len,
                                                     uint64_t *offset, struct basalt_error *err);
/* Applies one RELEASE packet (SHM_RELEASE_SIZE bytes) read by the caller. */
void basalt_flight_shm_segment_release_packet(struct shm_segment *segment, const uint8_t *pkt);
/* Reads the RELEASE packets waiting, without blocking. IO when the consumer
 * went away, CORRUPT when it sent something else. */
basalt_status basalt_flight_shm_segment_take_releases(struct shm_segment *segment,
                                                      struct basalt_error *err);
/* Encodes `batch` (its buffers placed: left where they are when the
 * decoder put them in the file, else copied) and writes its PLACED range;
 * the batch holds what it points into until the consumer releases the
 * range. */
basalt_status basalt_flight_shm_segment_publish(struct shm_segment *segment,
                                                struct basalt_ipc_encoder *enc,
                                                const struct ArrowArray *batch,
                                                struct shm_published *out,
                                                struct basalt_error *err);

#endif
