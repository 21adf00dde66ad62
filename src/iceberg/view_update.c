/* Changing view metadata with REST-style requirements and updates, held as
 * a JSON object while it changes and checked by parsing the result back
 * (the view counterpart of update_apply.c). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_view.h"
#include "commit_internal.h"
#include "iceberg_internal.h"

/* ----------------------------------------------------------- requirements */

basalt_status basalt_iceberg_view_check_requirements(
    const struct basalt_iceberg_view_metadata *base, const char *requirements_json,
    struct basalt_error *err)
{
    if (!requirements_json || !*requirements_json)
        return BASALT_OK;
    json_error_t jerr;
    json_t *reqs = json_loads(requirements_json, 0, &jerr);
    if (!json_is_array(reqs)) {
        json_decref(reqs);
        return basalt_error_set(err, BASALT_CORRUPT, "requirements: not a JSON array (%s)",
                                jerr.text);
    }
    basalt_status st = BASALT_OK;
    size_t i;
    const json_t *r;
    json_array_foreach(reqs, i, r)
    {
        const char *type = json_string_value(json_object_get(r, "type"));
        if (!type) {
            st = basalt_error_set(err, BASALT_CORRUPT, "requirement without a 'type'");
            break;
        }
        if (strcmp(type, "assert-view-uuid") != 0) {
            st = basalt_error_set(err, BASALT_CORRUPT, "unknown view requirement '%.100s'", type);
            break;
        }
        const char *want = json_string_value(json_object_get(r, "uuid"));
        if (!want) {
            st = basalt_error_set(err, BASALT_CORRUPT, "assert-view-uuid: missing 'uuid'");
            break;
        }
        if (!base) {
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "requirement failed: assert-view-uuid on a view that does not "
                                  "exist");
            break;
        }
        if (strcasecmp(want, base->view_uuid) != 0) {
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "requirement failed: view uuid does not match: expected %.40s, "
                                  "found %.40s",
                                  want, base->view_uuid);
            break;
        }
    }
    json_decref(reqs);
    return st;
}

/* ---------------------------------------------------------------- updates */

struct view_state {
    json_t *m;
    int64_t now_ms;
    int32_t last_schema;   /* -1: none added */
    int32_t last_version;  /* -1: none added */
    bool is_new;
    json_t *added;         /* ids of the versions this change added (integers) */
    bool current_changed;
};

#define NOMEM(what) basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", what)

static basalt_status set_string(struct view_state *s, const json_t *u, const char *from,
                                const char *to, struct basalt_error *err)
{
    const char *v = json_string_value(json_object_get(u, from));
    if (!v || !*v)
        return basalt_error_set(err, BASALT_CORRUPT, "missing '%s'", from);
    return json_object_set_new(s->m, to, json_string(v)) == 0 ? BASALT_OK : NOMEM(to);
}

static basalt_status upgrade_format(struct view_state *s, const json_t *u,
                                    struct basalt_error *err)
{
    int64_t want = 0;
    basalt_status st = basalt_iceberg_jint(u, "format-version", true, 0, &want, err);
    if (st != BASALT_OK)
        return st;
    if (want != BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "view format version %lld",
                                (long long)want);
    (void)s;
    return BASALT_OK;
}

static basalt_status set_properties(struct view_state *s, const json_t *u,
                                    struct basalt_error *err)
{
    json_t *updates = json_object_get(u, "updates");
    if (!json_is_object(updates))
        return basalt_error_set(err, BASALT_CORRUPT, "'updates' is not an object");
    json_t *props = basalt_iceberg_jobject(s->m, "properties");
    const char *key;
    json_t *v;
    json_object_foreach(updates, key, v)
    {
        if (!json_is_string(v))
            return basalt_error_set(err, BASALT_CORRUPT, "property '%s' is not a string", key);
        if (!props || json_object_set_new(props, key, json_string(json_string_value(v))) != 0)
            return NOMEM("set-properties");
    }
    return BASALT_OK;
}

static basalt_status remove_properties(struct view_state *s, const json_t *u,
                                       struct basalt_error *err)
{
    const json_t *removals = json_object_get(u, "removals");
    if (!json_is_array(removals))
        return basalt_error_set(err, BASALT_CORRUPT, "'removals' is not an array");
    size_t i;
    const json_t *k;
    json_array_foreach(removals, i, k)
    {
        if (json_is_string(k))
            json_object_del(json_object_get(s->m, "properties"), json_string_value(k));
    }
    return BASALT_OK;
}

