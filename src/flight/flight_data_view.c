/* A received FlightData read without copying its body.
 *
 * protobuf-c's unpack copies every bytes field into memory of its own; for
 * data_body, megabytes a message, that is a second copy of everything a
 * DoGet receives. So the message's top-level fields are walked here only
 * to find where data_body lies: protobuf-c unpacks the rest (the small
 * fields, with its checks), and the body is used where it was received.
 * The same walk tells the gRPC transport where the body will start, so that
 * it lands 64-byte aligned (grpc_place_fn) and the IPC reader takes its
 * buffers as they are. Anything unusual (a repeated body, a field this walk
 * does not know) goes to protobuf-c whole, copying, as before. */
#include <string.h>

#include "flight_internal.h"

/* FlightData.data_body: field 1000, length-delimited. */
#define BODY_FIELD 1000u

enum walk_result { WALK_BODY, WALK_NO_BODY, WALK_MORE, WALK_ODD };

struct body_span {
    size_t key;   /* where the field's tag starts */
    size_t start; /* where its bytes start */
    size_t len;
};

/* A varint at *at within n bytes. false: it runs past n (or over 10 bytes,
 * which *odd marks). */
static bool read_varint(const uint8_t *p, size_t n, size_t *at, uint64_t *v, bool *odd)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (*at + i >= n)
            return false;
        uint8_t b = p[*at + i];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *at += i + 1;
            *v = x;
            return true;
        }
    }
    *odd = true;
    return false;
}

/* Walks the top-level fields in the first n of len bytes. With `first`,
 * stops at the first body field; otherwise walks all of them and reports a
 * second body as WALK_ODD. */
static enum walk_result walk(const uint8_t *p, size_t n, size_t len, bool first,
                             struct body_span *body)
{
    size_t at = 0;
    bool found = false, odd = false;
    while (at < len) {
        size_t key_at = at;
        uint64_t key, size;
        if (!read_varint(p, n, &at, &key, &odd))
            return odd ? WALK_ODD : WALK_MORE;
        switch (key & 7) {
        case 0:
            if (!read_varint(p, n, &at, &size, &odd))
                return odd ? WALK_ODD : WALK_MORE;
            break;
        case 1:
            at += 8;
            break;
        case 5:
            at += 4;
            break;
        case 2:
            if (!read_varint(p, n, &at, &size, &odd))
                return odd ? WALK_ODD : WALK_MORE;
            if (size > len - at)
                return WALK_ODD;
            if (key >> 3 == BODY_FIELD) {
                if (found)
                    return WALK_ODD;
                *body = (struct body_span){key_at, at, (size_t)size};
                found = true;
                if (first)
                    return WALK_BODY;
            }
            at += (size_t)size;
            break;
        default:
            return WALK_ODD; /* groups: protobuf-c decides */
        }
        if (at > len)
            return WALK_ODD;
        if (at > n && at < len)
            return WALK_MORE;
    }
    return found ? WALK_BODY : WALK_NO_BODY;
}

size_t basalt_flight_data_place(const uint8_t *msg, size_t n, size_t len)
{
    struct body_span body;
    switch (walk(msg, n, len, true, &body)) {
    case WALK_BODY:
        return body.start;
    case WALK_MORE:
        return GRPC_PLACE_MORE;
    default:
        return 0;
    }
}

basalt_status basalt_flight_data_view(const uint8_t *msg, size_t len, flight_data_msg **out,
                                      const uint8_t **body, size_t *body_len,
                                      struct basalt_error *err)
{
    *out = NULL;
    *body = NULL;
    *body_len = 0;
    struct body_span span;
    enum walk_result r = walk(msg, len, len, false, &span);
    flight_data_msg *fd;
    if (r != WALK_BODY) {
        /* No body (a schema), or a shape for protobuf-c to judge whole. */
        fd = basalt_flight_wire__flight_data__unpack(NULL, len, msg);
        if (fd) {
            *body = fd->data_body.data;
            *body_len = fd->data_body.len;
        }
    } else if (span.start + span.len == len) {
        /* The body is the last field (as senders write it): the fields
         * before it are a message of their own. */
        fd = basalt_flight_wire__flight_data__unpack(NULL, span.key, msg);
        *body = msg + span.start;
        *body_len = span.len;
    } else {
        /* Fields after the body: unpack those before and after it joined. */
        size_t tail = len - (span.start + span.len);
        uint8_t *rest = basalt_malloc(span.key + tail + 1);
        if (!rest)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        memcpy(rest, msg, span.key);
        memcpy(rest + span.key, msg + span.start + span.len, tail);
        fd = basalt_flight_wire__flight_data__unpack(NULL, span.key + tail, rest);
        basalt_free(rest);
        *body = msg + span.start;
        *body_len = span.len;
    }
    if (!fd) {
        *body = NULL;
        *body_len = 0;
        return basalt_error_set(err, BASALT_CORRUPT, "flight: a FlightData does not decode");
    }
    *out = fd;
    return BASALT_OK;
}
