#include <stdio.h>
#include <string.h>

#include "basalt/core.h"

const char *basalt_version(void) { return BASALT_VERSION_STRING; }

const char *basalt_status_name(basalt_status status)
{
    switch (status) {
    case BASALT_OK: return "OK";
    case BASALT_INVALID_ARG: return "INVALID_ARG";
    case BASALT_CORRUPT: return "CORRUPT";
    case BASALT_UNSUPPORTED: return "UNSUPPORTED";
    case BASALT_LIMIT: return "LIMIT";
    case BASALT_NOMEM: return "NOMEM";
    case BASALT_IO: return "IO";
    case BASALT_NOT_FOUND: return "NOT_FOUND";
    case BASALT_CONFLICT: return "CONFLICT";
    case BASALT_AUTH: return "AUTH";
    case BASALT_INTERNAL: return "INTERNAL";
    case BASALT_UNKNOWN_OUTCOME: return "UNKNOWN_OUTCOME";
    }
    return "UNKNOWN";
}

void basalt_error_init(struct basalt_error *err)
{
    if (!err)
        return;
    err->status = BASALT_OK;
    err->message[0] = '\0';
}

basalt_status basalt_error_setv(struct basalt_error *err, basalt_status status, const char *fmt,
                                va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (n < 0)
        err->message[0] = '\0';
    return status;
}

basalt_status basalt_error_set(struct basalt_error *err, basalt_status status, const char *fmt,
                               ...)
{
    va_list ap;
    va_start(ap, fmt);
    basalt_error_setv(err, status, fmt, ap);
    va_end(ap);
    return status;
}

basalt_status basalt_error_context(struct basalt_error *err, basalt_status status,
                                   const char *fmt, ...)
{
    if (!err)
        return status;
    char context[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(context, sizeof context - 2, fmt, ap);
    va_end(ap);
    if (n < 0)
        return status;
    size_t clen = strlen(context);
    memcpy(context + clen, ": ", 3);
    clen += 2;

    /* Shift the existing message right, keeping its head; the tail is what
     * truncation loses, since the outermost context matters most to a reader. */
    size_t cap = sizeof err->message - 1;
    if (clen > cap)
        clen = cap;
    size_t mlen = strnlen(err->message, cap);
    if (clen + mlen > cap)
        mlen = cap - clen;
    memmove(err->message + clen, err->message, mlen);
    memcpy(err->message, context, clen);
    err->message[clen + mlen] = '\0';
    err->status = status;
    return status;
}