/* Whether two schemas are the same but for their ids: fields, and
 * identifier field ids (absent is empty). */
static bool same_schema(const json_t *a, const json_t *b)
{
    if (!json_equal(json_object_get(a, "fields"), json_object_get(b, "fields")))
        return false;
    const json_t *ia = json_object_get(a, "identifier-field-ids");
    const json_t *ib = json_object_get(b, "identifier-field-ids");
    if (json_array_size(ia) == 0 && json_array_size(ib) == 0)
        return true;
    return json_equal(ia, ib);
}

static basalt_status add_schema(struct view_state *s, const json_t *u, struct basalt_error *err)
{
    const json_t *schema = json_object_get(u, "schema");
    if (!json_is_object(schema) || !json_is_array(json_object_get(schema, "fields")))
        return basalt_error_set(err, BASALT_CORRUPT, "add-schema: 'schema' is not a schema");
    json_t *schemas = basalt_iceberg_jarray(s->m, "schemas");
    if (!schemas)
        return NOMEM("add-schema");
    int64_t id = 0;
    size_t i;
    json_t *e;
    json_array_foreach(schemas, i, e)
    {
        int64_t have = json_integer_value(json_object_get(e, "schema-id"));
        if (same_schema(e, schema)) {
            s->last_schema = (int32_t)have;
            return BASALT_OK;
        }
        if (have >= id)
            id = have + 1;
    }
    json_t *copy = json_deep_copy(schema);
    if (!copy || json_object_set_new(copy, "schema-id", json_integer(id)) != 0 ||
        json_object_set_new(copy, "type", json_string("struct")) != 0 ||
        json_array_append_new(schemas, copy) != 0)
        return NOMEM("add-schema");
    s->last_schema = (int32_t)id;
    return BASALT_OK;
}

/* Whether two versions define the same view: everything but the id and
 * the time. Absent and empty default namespaces are alike. */
static bool same_version(const json_t *a, const json_t *b)
{
    if (!json_equal(json_object_get(a, "schema-id"), json_object_get(b, "schema-id")) ||
        !json_equal(json_object_get(a, "summary"), json_object_get(b, "summary")) ||
        !json_equal(json_object_get(a, "representations"), json_object_get(b, "representations")))
        return false;
    const json_t *ca = json_object_get(a, "default-catalog"),
                 *cb = json_object_get(b, "default-catalog");
    if ((ca && !json_is_null(ca)) != (cb && !json_is_null(cb)) ||
        (ca && cb && !json_is_null(ca) && !json_equal(ca, cb)))
        return false;
    const json_t *na = json_object_get(a, "default-namespace"),
                 *nb = json_object_get(b, "default-namespace");
    if (json_array_size(na) == 0 && json_array_size(nb) == 0)
        return true;
    return json_equal(na, nb);
}

/* No two SQL representations of one dialect. */
static basalt_status check_dialects(const json_t *version, struct basalt_error *err)
{
    const json_t *reps = json_object_get(version, "representations");
    if (!json_is_array(reps))
        return basalt_error_set(err, BASALT_CORRUPT, "add-view-version: no 'representations'");
    for (size_t i = 0; i < json_array_size(reps); i++) {
        const json_t *ri = json_array_get(reps, i);
        const char *ti = json_string_value(json_object_get(ri, "type"));
        const char *di = json_string_value(json_object_get(ri, "dialect"));
        if (!ti || strcasecmp(ti, "sql") != 0 || !di)
            continue;
        for (size_t j = 0; j < i; j++) {
            const json_t *rj = json_array_get(reps, j);
            const char *tj = json_string_value(json_object_get(rj, "type"));
            const char *dj = json_string_value(json_object_get(rj, "dialect"));
            if (tj && strcasecmp(tj, "sql") == 0 && dj && strcasecmp(di, dj) == 0)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "add-view-version: two queries for dialect %.60s", di);
        }
    }
    return BASALT_OK;
}

