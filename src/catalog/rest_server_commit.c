/* Commits: one table (POST .../tables/{table}, also the commit of a staged
 * create) through basalt_catalog_commit_table, and several tables at once
 * (POST /transactions/commit), all or nothing.
 *
 * A multi-table commit cannot be made of per-table compare-and-swaps: once
 * the first table's pointer moved, a conflict on the second leaves the first
 * committed. So every table's next metadata file is written first (each
 * under a fresh name, referenced by nothing yet), and then all pointers are
 * swapped in one database transaction, each UPDATE still guarded by the
 * location its change was built on. The database makes the swaps atomic
 * against other transactions and single-table commits alike; a guard that
 * fails rolls all of them back. Hence it is served by SQL catalogs only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors commit_errors = {
    "NoSuchTableException", "CommitFailedException", true};

static const char *const requirement_types[] = {
    "assert-create",
    "assert-table-uuid",
    "assert-ref-snapshot-id",
    "assert-last-assigned-field-id",
    "assert-current-schema-id",
    "assert-last-assigned-partition-id",
    "assert-default-spec-id",
    "assert-default-sort-order-id",
};

/* The TableUpdate actions of the spec (the encryption-key ones are known
 * but not applied: they fail as 400 when the updates are applied). */
static const char *const update_actions[] = {
    "assign-uuid", "upgrade-format-version", "add-schema", "set-current-schema", "add-spec",
    "set-default-spec", "add-sort-order", "set-default-sort-order", "add-snapshot",
    "set-snapshot-ref", "remove-snapshots", "remove-snapshot-ref", "set-location",
    "set-properties", "remove-properties", "set-statistics", "remove-statistics",
    "set-partition-statistics", "remove-partition-statistics", "remove-partition-specs",
    "remove-schemas", "add-encryption-key", "remove-encryption-key",
};

