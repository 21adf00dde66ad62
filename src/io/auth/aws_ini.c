/* Parser of the AWS shared files' INI dialect (as botocore reads it: comment
 * lines only, no inline comments, keys case-insensitive). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "auth/aws_ini.h"
#include "io_internal.h"

#define INI_MAX_FILE (16u << 20)

void basalt_aws_ini_reset(struct basalt_aws_ini *ini)
{
    basalt_arena_reset(&ini->arena);
    basalt_free(ini->entries);
    ini->entries = NULL;
    ini->count = ini->capacity = 0;
    ini->present = false;
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* [a, b) with blanks trimmed off both ends. */
static void trim(const char **a, const char **b)
{
    while (*a < *b && is_blank(**a))
        (*a)++;
    while (*b > *a && is_blank((*b)[-1]))
        (*b)--;
}

static char *copy_lower(struct basalt_arena *arena, const char *a, const char *b, bool lower,
                        bool collapse)
{
    char *d = basalt_arena_alloc(arena, (size_t)(b - a) + 1, 1);
    if (!d)
        return NULL;
    size_t w = 0;
    for (const char *p = a; p < b; p++) {
        char c = *p;
        if (collapse && is_blank(c)) {
            if (w > 0 && d[w - 1] == ' ')
                continue;
            c = ' ';
        }
        d[w++] = lower && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    d[w] = '\0';
    return d;
}

static basalt_status add_entry(struct basalt_aws_ini *ini, struct basalt_aws_ini_entry e,
                               struct basalt_error *err)
{
    if (ini->count == ini->capacity) {
        size_t cap = ini->capacity ? ini->capacity * 2 : 16;
        struct basalt_aws_ini_entry *n = basalt_realloc(ini->entries, cap * sizeof *n);
        if (!n)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", ini->name);
        ini->entries = n;
        ini->capacity = cap;
    }
    ini->entries[ini->count++] = e;
    return BASALT_OK;
}

/* Parser state across lines. */
struct ini_state {
    const char *section;
    const char *parent;  /* key with an empty value: indented lines nest under it */
    const char *valued;  /* key with a value: an indented line after it is an error */
};

static basalt_status corrupt(const struct basalt_aws_ini *ini, int line, const char *what,
                             struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT, "%s:%d: %s", ini->name, line, what);
}

static basalt_status parse_line(struct basalt_aws_ini *ini, struct ini_state *s, const char *a,
                                const char *b, int line, struct basalt_error *err)
{
    bool indented = a < b && is_blank(*a);
    trim(&a, &b);
    if (a == b || *a == '#' || *a == ';')
        return BASALT_OK;
    struct basalt_aws_ini_entry e = {NULL, NULL, NULL, NULL, line};
    if (*a == '[' && !indented) {
        if (b[-1] != ']' || b - a < 2)
            return corrupt(ini, line, "section header without a closing ']'", err);
        const char *na = a + 1, *nb = b - 1;
        trim(&na, &nb);
        if (na == nb)
            return corrupt(ini, line, "section header without a name", err);
        s->section = copy_lower(&ini->arena, na, nb, false, true);
        s->parent = s->valued = NULL;
        if (!s->section)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", ini->name);
        e.section = s->section;
        return add_entry(ini, e, err);
    }
    if (!s->section)
        return corrupt(ini, line, "a setting before any [section]", err);
    if (indented && s->valued)
        return corrupt(ini, line, "indented line after a setting that has a value "
                                  "(only 'name =' with an empty value opens a nested section)",
                       err);
    const char *eq = memchr(a, '=', (size_t)(b - a));
    if (!eq)
        return corrupt(ini, line,
                       indented ? "expected 'name = value' in a nested section"
                                : "expected 'name = value' or a [section]",
                       err);
    const char *ka = a, *kb = eq, *va = eq + 1, *vb = b;
    trim(&ka, &kb);
    trim(&va, &vb);
    if (ka == kb)
        return corrupt(ini, line, "setting without a name", err);
    char *key = copy_lower(&ini->arena, ka, kb, true, false);
    char *value = copy_lower(&ini->arena, va, vb, false, false);
    if (!key || !value)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", ini->name);
    e.section = s->section;
    e.value = value;
    if (indented && s->parent) {
        e.key = s->parent;
        e.subkey = key;
    } else {
        e.key = key;
        s->parent = va == vb ? key : NULL;
        s->valued = va == vb ? NULL : key;
    }
    return add_entry(ini, e, err);
}

basalt_status basalt_aws_ini_parse(const char *text, size_t len, const char *name,
                                   struct basalt_aws_ini *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->present = true;
    basalt_arena_init(&out->arena, 4096);
    /* Editors on Windows may start the file with a byte order mark. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    struct ini_state s = {NULL, NULL, NULL};
    const char *p = text, *end = text + len;
    basalt_status st = BASALT_OK;
    for (int line = 1; p < end && st == BASALT_OK; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *b = nl ? nl : end;
        if (b > p && b[-1] == '\r')
            b--;
        size_t n = b > p ? (size_t)(b - p) : 0;
        if (n > 0 && memchr(p, '\0', n))
            st = corrupt(out, line, "NUL byte in a text file", err);
        else
            st = parse_line(out, &s, p, b, line, err);
        p = nl ? nl + 1 : end;
    }
    if (st != BASALT_OK)
        basalt_aws_ini_reset(out);
    return st;
}

basalt_status basalt_aws_ini_load(const char *path, struct basalt_aws_ini *out,
                                  struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->name = path;
    basalt_arena_init(&out->arena, 4096);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return BASALT_OK;
        return basalt_io_errno(err, errno, "open", path);
    }
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = BASALT_OK;
    for (;;) {
        st = basalt_buffer_reserve(&buf, 4096, err);
        if (st != BASALT_OK)
            break;
        size_t n = fread(buf.data + buf.size, 1, 4096, f);
        buf.size += n;
        if (buf.size > INI_MAX_FILE) {
            st = basalt_error_set(err, BASALT_LIMIT, "%s: larger than %u bytes", path,
                                  INI_MAX_FILE);
            break;
        }
        if (n < 4096) {
            if (ferror(f))
                st = basalt_io_errno(err, errno, "read", path);
            break;
        }
    }
    fclose(f);
    if (st == BASALT_OK)
        st = basalt_aws_ini_parse((const char *)buf.data, buf.size, path, out, err);
    basalt_buffer_reset(&buf);
    return st;
}

const struct basalt_aws_ini_entry *basalt_aws_ini_get(const struct basalt_aws_ini *ini,
                                                      const char *section, const char *key,
                                                      const char *subkey)
{
    for (size_t i = ini->count; i-- > 0;) {
        const struct basalt_aws_ini_entry *e = &ini->entries[i];
        if (e->key && strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0 &&
            (subkey ? e->subkey && strcmp(e->subkey, subkey) == 0 : !e->subkey))
            return e;
    }
    return NULL;
}

bool basalt_aws_ini_has_section(const struct basalt_aws_ini *ini, const char *section)
{
    for (size_t i = 0; i < ini->count; i++)
        if (strcmp(ini->entries[i].section, section) == 0)
            return true;
    return false;
}