static basalt_status add_version(struct view_state *s, const json_t *u, struct basalt_error *err)
{
    const json_t *given = json_object_get(u, "view-version");
    if (!json_is_object(given))
        return basalt_error_set(err, BASALT_CORRUPT, "add-view-version: no 'view-version'");
    int64_t id = 0, schema_id = 0;
    basalt_status st = basalt_iceberg_jint(given, "version-id", true, 0, &id, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(given, "schema-id", true, 0, &schema_id, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "add-view-version");
    if (schema_id == -1) {
        if (s->last_schema < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "add-view-version: schema-id -1 names the schema added "
                                    "last, and none was");
        schema_id = s->last_schema;
    }
    if (!basalt_iceberg_jfind(json_object_get(s->m, "schemas"), "schema-id", schema_id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add-view-version: no schema with id %lld", (long long)schema_id);
    st = check_dialects(given, err);
    if (st != BASALT_OK)
        return st;
    json_t *version = json_deep_copy(given);
    if (!version || json_object_set_new(version, "schema-id", json_integer(schema_id)) != 0) {
        json_decref(version);
        return NOMEM("add-view-version");
    }
    if (!json_object_get(version, "default-namespace") &&
        json_object_set_new(version, "default-namespace", json_array()) != 0) {
        json_decref(version);
        return NOMEM("add-view-version");
    }
    json_t *versions = basalt_iceberg_jarray(s->m, "versions");
    size_t i;
    json_t *e;
    json_array_foreach(versions, i, e)
    {
        int64_t have = json_integer_value(json_object_get(e, "version-id"));
        if (same_version(e, version)) {
            json_decref(version);
            s->last_version = (int32_t)have;
            return BASALT_OK;
        }
        if (have >= id)
            id = have + 1;
    }
    if (id < 1 || id > INT32_MAX) {
        json_decref(version);
        return basalt_error_set(err, BASALT_INVALID_ARG, "add-view-version: version id %lld",
                                (long long)id);
    }
    if (json_object_set_new(version, "version-id", json_integer(id)) != 0 ||
        json_array_append_new(versions, version) != 0 ||
        json_array_append_new(s->added, json_integer(id)) != 0)
        return NOMEM("add-view-version");
    s->last_version = (int32_t)id;
    return BASALT_OK;
}

static basalt_status set_current(struct view_state *s, const json_t *u, struct basalt_error *err)
{
    int64_t id = 0;
    basalt_status st = basalt_iceberg_jint(u, "view-version-id", true, 0, &id, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "set-current-view-version");
    if (id == -1) {
        if (s->last_version < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "set-current-view-version: -1 names the version added "
                                    "last, and none was");
        id = s->last_version;
    }
    const json_t *version = basalt_iceberg_jfind(json_object_get(s->m, "versions"), "version-id", id);
    if (!version)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "set-current-view-version: no version with id %lld",
                                (long long)id);
    if (json_integer_value(json_object_get(s->m, "current-version-id")) == id)
        return BASALT_OK;
    if (json_object_set_new(s->m, "current-version-id", json_integer(id)) != 0)
        return NOMEM("set-current-view-version");
    s->current_changed = true;
    return BASALT_OK;
}

static basalt_status apply_one(struct view_state *s, const json_t *u, struct basalt_error *err)
{
    const char *action = json_string_value(json_object_get(u, "action"));
    if (!action)
        return basalt_error_set(err, BASALT_CORRUPT, "update without an 'action'");
    if (strcmp(action, "assign-uuid") == 0)
        return set_string(s, u, "uuid", "view-uuid", err);
    if (strcmp(action, "upgrade-format-version") == 0)
        return upgrade_format(s, u, err);
    if (strcmp(action, "add-schema") == 0)
        return add_schema(s, u, err);
    if (strcmp(action, "set-location") == 0)
        return set_string(s, u, "location", "location", err);
    if (strcmp(action, "set-properties") == 0)
        return set_properties(s, u, err);
    if (strcmp(action, "remove-properties") == 0)
        return remove_properties(s, u, err);
    if (strcmp(action, "add-view-version") == 0)
        return add_version(s, u, err);
    if (strcmp(action, "set-current-view-version") == 0)
        return set_current(s, u, err);
    return basalt_error_set(err, BASALT_UNSUPPORTED, "view update '%s' is not supported", action);
}

static bool was_added(const struct view_state *s, int64_t id)
{
    size_t i;
    const json_t *e;
    json_array_foreach(s->added, i, e)
    {
        if (json_integer_value(e) == id)
            return true;
    }
    return false;
}

static int compare_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Keeps the current version and the highest ids, at most `keep`. */
static basalt_status retain_versions(struct view_state *s, size_t keep, struct basalt_error *err)
{
    json_t *versions = json_object_get(s->m, "versions");
    size_t n = json_array_size(versions);
    if (n <= keep)
        return BASALT_OK;
    int64_t current = json_integer_value(json_object_get(s->m, "current-version-id"));
    int64_t *ids = basalt_malloc(n * sizeof *ids);
    if (!ids)
        return NOMEM("version retention");
    for (size_t i = 0; i < n; i++)
        ids[i] = json_integer_value(json_object_get(json_array_get(versions, i), "version-id"));
    qsort(ids, n, sizeof *ids, compare_desc);
    /* ids[0, kept) are retained: the current one counts first. */
    size_t kept = 0;
    int64_t *keep_ids = basalt_malloc(keep * sizeof *keep_ids);
    if (!keep_ids) {
        basalt_free(ids);
        return NOMEM("version retention");
    }
    keep_ids[kept++] = current;
    for (size_t i = 0; i < n && kept < keep; i++)
        if (ids[i] != current)
            keep_ids[kept++] = ids[i];
    basalt_free(ids);
    for (size_t i = n; i-- > 0;) {
        int64_t id = json_integer_value(json_object_get(json_array_get(versions, i), "version-id"));
        bool retained = false;
        for (size_t k = 0; k < kept; k++)
            retained = retained || keep_ids[k] == id;
        if (!retained)
            json_array_remove(versions, i);
    }
    /* The log stays a history of retained versions: entries before the last
     * one naming a dropped version go with it. */
    json_t *log = json_object_get(s->m, "version-log");
    size_t cut = 0;
    for (size_t i = 0; i < json_array_size(log); i++) {
        int64_t id = json_integer_value(json_object_get(json_array_get(log, i), "version-id"));
        bool retained = false;
        for (size_t k = 0; k < kept; k++)
            retained = retained || keep_ids[k] == id;
        if (!retained)
            cut = i + 1;
    }
    basalt_free(keep_ids);
    while (cut-- > 0)
        json_array_remove(log, 0);
    return BASALT_OK;
}

static basalt_status finish(struct view_state *s, struct basalt_error *err)
{
    json_t *m = s->m;
    const char *location = json_string_value(json_object_get(m, "location"));
    if (!location || !*location)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the view has no location");
    int64_t current = json_integer_value(json_object_get(m, "current-version-id"));
    const json_t *version = basalt_iceberg_jfind(json_object_get(m, "versions"), "version-id",
                                                 current);
    if (!version)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the view has no current version");
    if (s->current_changed) {
        int64_t ts = s->now_ms;
        if (was_added(s, current) || s->is_new)
            ts = json_integer_value(json_object_get(version, "timestamp-ms"));
        json_t *log = basalt_iceberg_jarray(m, "version-log");
        if (!log || json_array_append_new(log, json_pack("{s:I,s:I}", "timestamp-ms",
                                                         (json_int_t)ts, "version-id",
                                                         (json_int_t)current)) != 0)
            return NOMEM("version-log");
    }
    const char *size_text = json_string_value(
        json_object_get(json_object_get(m, "properties"), BASALT_ICEBERG_VIEW_HISTORY_SIZE));
    long size = BASALT_ICEBERG_VIEW_HISTORY_SIZE_DEFAULT;
    if (size_text) {
        char *end;
        size = strtol(size_text, &end, 10);
        if (end == size_text || *end || size < 1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "%s must be a positive number, not "
                                                             "'%.40s'",
                                    BASALT_ICEBERG_VIEW_HISTORY_SIZE, size_text);
    }
    size_t keep = json_array_size(s->added) + (was_added(s, current) ? 0 : 1);
    if ((size_t)size > keep)
        keep = (size_t)size;
    return retain_versions(s, keep, err);
}

static json_t *empty_view(void)
{
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    return json_pack("{s:i,s:s,s:s,s:[],s:i,s:[],s:[],s:{}}", "format-version",
                     BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION, "view-uuid", uuid, "location", "",
                     "schemas", "current-version-id", -1, "versions", "version-log",
                     "properties");
}

static json_t *view_object(const struct basalt_iceberg_view_metadata *base)
{
    char *text = NULL;
    size_t len = 0;
    if (basalt_iceberg_view_metadata_to_json(base, &text, &len, NULL) != BASALT_OK)
        return NULL;
    json_t *m = json_loadb(text, len, 0, NULL);
    basalt_free(text);
    return m;
}

basalt_status basalt_iceberg_view_apply_updates(const struct basalt_iceberg_view_metadata *base,
                                                const char *updates_json, int64_t now_ms,
                                                char **out, size_t *len,
                                                struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view updates: no output");
    *out = NULL;
    json_error_t jerr;
    json_t *updates = json_loads(updates_json ? updates_json : "", 0, &jerr);
    if (!json_is_array(updates)) {
        json_decref(updates);
        return basalt_error_set(err, BASALT_CORRUPT, "view updates: not a JSON array (%s)",
                                jerr.text);
    }
    struct view_state s = {
        .m = base ? view_object(base) : empty_view(),
        .now_ms = now_ms,
        .last_schema = -1,
        .last_version = -1,
        .is_new = base == NULL,
        .added = json_array(),
    };
    basalt_status st = s.m && s.added ? BASALT_OK : NOMEM("view updates");
    size_t i;
    const json_t *u;
    json_array_foreach(updates, i, u)
    {
        if (st != BASALT_OK)
            break;
        st = apply_one(&s, u, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "update %zu", i);
    }
    if (st == BASALT_OK)
        st = finish(&s, err);
    char *text = NULL;
    if (st == BASALT_OK && !(text = json_dumps(s.m, JSON_INDENT(2) | JSON_SORT_KEYS)))
        st = NOMEM("view updates");
    json_decref(s.m);
    json_decref(s.added);
    json_decref(updates);
    if (st != BASALT_OK)
        return st;
    size_t n = strlen(text);
    struct basalt_iceberg_view_metadata *check = NULL;
    st = basalt_iceberg_view_metadata_parse(text, n, "updated view metadata", &check, err);
    basalt_iceberg_view_metadata_free(check);
    if (st == BASALT_CORRUPT)
        st = basalt_error_context(err, BASALT_INVALID_ARG,
                                  "the updates give invalid view metadata");
    char *copy = st == BASALT_OK ? basalt_malloc(n + 1) : NULL;
    if (st == BASALT_OK && !copy)
        st = NOMEM("view updates");
    if (copy)
        memcpy(copy, text, n + 1);
    free(text);
    *out = copy;
    if (len && copy)
        *len = n;
    return st;
}

/* -------------------------------------------------- updates from a definition */

static json_t *kv_json(const struct basalt_iceberg_kv *kv, uint32_t n)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < n; i++)
        if (!kv[i].key || json_object_set_new(o, kv[i].key,
                                              json_string(kv[i].value ? kv[i].value : "")) != 0) {
            json_decref(o);
            return NULL;
        }
    return o;
}

