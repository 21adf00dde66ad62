/* The canonical text's writer: snprintf-like, it counts every byte and
 * stores what fits, so formatting never allocates and never fails. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql_internal.h"

void basalt_sqlf_putn(struct sql_out *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

void basalt_sqlf_put(struct sql_out *o, const char *s) { basalt_sqlf_putn(o, s, strlen(s)); }

void basalt_sqlf_printf(struct sql_out *o, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n > 0)
        basalt_sqlf_putn(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Quoted with `q`, the quote doubled inside. */
static void quoted(struct sql_out *o, const char *s, char q)
{
    basalt_sqlf_putn(o, &q, 1);
    for (const char *c = s; *c; c++) {
        basalt_sqlf_putn(o, c, 1);
        if (*c == q)
            basalt_sqlf_putn(o, c, 1);
    }
    basalt_sqlf_putn(o, &q, 1);
}

void basalt_sqlf_ident(struct sql_out *o, const struct basalt_sql_ident *id)
{
    if (id->quoted)
        quoted(o, id->name, '"');
    else
        basalt_sqlf_put(o, id->name);
}

void basalt_sqlf_name(struct sql_out *o, const struct basalt_sql_name *n)
{
    for (int32_t i = 0; i < n->n_parts; i++) {
        if (i)
            basalt_sqlf_put(o, ".");
        basalt_sqlf_ident(o, &n->parts[i]);
    }
}

void basalt_sqlf_string(struct sql_out *o, const char *s) { quoted(o, s, '\''); }

void basalt_sqlf_word(struct sql_out *o, const char *s)
{
    bool plain = (*s >= 'a' && *s <= 'z') || *s == '_';
    for (const char *c = s; *c && plain; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (plain)
        basalt_sqlf_put(o, s);
    else
        quoted(o, s, '"');
}

void basalt_sqlf_type(struct sql_out *o, const struct basalt_sql_type *t)
{
    basalt_sqlf_put(o, t->name);
    if (t->n_params > 0) {
        basalt_sqlf_put(o, "(");
        for (int32_t i = 0; i < t->n_params; i++)
            basalt_sqlf_printf(o, i ? ",%lld" : "%lld", (long long)t->params[i]);
        basalt_sqlf_put(o, ")");
    }
    if (t->list)
        basalt_sqlf_put(o, "[]");
}

void basalt_sqlf_finish(struct sql_out *o)
{
    if (o->cap == 0)
        return;
    o->buf[o->len < o->cap ? o->len : o->cap - 1] = '\0';
}