static bool known(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

/* A CommitTableRequest checked before anything is applied, so that an
 * unknown requirement or update is 400 whatever else fails first. */
struct change {
    char *requirements; /* JSON text */
    char *updates;
    bool creates;       /* carries assert-create */
};

static void change_reset(struct change *c)
{
    basalt_free(c->requirements);
    basalt_free(c->updates);
    memset(c, 0, sizeof *c);
}

static char *text_of(const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    char *copy = text ? basalt_strdup(text) : NULL;
    free(text);
    return copy;
}

static basalt_status check_change(const json_t *req, struct change *c, struct basalt_error *err)
{
    memset(c, 0, sizeof *c);
    const json_t *reqs = json_object_get(req, "requirements");
    const json_t *ups = json_object_get(req, "updates");
    if (!json_is_array(reqs) || !json_is_array(ups))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a commit needs 'requirements' and 'updates' arrays");
    size_t i;
    const json_t *e;
    json_array_foreach(reqs, i, e)
    {
        const char *type = json_string_value(json_object_get(e, "type"));
        if (!json_is_object(e) || !known(type, requirement_types,
                                         sizeof requirement_types / sizeof *requirement_types))
            return basalt_error_set(err, BASALT_INVALID_ARG, "unknown requirement '%.100s'",
                                    type ? type : "(no type)");
        if (strcmp(type, "assert-create") == 0)
            c->creates = true;
    }
    json_array_foreach(ups, i, e)
    {
        const char *action = json_string_value(json_object_get(e, "action"));
        if (!json_is_object(e) ||
            !known(action, update_actions, sizeof update_actions / sizeof *update_actions))
            return basalt_error_set(err, BASALT_INVALID_ARG, "unknown update '%.100s'",
                                    action ? action : "(no action)");
    }
    c->requirements = text_of(reqs);
    c->updates = text_of(ups);
    if (!c->requirements || !c->updates) {
        change_reset(c);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

/* Answers a commit's failure: what the client did wrong is 400 (an update
 * that does not apply included: the spec has no other code for it). */
static void fail(struct basalt_catalog_rest_call *call, basalt_status st,
                 const struct basalt_error *err)
{
    if (st == BASALT_UNSUPPORTED)
        st = BASALT_INVALID_ARG;
    basalt_catalog_rest_fail(call->resp, st, err, &commit_errors);
}

/* CommitTableResponse, with the ETag a load would give. */
static void reply_committed(struct basalt_catalog_rest_call *call,
                            const struct basalt_iceberg_table *t)
{
    struct basalt_error err;
    basalt_error_init(&err);
    json_t *result = NULL;
    basalt_status st = basalt_catalog_rest_table_result(t, false, &result, &err);
    if (st != BASALT_OK) {
        /* Committed, but the answer cannot be made: the client must not
         * assume the commit failed. */
        basalt_catalog_rest_fail(call->resp, BASALT_INTERNAL, &err, &commit_errors);
        return;
    }
    json_object_del(result, "config");
    char etag[72];
    basalt_catalog_rest_etag(t->metadata_location, false, etag);
    basalt_catalog_rest_reply(call->resp, 200, result);
    if (etag[0] && call->resp->status == 200)
        basalt_catalog_rest_add_header(call->resp, "ETag", etag);
}

/* The commit of a staged create: the requirements hold against no table,
 * then the updates create it. A missing location gets the default one, so
 * that a client need not repeat what the staged metadata had. */
static void commit_create(struct basalt_catalog_rest_call *call, const struct change *c)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_table *t = NULL;
    char *location = NULL, *updates = NULL;
    bool exists = false;
    basalt_status st = basalt_catalog_namespace_exists(call->catalog, call->ns, &exists, &err);
    if (st == BASALT_OK && !exists) {
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", call->ns);
        return;
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_check_requirements(NULL, c->requirements, &err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(call->catalog, call->identifier, &location, &err);
    json_t *list = st == BASALT_OK ? json_loads(c->updates, 0, NULL) : NULL;
    json_t *set = list ? json_pack("{s:s,s:s}", "action", "set-location", "location", location)
                       : NULL;
    if (st == BASALT_OK && (!set || json_array_insert_new(list, 0, set) != 0 ||
                            !(updates = text_of(list))))
        st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    json_decref(list);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(call->catalog, call->identifier, updates, &t, &err);
    if (st == BASALT_OK)
        reply_committed(call, t);
    else
        fail(call, st, &err);
    basalt_iceberg_table_free(t);
    basalt_free(location);
    basalt_free(updates);
}

void basalt_catalog_rest_op_update_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct change c;
    char *named = NULL;
    const json_t *ident = json_object_get(call->body, "identifier");
    basalt_status st = BASALT_OK;
    if (ident && !json_is_null(ident)) {
        st = basalt_catalog_rest_identifier_from_json(ident, &named, &err);
        if (st == BASALT_OK && strcmp(named, call->identifier) != 0)
            st = basalt_error_set(&err, BASALT_INVALID_ARG,
                                  "the body names table %.200s, the path %.200s", named,
                                  call->identifier);
        basalt_free(named);
    }
    if (st == BASALT_OK)
        st = check_change(call->body, &c, &err);
    if (st != BASALT_OK) {
        fail(call, st, &err);
        return;
    }
    if (c.creates) {
        commit_create(call, &c);
    } else {
        struct basalt_iceberg_table *t = NULL;
        st = basalt_catalog_commit_table(call->catalog, call->identifier, c.requirements,
                                         c.updates, &t, &err);
        if (st == BASALT_OK)
            reply_committed(call, t);
        else
            fail(call, st, &err);
        basalt_iceberg_table_free(t);
    }
    change_reset(&c);
}

/* ------------------------------------------------------ transactions */

/* One table of a transaction: its change, the base it was built on, the
 * metadata file written for it. */
struct tx_table {
    char *identifier, *ns, *name;
    struct change change;
    struct basalt_iceberg_table *base;
    char *location; /* the new metadata file, once written */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next metadata file after `previous` in `table_location`, named as
 * the SQL catalog's commits name them ("<NNNNN>-<uuid>.metadata.json"). */
static char *next_location(const char *table_location, const char *previous)
{
    const char *base = strrchr(previous, '/');
    base = base ? base + 1 : previous;
    char *end;
    long v = strtol(base, &end, 10);
    if (end == base || (*end != '-' && *end != '.'))
        v = -1;
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    size_t tl = strlen(table_location), cap = tl + 96;
    while (tl > 1 && table_location[tl - 1] == '/')
        tl--;
    char *loc = basalt_malloc(cap);
    if (loc)
        snprintf(loc, cap, "%.*s/metadata/%05ld-%s.metadata.json", (int)tl, table_location, v + 1,
                 uuid);
    return loc;
}

/* Checks, applies and writes one table's change (nothing points at the
 * file yet). */
static basalt_status prepare(struct basalt_catalog_rest_call *call, struct tx_table *t,
                             struct basalt_error *err)
{
    basalt_status st = basalt_catalog_load_table(call->catalog, t->identifier, &t->base, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_check_requirements(t->base->metadata, t->change.requirements, err);
    char *text = NULL;
    size_t len = 0;
    if (st == BASALT_OK) {
        struct basalt_iceberg_update_context ctx = {
            .now_ms = now_ms(), .base_location = t->base->metadata_location};
        if (ctx.now_ms <= t->base->metadata->last_updated_ms)
            ctx.now_ms = t->base->metadata->last_updated_ms + 1;
        st = basalt_iceberg_apply_updates(t->base->metadata, t->change.updates, &ctx, &text, &len,
                                          err);
    }
    json_t *m = st == BASALT_OK ? json_loadb(text, len, 0, NULL) : NULL;
    const char *table_loc = json_string_value(json_object_get(m, "location"));
    char *loc = table_loc ? next_location(table_loc, t->base->metadata_location) : NULL;
    json_decref(m);
    if (st == BASALT_OK && !loc)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_output *out = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_io_open_output(t->base->io, loc, BASALT_IO_CREATE_EXCLUSIVE, &out,
                                           err);
    if (st == BASALT_OK)
        st = basalt_output_write(out, text, len, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    basalt_free(text);
    if (st == BASALT_OK)
        t->location = loc;
    else
        basalt_free(loc);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%.200s", t->identifier);
    return BASALT_OK;
}

/* Deletes the files written for a transaction that did not commit. */
static void discard(struct tx_table *tables, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tables[i].location) {
            const char *loc = tables[i].location;
            basalt_iceberg_io_delete(tables[i].base->io, &loc, 1, NULL);
        }
}

/* Reads table-changes into `tables` (checked: identifiers, no duplicates,
 * known requirements and updates, no creates). */
static basalt_status read_changes(const json_t *changes, struct tx_table *tables, size_t n,
                                  struct basalt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(changes, i);
        struct tx_table *t = &tables[i];
        basalt_status st = json_is_object(c) ? BASALT_OK
                                             : basalt_error_set(err, BASALT_INVALID_ARG,
                                                                "a table change is not an object");
        if (st == BASALT_OK && !json_object_get(c, "identifier"))
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "every table change of a transaction needs an 'identifier'");
        if (st == BASALT_OK)
            st = basalt_catalog_rest_identifier_from_json(json_object_get(c, "identifier"),
                                                          &t->identifier, err);
        if (st == BASALT_OK)
            st = basalt_catalog_identifier_split(t->identifier, &t->ns, &t->name, err);
        for (size_t k = 0; st == BASALT_OK && k < i; k++)
            if (strcmp(tables[k].identifier, t->identifier) == 0)
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "table %.200s has more than one change", t->identifier);
        if (st == BASALT_OK)
            st = check_change(c, &t->change, err);
        if (st == BASALT_OK && t->change.creates)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "a transaction cannot create %.200s (assert-create)",
                                  t->identifier);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "table-changes[%zu]", i);
    }
    return BASALT_OK;
}