/* The ViewVersion object of a definition (schema-id -1). */
static basalt_status version_json(const struct basalt_iceberg_view_definition *def,
                                  int64_t version_id, int64_t now_ms, json_t **out,
                                  struct basalt_error *err)
{
    *out = NULL;
    if (!def->sql || !*def->sql)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a view needs its SQL text");
    json_t *ns = json_array();
    const char *p = def->default_namespace;
    while (ns && p && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 0 || json_array_append_new(ns, json_stringn(p, n)) != 0) {
            json_decref(ns);
            return n == 0 ? basalt_error_set(err, BASALT_INVALID_ARG,
                                             "invalid default namespace '%.200s'",
                                             def->default_namespace)
                          : NOMEM("view version");
        }
        p = dot ? dot + 1 : p + n;
        if (dot && !*p) {
            json_decref(ns);
            return basalt_error_set(err, BASALT_INVALID_ARG, "invalid default namespace '%.200s'",
                                    def->default_namespace);
        }
    }
    json_t *summary = def->summary ? kv_json(def->summary, def->n_summary)
                                   : json_pack("{s:s}", "engine-name", "basalt");
    json_t *v = ns && summary
                    ? json_pack("{s:I,s:I,s:i,s:O,s:[{s:s,s:s,s:s}],s:O}", "version-id",
                                (json_int_t)version_id, "timestamp-ms", (json_int_t)now_ms,
                                "schema-id", -1, "summary", summary, "representations", "type",
                                "sql", "sql", def->sql, "dialect",
                                def->dialect && *def->dialect ? def->dialect : "spark",
                                "default-namespace", ns)
                    : NULL;
    json_decref(ns);
    json_decref(summary);
    if (v && def->default_catalog &&
        json_object_set_new(v, "default-catalog", json_string(def->default_catalog)) != 0) {
        json_decref(v);
        v = NULL;
    }
    if (!v)
        return NOMEM("view version");
    *out = v;
    return BASALT_OK;
}

