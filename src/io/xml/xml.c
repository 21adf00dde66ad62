/* XML scanning on expat (see xml.h). */
#include <string.h>

#include <expat.h>

#include "xml/xml.h"

#define MAX_DEPTH 16
#define MAX_PATH 256

struct scan {
    XML_Parser parser;
    basalt_xml_visit_fn visit;
    void *ctx;
    struct basalt_error *err;
    basalt_status status;
    char path[MAX_PATH];
    size_t path_len;
    size_t mark[MAX_DEPTH]; /* path length before each open element */
    int depth;
    struct basalt_buffer text;
};

static void stop(struct scan *s, basalt_status st)
{
    s->status = st;
    XML_StopParser(s->parser, XML_FALSE);
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    (void)attrs;
    struct scan *s = ud;
    if (s->status != BASALT_OK)
        return;
    /* Namespaced names come as "uri|local" with the separator set below;
     * paths use the local name only. */
    const char *local = strrchr(name, '|');
    local = local ? local + 1 : name;
    size_t n = strlen(local);
    if (s->depth == MAX_DEPTH || s->path_len + n + 2 > MAX_PATH) {
        stop(s, basalt_error_set(s->err, BASALT_LIMIT, "XML nested too deeply"));
        return;
    }
    s->mark[s->depth++] = s->path_len;
    if (s->path_len)
        s->path[s->path_len++] = '/';
    memcpy(s->path + s->path_len, local, n + 1);
    s->path_len += n;
    s->text.size = 0;
    basalt_status st = s->visit(s->ctx, s->path, NULL, 0, s->err);
    if (st != BASALT_OK)
        stop(s, st);
}

static void on_end(void *ud, const XML_Char *name)
{
    (void)name;
    struct scan *s = ud;
    if (s->status != BASALT_OK)
        return;
    if (basalt_buffer_append(&s->text, "", 1, s->err) != BASALT_OK) {
        stop(s, BASALT_NOMEM);
        return;
    }
    basalt_status st =
        s->visit(s->ctx, s->path, (const char *)s->text.data, s->text.size - 1, s->err);
    if (st != BASALT_OK) {
        stop(s, st);
        return;
    }
    s->text.size = 0;
    s->path_len = s->mark[--s->depth];
    s->path[s->path_len] = '\0';
}

static void on_text(void *ud, const XML_Char *data, int len)
{
    struct scan *s = ud;
    if (s->status != BASALT_OK)
        return;
    if (basalt_buffer_append(&s->text, data, (size_t)len, s->err) != BASALT_OK)
        stop(s, BASALT_NOMEM);
}

basalt_status basalt_xml_scan(const char *xml, size_t len, const char *what,
                              basalt_xml_visit_fn visit, void *ctx, struct basalt_error *err)
{
    struct scan s = {.visit = visit, .ctx = ctx, .err = err, .status = BASALT_OK};
    basalt_buffer_init(&s.text);
    s.parser = XML_ParserCreateNS(NULL, '|');
    if (!s.parser)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for an XML parser", what);
    XML_SetUserData(s.parser, &s);
    XML_SetElementHandler(s.parser, on_start, on_end);
    XML_SetCharacterDataHandler(s.parser, on_text);
    if (len > (size_t)INT32_MAX) {
        XML_ParserFree(s.parser);
        return basalt_error_set(err, BASALT_LIMIT, "%s: XML document too large", what);
    }
    enum XML_Status xs = XML_Parse(s.parser, xml, (int)len, XML_TRUE);
    basalt_status st = s.status;
    if (st == BASALT_OK && xs != XML_STATUS_OK)
        st = basalt_error_set(err, BASALT_CORRUPT, "%s: bad XML at line %lu: %s", what,
                              (unsigned long)XML_GetCurrentLineNumber(s.parser),
                              XML_ErrorString(XML_GetErrorCode(s.parser)));
    else if (st != BASALT_OK)
        basalt_error_context(err, st, "%s", what);
    XML_ParserFree(s.parser);
    basalt_buffer_reset(&s.text);
    return st;
}

basalt_status basalt_xml_escape_append(struct basalt_buffer *buf, const char *text,
                                       struct basalt_error *err)
{
    for (const char *p = text; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        default: break;
        }
        basalt_status st = rep ? basalt_buffer_append(buf, rep, strlen(rep), err)
                               : basalt_buffer_append(buf, p, 1, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
