/* The INI dialect of the AWS shared credentials and config files: [sections],
 * "key = value" lines, # and ; comment lines, and one level of nesting, where
 * a key with an empty value ("s3 =") is followed by indented "key = value"
 * lines. Internal to the io module (aws_config.c reads it). */
#ifndef BASALT_IO_AUTH_AWS_INI_H
#define BASALT_IO_AUTH_AWS_INI_H

#include "basalt/core.h"

struct basalt_aws_ini_entry {
    const char *section;  /* inner whitespace runs collapsed: "profile dev" */
    const char *key;      /* lower-cased; NULL marks where a section starts */
    const char *subkey;   /* lower-cased nested key, or NULL */
    const char *value;
    int line;
};

struct basalt_aws_ini {
    const char *name;     /* the file name, for messages (borrowed) */
    bool present;         /* the file existed */
    struct basalt_arena arena;
    struct basalt_aws_ini_entry *entries;
    size_t count;
    size_t capacity;
};

/* Parses text[0..len) into `out` (initialised here; `name` is borrowed for
 * messages). CORRUPT naming "name:line" for malformed input (the message never
 * quotes the line, which may hold a secret), NOMEM. On failure `out` is
 * empty. */
basalt_status basalt_aws_ini_parse(const char *text, size_t len, const char *name,
                                   struct basalt_aws_ini *out, struct basalt_error *err);

/* Reads and parses the file at `path` (borrowed, also the name in messages).
 * A missing file is OK with out->present false. IO, LIMIT (over 16 MiB), and
 * as basalt_aws_ini_parse. */
basalt_status basalt_aws_ini_load(const char *path, struct basalt_aws_ini *out,
                                  struct basalt_error *err);

/* The last entry for (section, key, subkey) (subkey NULL for a top-level
 * key), or NULL. */
const struct basalt_aws_ini_entry *basalt_aws_ini_get(const struct basalt_aws_ini *ini,
                                                      const char *section, const char *key,
                                                      const char *subkey);
bool basalt_aws_ini_has_section(const struct basalt_aws_ini *ini, const char *section);

void basalt_aws_ini_reset(struct basalt_aws_ini *ini);

#endif
