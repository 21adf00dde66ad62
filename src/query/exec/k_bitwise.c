/* Bitwise kernels over one integer type, as DuckDB computes them: & | ~,
 * and shifts. x << k fails for a negative x or k, for k at or past the
 * width (one more for unsigned types) unless x is 0, and when bits would be
 * shifted out (or into the sign); x >> k is an arithmetic shift, 0 for k
 * outside [0, width). Values travel as 64-bit words, sign-extended for
 * signed types and zero-extended for unsigned ones. */
#include <inttypes.h>
#include <stdio.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

/* Row i of a vector of type t as a 64-bit word. */
static uint64_t word_at(const void *data, enum basalt_query_type_id t, int i)
{
    switch (t) {
    case BASALT_QUERY_TYPE_INT8: return (uint64_t)(int64_t)((const int8_t *)data)[i];
    case BASALT_QUERY_TYPE_INT16: return (uint64_t)(int64_t)((const int16_t *)data)[i];
    case BASALT_QUERY_TYPE_INT32: return (uint64_t)(int64_t)((const int32_t *)data)[i];
    case BASALT_QUERY_TYPE_UINT8: return ((const uint8_t *)data)[i];
    case BASALT_QUERY_TYPE_UINT16: return ((const uint16_t *)data)[i];
    case BASALT_QUERY_TYPE_UINT32: return ((const uint32_t *)data)[i];
    default: return ((const uint64_t *)data)[i];
    }
}

static void word_put(void *data, int width, int i, uint64_t v)
{
    switch (width) {
    case 1: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)data)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)data)[i] = (uint32_t)v; break;
    default: ((uint64_t *)data)[i] = v; break;
    }
}

/* A value's text for messages, in its type's sign. */
static const char *word_text(uint64_t v, bool is_signed, char *buf, size_t cap)
{
    if (is_signed)
        snprintf(buf, cap, "%" PRId64, (int64_t)v);
    else
        snprintf(buf, cap, "%" PRIu64, v);
    return buf;
}

static basalt_status k_and_or_not(const struct qstep *st, struct qexec *x)
{
    enum basalt_query_type_id t = st->type.id;
    int w = basalt_qtype_width(st->type);
    if (st->op == QOP_BIT_NOT)
        OUT.valid = A(0).valid;
    else
        basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        uint64_t a = word_at(A(0).data, t, i), v;
        if (st->op == QOP_BIT_NOT)
            v = ~a;
        else if (st->op == QOP_BIT_AND)
            v = a & word_at(A(1).data, t, i);
        else
            v = a | word_at(A(1).data, t, i);
        word_put(OUT.dbuf, w, i, v);
    }
    return BASALT_OK;
}

/* x << k for one row; false with the message when DuckDB fails. */
static bool shift_left(uint64_t a, uint64_t k, int bits, bool is_signed, uint64_t *out, char *msg,
                       size_t cap)
{
    char ta[24], tk[24];
    int64_t max_shift = bits + (is_signed ? 0 : 1);
    if (is_signed && (int64_t)a < 0) {
        snprintf(msg, cap, "Cannot left-shift negative number %s", word_text(a, true, ta, sizeof ta));
        return false;
    }
    if (is_signed && (int64_t)k < 0) {
        snprintf(msg, cap, "Cannot left-shift by negative number %s", word_text(k, true, tk, sizeof tk));
        return false;
    }
    if (a == 0) { /* 0 << k is 0 for any k the checks above let through */
        *out = 0;
        return true;
    }
    if (k >= (uint64_t)max_shift) {
        snprintf(msg, cap, "Left-shift value %s is out of range", word_text(k, is_signed, tk, sizeof tk));
        return false;
    }
    if (k == 0) {
        *out = a;
        return true;
    }
    /* the largest value whose shift keeps every bit (and the sign bit clear) */
    uint64_t limit = (uint64_t)1 << (max_shift - (int64_t)k - 1);
    if (a >= limit) {
        snprintf(msg, cap, "Overflow in left shift (%s << %s)", word_text(a, is_signed, ta, sizeof ta),
                 word_text(k, is_signed, tk, sizeof tk));
        return false;
    }
    *out = a << k;
    return true;
}

static basalt_status k_shift(const struct qstep *st, struct qexec *x)
{
    enum basalt_query_type_id t = st->type.id;
    int w = basalt_qtype_width(st->type), bits = 8 * w;
    bool is_signed = basalt_qtype_is_signed_int(t);
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = OUT.dbuf;
    for (int i = 0; i < x->n; i++) {
        uint64_t a = word_at(A(0).data, t, i), k = word_at(A(1).data, t, i), v = 0;
        if (st->op == QOP_SHIFT_RIGHT) {
            bool in_range = is_signed ? (int64_t)k >= 0 && (int64_t)k < bits : k < (uint64_t)bits;
            if (in_range)
                v = is_signed ? (uint64_t)((int64_t)a >> k) : a >> k;
        } else {
            char msg[128];
            if (!shift_left(a, k, bits, is_signed, &v, msg, sizeof msg)) {
                if (qrow_valid(OUT.valid, i) && qcounts(x, st, i))
                    return basalt_qexec_error(x, st, BASALT_LIMIT, "%s", msg);
                v = 0;
            }
        }
        word_put(OUT.dbuf, w, i, v);
    }
    return BASALT_OK;
}

bool basalt_qk_bitwise_select(struct qstep *st)
{
    if (!basalt_qtype_is_int(st->type.id))
        return false;
    switch (st->op) {
    case QOP_BIT_AND: case QOP_BIT_OR: case QOP_BIT_NOT:
        st->fn = k_and_or_not;
        st->kname = "bitwise";
        return true;
    case QOP_SHIFT_LEFT: case QOP_SHIFT_RIGHT:
        st->fn = k_shift;
        st->kname = "shift";
        return true;
    default: return false;
    }
}