static basalt_status schema_json(const struct basalt_iceberg_view_definition *def, json_t **out,
                                 struct basalt_error *err)
{
    json_error_t jerr;
    *out = def->schema_json ? json_loads(def->schema_json, 0, &jerr) : NULL;
    if (!json_is_object(*out) || !json_is_array(json_object_get(*out, "fields"))) {
        json_decref(*out);
        *out = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "a view needs a schema object");
    }
    json_object_del(*out, "schema-id");
    return BASALT_OK;
}

static basalt_status dump(json_t *j, char **out, struct basalt_error *err)
{
    char *text = json_dumps(j, JSON_COMPACT);
    *out = text ? basalt_strdup(text) : NULL;
    free(text);
    return *out ? BASALT_OK : NOMEM("view updates");
}

basalt_status basalt_iceberg_view_create_updates(const struct basalt_iceberg_view_definition *def,
                                                 const char *location, int64_t now_ms,
                                                 char **out, struct basalt_error *err)
{
    *out = NULL;
    if (!def)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view create: no definition");
    json_t *schema = NULL, *version = NULL;
    basalt_status st = schema_json(def, &schema, err);
    if (st == BASALT_OK)
        st = version_json(def, 1, now_ms, &version, err);
    json_t *props = st == BASALT_OK ? kv_json(def->properties, def->n_properties) : NULL;
    if (st == BASALT_OK && !props)
        st = NOMEM("view updates");
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    json_t *updates =
        st == BASALT_OK
            ? json_pack("[{s:s,s:s},{s:s,s:i},{s:s,s:O},{s:s,s:s},{s:s,s:O},{s:s,s:O},{s:s,s:i}]",
                        "action", "assign-uuid", "uuid", uuid, "action",
                        "upgrade-format-version", "format-version",
                        BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION, "action", "add-schema", "schema",
                        schema, "action", "set-location", "location", location ? location : "", "action",
                        "set-properties", "updates", props, "action", "add-view-version",
                        "view-version", version, "action", "set-current-view-version",
                        "view-version-id", -1)
            : NULL;
    /* Without a location the catalog chooses one. */
    if (st == BASALT_OK && updates && (!location || !*location))
        json_array_remove(updates, 3);
    if (st == BASALT_OK)
        st = updates ? dump(updates, out, err) : NOMEM("view updates");
    json_decref(updates);
    json_decref(schema);
    json_decref(version);
    json_decref(props);
    return st;
}

