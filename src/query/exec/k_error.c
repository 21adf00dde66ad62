/* basalt_qexpr_error's kernel: the evaluation fails with the message at the
 * first row that reaches the call (a valid message in a row whose errors
 * count: under a CASE branch or COALESCE argument, the rows that run it).
 * Otherwise every value is NULL. */
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

static basalt_status k_error(const struct qstep *st, struct qexec *x)
{
    const struct qstr *m = A(0).data;
    for (int i = 0; i < x->n; i++)
        if (qrow_valid(A(0).valid, i) && qcounts(x, st, i))
            return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "%.*s", (int)m[i].len, m[i].ptr);
    memset(OUT.vbuf, 0, QWORDS * 8);
    OUT.valid = OUT.vbuf;
    OUT.data = OUT.dbuf;
    return BASALT_OK;
}

bool basalt_qk_error_select(struct qstep *st)
{
    if (st->op != QOP_ERROR)
        return false;
    st->fn = k_error;
    st->kname = "error";
    return true;
}