void basalt_catalog_rest_op_commit_transaction(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    const json_t *changes = json_object_get(call->body, "table-changes");
    if (!json_is_array(changes)) {
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException",
                                  "a transaction needs a 'table-changes' array");
        return;
    }
    size_t n = json_array_size(changes);
    struct tx_table *tables = basalt_calloc(n ? n : 1, sizeof *tables);
    struct basalt_catalog_rest_swap *swaps = basalt_calloc(n ? n : 1, sizeof *swaps);
    struct basalt_catalog_rest_sql *sql = NULL;
    basalt_status st = tables && swaps ? read_changes(changes, tables, n, &err)
                                       : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_catalog_rest_slot_sql(call, &sql, &err);
    for (size_t i = 0; st == BASALT_OK && i < n; i++)
        st = prepare(call, &tables[i], &err);
    for (size_t i = 0; st == BASALT_OK && i < n; i++)
        swaps[i] = (struct basalt_catalog_rest_swap){tables[i].ns, tables[i].name,
                                                     tables[i].base->metadata_location,
                                                     tables[i].location};
    if (st == BASALT_OK && n)
        st = basalt_catalog_rest_sql_swap_all(sql, call->catalog->name, swaps, n, &err);
    /* Unless the COMMIT's outcome is unknown, no pointer names the new
     * files: remove them. */
    if (st != BASALT_OK && tables && st != BASALT_UNKNOWN_OUTCOME)
        discard(tables, n);
    if (st == BASALT_OK)
        basalt_catalog_rest_no_content(call->resp);
    else
        fail(call, st, &err);
    for (size_t i = 0; tables && i < n; i++) {
        basalt_free(tables[i].identifier);
        basalt_free(tables[i].ns);
        basalt_free(tables[i].name);
        change_reset(&tables[i].change);
        basalt_iceberg_table_free(tables[i].base);
        basalt_free(tables[i].location);
    }
    basalt_free(tables);
    basalt_free(swaps);
}
