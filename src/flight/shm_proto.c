/* The shared-memory transport's records and socket helpers (the protocol is
 * described in shm_internal.h). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shm_internal.h"

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

size_t basalt_flight_shm_record_encode(const struct shm_record *r, uint8_t *buf)
{
    uint32_t text_len = r->text_len > SHM_TEXT_MAX ? SHM_TEXT_MAX : r->text_len;
    put32(buf, SHM_MAGIC);
    put16(buf + 4, SHM_VERSION);
    put16(buf + 6, r->type);
    put64(buf + 8, r->offset);
    put64(buf + 16, r->length);
    put32(buf + 24, r->status);
    put32(buf + 28, text_len);
    memcpy(buf + SHM_RECORD_HEAD, r->text, text_len);
    return SHM_RECORD_HEAD + text_len;
}

basalt_status basalt_flight_shm_record_decode(const uint8_t *buf, size_t len,
                                              struct shm_record *r, struct basalt_error *err)
{
    memset(r, 0, sizeof *r);
    if (len < SHM_RECORD_HEAD)
        return basalt_error_set(err, BASALT_CORRUPT, "manifest record of %zu bytes", len);
    if (get32(buf) != SHM_MAGIC)
        return basalt_error_set(err, BASALT_CORRUPT, "manifest record without its magic");
    if (get16(buf + 4) != SHM_VERSION)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "manifest record version %u",
                                (unsigned)get16(buf + 4));
    r->type = get16(buf + 6);
    r->offset = get64(buf + 8);
    r->length = get64(buf + 16);
    r->status = get32(buf + 24);
    r->text_len = get32(buf + 28);
    if (r->type < SHM_RECORD_SEGMENT || r->type > SHM_RECORD_PLACED)
        return basalt_error_set(err, BASALT_CORRUPT, "manifest record type %u",
                                (unsigned)r->type);
    if (r->text_len > SHM_TEXT_MAX || r->text_len != len - SHM_RECORD_HEAD)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "manifest record text of %u bytes in a packet of %zu",
                                (unsigned)r->text_len, len);
    /* The text is shown to people: anything but printable ASCII becomes '?'. */
    for (uint32_t i = 0; i < r->text_len; i++) {
        uint8_t c = buf[SHM_RECORD_HEAD + i];
        r->text[i] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    r->text[r->text_len] = '\0';
    return BASALT_OK;
}

basalt_status basalt_flight_shm_send(int sock, const void *data, size_t len, int fd,
                                     struct basalt_error *err)
{
    /* sendmsg takes a non-const iovec; it only reads through it. */
    union {
        const void *c;
        void *p;
    } base = {.c = data};
    struct iovec iov = {.iov_base = base.p, .iov_len = len};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    if (fd >= 0) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n == (ssize_t)len)
            return BASALT_OK;
        if (n >= 0)
            return basalt_error_set(err, BASALT_IO, "short send of a %zu-byte packet", len);
        if (errno == EINTR)
            continue;
        if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN)
            return basalt_error_set(err, BASALT_IO, "the consumer went away (%s)",
                                    strerror(errno));
        return basalt_error_set(err, BASALT_IO, "send: %s", strerror(errno));
    }
}

/* Closes every descriptor of a received control message; returns how many. */
static int close_passed_fds(struct msghdr *msg, int *keep)
{
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (keep && *keep < 0 && n == 0)
                *keep = fd;
            else
                close(fd);
            n++;
        }
    }
    return n;
}

basalt_status basalt_flight_shm_recv(int sock, void *buf, size_t cap, size_t *len, int *fd,
                                     uint32_t timeout_ms, struct basalt_error *err)
{
    *len = 0;
    if (fd)
        *fd = -1;
    if (timeout_ms) {
        struct pollfd p = {.fd = sock, .events = POLLIN};
        int rc;
        do
            rc = poll(&p, 1, (int)(timeout_ms > 0x7FFFFFFF ? 0x7FFFFFFF : timeout_ms));
        while (rc < 0 && errno == EINTR);
        if (rc < 0)
            return basalt_error_set(err, BASALT_IO, "poll: %s", strerror(errno));
        if (rc == 0)
            return basalt_error_set(err, BASALT_IO, "nothing received in %u ms", timeout_ms);
    }
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    union {
        /* Room for a few descriptors, so that extra ones are seen and closed
         * rather than silently truncated away. */
        char buf[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == ECONNRESET) {
        /* The peer closed with packets of ours unread. Linux reports that
         * before the packets it had queued for us, once: they may still
         * be there (a producer's END record). */
        msg.msg_controllen = sizeof control.buf;
        do
            n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return BASALT_OK; /* the peer is gone: the same as the end */
    }
    if (n < 0)
        return basalt_error_set(err, BASALT_IO, "recv: %s", strerror(errno));
    int kept = -1;
    int passed = close_passed_fds(&msg, fd ? &kept : NULL);
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        if (kept >= 0)
            close(kept);
        return basalt_error_set(err, BASALT_CORRUPT, "a packet longer than %zu bytes", cap);
    }
    if (passed > (fd ? 1 : 0)) {
        if (kept >= 0)
            close(kept);
        return basalt_error_set(err, BASALT_CORRUPT, "%d unexpected descriptors in a packet",
                                passed);
    }
    if (fd)
        *fd = kept;
    *len = (size_t)n;
    return BASALT_OK;
}