basalt_status basalt_iceberg_view_replace_updates(
    const struct basalt_iceberg_view_metadata *base,
    const struct basalt_iceberg_view_definition *def, int64_t now_ms, char **requirements,
    char **updates, struct basalt_error *err)
{
    *requirements = *updates = NULL;
    if (!base || !def)
        return basalt_error_set(err, BASALT_INVALID_ARG, "view replace: NULL argument");
    int64_t next = 1;
    for (uint32_t i = 0; i < base->n_versions; i++)
        if (base->versions[i].version_id >= next)
            next = (int64_t)base->versions[i].version_id + 1;
    json_t *schema = NULL, *version = NULL, *list = NULL, *reqs = NULL;
    basalt_status st = schema_json(def, &schema, err);
    if (st == BASALT_OK)
        st = version_json(def, next, now_ms, &version, err);
    if (st == BASALT_OK) {
        list = json_pack("[{s:s,s:O},{s:s,s:O},{s:s,s:i}]", "action", "add-schema", "schema",
                         schema, "action", "add-view-version", "view-version", version,
                         "action", "set-current-view-version", "view-version-id", -1);
        reqs = json_pack("[{s:s,s:s}]", "type", "assert-view-uuid", "uuid", base->view_uuid);
        if (!list || !reqs)
            st = NOMEM("view replace");
    }
    if (st == BASALT_OK && def->n_properties) {
        json_t *props = kv_json(def->properties, def->n_properties);
        if (!props || json_array_append_new(list, json_pack("{s:s,s:o}", "action",
                                                            "set-properties", "updates",
                                                            props)) != 0)
            st = NOMEM("view replace");
    }
    if (st == BASALT_OK)
        st = dump(reqs, requirements, err);
    if (st == BASALT_OK)
        st = dump(list, updates, err);
    if (st != BASALT_OK) {
        basalt_free(*requirements);
        *requirements = NULL;
    }
    json_decref(schema);
    json_decref(version);
    json_decref(list);
    json_decref(reqs);
    return st;
}
