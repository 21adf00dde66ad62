/* FROM: tables (CTEs, catalog tables), files and table functions, subqueries
 * and joins, into relations with their columns in scope. Inner and cross
 * joins are flattened into the relation list with their ON conditions added
 * to the conjuncts, so the planner orders them; outer, semi and anti joins
 * are planned where they stand. */
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "basalt/io.h"
#include "basalt/ipc.h"
#include "bind/bind_internal.h"

static basalt_status add_rel(struct bfrom *F, struct brel *rel, struct basalt_error *err)
{
    if (F->n == F->cap) {
        int cap = F->cap ? F->cap * 2 : 8;
        struct brel *r = basalt_realloc(F->rels, (size_t)cap * sizeof *r);
        if (r == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        F->rels = r;
        F->cap = cap;
    }
    F->rels[F->n++] = *rel;
    return BASALT_OK;
}

static basalt_status add_conj(struct bfrom *F, const struct basalt_sql_expr *e,
                              struct basalt_error *err)
{
    if (e == NULL)
        return BASALT_OK;
    if (e->kind == BASALT_SQL_EXPR_BINARY && e->u.binary.op == BASALT_SQL_BINARY_AND) {
        basalt_status st = add_conj(F, e->u.binary.left, err);
        return st == BASALT_OK ? add_conj(F, e->u.binary.right, err) : st;
    }
    if (F->nc == F->capc) {
        int cap = F->capc ? F->capc * 2 : 16;
        const struct basalt_sql_expr **c = basalt_realloc(F->conj, (size_t)cap * sizeof *c);
        if (c == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        F->conj = c;
        F->capc = cap;
    }
    F->conj[F->nc++] = e;
    return BASALT_OK;
}

basalt_status basalt_sql_conjuncts(struct bfrom *F, const struct basalt_sql_expr *e,
                                   struct basalt_error *err)
{
    return add_conj(F, e, err);
}

basalt_status basalt_sql_from_add(struct bfrom *F, struct brel *rel, struct basalt_error *err)
{
    return add_rel(F, rel, err);
}

void basalt_sql_from_reset(struct bfrom *F)
{
    basalt_free(F->rels);
    basalt_free(F->conj);
    memset(F, 0, sizeof *F);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct remote_glob {
    const char *pattern;
    struct basalt_string_list *out;
    size_t matched;
};

static basalt_status remote_match(void *ctx, const struct basalt_io_entry *e,
                                  struct basalt_error *err)
{
    struct remote_glob *g = ctx;
    if (e->is_prefix || fnmatch(g->pattern, e->uri, FNM_PATHNAME) != 0)
        return BASALT_OK;
    g->matched++;
    return basalt_string_list_add(g->out, e->uri, strlen(e->uri), err);
}

/* A glob over object storage: the objects under the pattern's part before
 * its first wildcard (one listing, in key order, which is byte order as
 * DuckDB sorts) whose URI the pattern matches, '*' not crossing a '/'. */
static basalt_status expand_remote(struct binder *B, const char *pattern, int32_t pos,
                                   struct basalt_string_list *out, struct basalt_error *err)
{
    size_t fixed = strcspn(pattern, "*?[");
    char *prefix = basalt_malloc(fixed + 1);
    if (prefix == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(prefix, pattern, fixed);
    prefix[fixed] = '\0';
    struct basalt_io_store *store;
    struct remote_glob g = {pattern, out, 0};
    basalt_status st = basalt_qctx_store(B->ctx, &store, err);
    if (st == BASALT_OK)
        st = basalt_io_list(store, prefix, false, remote_match, &g, err);
    basalt_free(prefix);
    if (st == BASALT_OK && g.matched == 0)
        st = basalt_sql_err(B, BASALT_NOT_FOUND, pos, err, "no files found that match '%s'",
                            pattern);
    return st;
}

/* Expands globs (a path without wildcards is itself); sorted, as DuckDB. */
static basalt_status expand(struct binder *B, const char *const *patterns, int n, int32_t pos,
                            struct basalt_string_list *out, struct basalt_error *err)
{
    for (int i = 0; i < n; i++) {
        if (strpbrk(patterns[i], "*?[") == NULL) {
            basalt_status st = basalt_string_list_add(out, patterns[i], strlen(patterns[i]), err);
            if (st != BASALT_OK)
                return st;
            continue;
        }
        if (basalt_io_uri_is_remote(patterns[i])) {
            basalt_status st = expand_remote(B, patterns[i], pos, out, err);
            if (st != BASALT_OK)
                return st;
            continue;
        }
        glob_t g;
        int rc = glob(patterns[i], 0, NULL, &g);
        if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
            globfree(&g);
            return basalt_sql_err(B, BASALT_NOT_FOUND, pos, err, "no files found that match '%s'",
                                  patterns[i]);
        }
        for (size_t k = 0; rc == 0 && k < g.gl_pathc; k++) {
            basalt_status st = basalt_string_list_add(out, g.gl_pathv[k], strlen(g.gl_pathv[k]), err);
            if (st != BASALT_OK) {
                globfree(&g);
                return st;
            }
        }
        globfree(&g);
        if (rc != 0)
            return basalt_sql_err(B, BASALT_IO, pos, err, "cannot list '%s'", patterns[i]);
    }
    return BASALT_OK;
}

static basalt_status keep_table(struct binder *B, struct basalt_iceberg_table *t,
                                struct basalt_error *err)
{
    if (B->n_tables == B->cap_tables) {
        int cap = B->cap_tables ? B->cap_tables * 2 : 4;
        struct basalt_iceberg_table **p = basalt_realloc(B->tables, (size_t)cap * sizeof *p);
        if (p == NULL) {
            basalt_iceberg_table_free(t);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        B->tables = p;
        B->cap_tables = cap;
    }
    B->tables[B->n_tables++] = t;
    return BASALT_OK;
}

struct scan_args {
    enum { SCAN_PARQUET, SCAN_CSV, SCAN_JSON, SCAN_IPC, SCAN_ICEBERG } kind;
    const char *paths[256];
    int n_paths;
    struct basalt_csv_read_options csv;
    struct basalt_json_read_options json;
    struct basalt_iceberg_scan_options iceberg;
};

static basalt_status open_scan(struct binder *B, struct scan_args *a, int32_t pos,
                               struct basalt_qplan **out, struct basalt_error *err)
{
    basalt_status st;
    if (a->kind == SCAN_ICEBERG) {
        struct basalt_iceberg_table *t;
        st = basalt_iceberg_table_load(a->paths[0], NULL, &t, err);
        if (st == BASALT_OK)
            st = keep_table(B, t, err);
        if (st == BASALT_OK)
            st = basalt_qplan_scan_iceberg(B->ctx, t, &a->iceberg, out, err);
        return st;
    }
    struct basalt_string_list files;
    memset(&files, 0, sizeof files);
    st = expand(B, a->paths, a->n_paths, pos, &files, err);
    if (st == BASALT_OK) {
        switch (a->kind) {
        case SCAN_PARQUET:
            st = basalt_qplan_scan_parquet(B->ctx, (const char *const *)files.items, files.n, out,
                                           err);
            break;
        case SCAN_CSV:
            if (files.n != 1)
                st = basalt_sql_err(B, BASALT_UNSUPPORTED, pos, err,
                                    "read_csv reads one file (%zu given)", files.n);
            else
                st = basalt_qplan_scan_csv(B->ctx, files.items[0], &a->csv, out, err);
            break;
        case SCAN_JSON:
            if (files.n != 1)
                st = basalt_sql_err(B, BASALT_UNSUPPORTED, pos, err,
                                    "read_json reads one file (%zu given)", files.n);
            else
                st = basalt_qplan_scan_json(B->ctx, files.items[0], &a->json, out, err);
            break;
        default:
            if (files.n != 1)
                st = basalt_sql_err(B, BASALT_UNSUPPORTED, pos, err,
                                    "read_ipc reads one file (%zu given)", files.n);
            else
                st = basalt_qplan_scan_ipc(B->ctx, files.items[0], out, err);
            break;
        }
    }
    basalt_string_list_reset(&files);
    return st;
}

/* What a bare path in FROM is: by its extension, or an Iceberg table's
 * directory or metadata file. */
static basalt_status kind_of_path(struct binder *B, const char *p, int32_t pos,
                                  struct scan_args *a, struct basalt_error *err)
{
    if (ends_with(p, ".parquet") || ends_with(p, ".parq"))
        a->kind = SCAN_PARQUET;
    else if (ends_with(p, ".csv") || ends_with(p, ".tsv") || ends_with(p, ".txt") ||
             ends_with(p, ".csv.gz"))
        a->kind = SCAN_CSV;
    else if (ends_with(p, ".arrow") || ends_with(p, ".feather") || ends_with(p, ".ipc") ||
             ends_with(p, ".arrows"))
        a->kind = SCAN_IPC;
    else if (ends_with(p, ".metadata.json") || is_dir(p))
        a->kind = SCAN_ICEBERG;
    else if (ends_with(p, ".json") || ends_with(p, ".jsonl") || ends_with(p, ".ndjson"))
        a->kind = SCAN_JSON;
    else
        return basalt_sql_err(B, BASALT_INVALID_ARG, pos, err,
                              "cannot tell the format of '%s' from its name (use read_parquet, "
                              "read_csv, read_json, read_ipc or iceberg_scan)",
                              p);
    return BASALT_OK;
}

static basalt_status string_arg(struct binder *B, const struct basalt_sql_expr *e,
                                const char *fn, const char *what, const char **out,
                                struct basalt_error *err)
{
    if (e->kind != BASALT_SQL_EXPR_STRING)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "%s: %s must be a string", fn,
                              what);
    *out = e->u.lit.text;
    return BASALT_OK;
}

/* A list of strings (`names => ['a', 'b']`) into the binder's arena. */
static basalt_status strings_arg(struct binder *B, const struct basalt_sql_expr *e,
                                 const char *fn, const char *what, const char ***out, size_t *n,
                                 struct basalt_error *err)
{
    if (e->kind != BASALT_SQL_EXPR_LIST)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err,
                              "%s: %s must be a list of strings ([...])", fn, what);
    int k = e->u.list.n_items;
    const char **v = basalt_arena_alloc(&B->arena, (size_t)(k + 1) * sizeof *v, _Alignof(char *));
    if (v == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < k; i++) {
        basalt_status st = string_arg(B, e->u.list.items[i], fn, what, &v[i], err);
        if (st != BASALT_OK)
            return st;
    }
    *out = v;
    *n = (size_t)k;
    return BASALT_OK;
}

/* read_csv's `types => ['BIGINT', 'VARCHAR', ...]`: the columns' types by
 * position, in the CSV reader's names (DuckDB's SQL names among them). */
static basalt_status csv_types_arg(struct binder *B, const struct basalt_sql_expr *e,
                                   const char *fn, const char *name, struct scan_args *a,
                                   struct basalt_error *err)
{
    const char **text = NULL;
    size_t n = 0;
    basalt_status st = strings_arg(B, e, fn, name, &text, &n, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_csv_column_type *t =
        basalt_arena_alloc(&B->arena, (n + 1) * sizeof *t, _Alignof(struct basalt_csv_column_type));
    if (t == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        struct basalt_error why;
        basalt_error_init(&why);
        if (basalt_csv_type_parse(text[i], strlen(text[i]), &t[i], &why) != BASALT_OK)
            return basalt_sql_err(B, BASALT_INVALID_ARG, e->u.list.items[i]->pos, err,
                                  "%s: %s", fn, why.message);
    }
    a->csv.types = t;
    a->csv.n_types = n;
    return BASALT_OK;
}

static basalt_status int_arg(struct binder *B, const struct basalt_sql_expr *e, const char *fn,
                             const char *what, int64_t *out, struct basalt_error *err)
{
    if (e->kind != BASALT_SQL_EXPR_INTEGER || !e->u.lit.fits)
        return basalt_sql_err(B, BASALT_INVALID_ARG, e->pos, err, "%s: %s must be an integer",
                              fn, what);
    *out = e->u.lit.i64;
    return BASALT_OK;
}

static bool bool_arg(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_BOOL ? e->u.lit.b
                                           : (e->kind == BASALT_SQL_EXPR_INTEGER && e->u.lit.i64 != 0);
}

/* An option of read_json: format (newline_delimited; auto when the file is
 * one), sample_size, maximum_object_size, maximum_depth. (columns = {...}
 * waits for struct literals in the parser.) */
static basalt_status json_option(struct binder *B, const char *fn, const char *name,
                                 const struct basalt_sql_expr *v, struct scan_args *a,
                                 struct basalt_error *err)
{
    const char *s = "";
    int64_t n = 0;
    basalt_status st = BASALT_OK;
    if (strcmp(name, "format") == 0) {
        st = string_arg(B, v, fn, name, &s, err);
        if (st == BASALT_OK && strcmp(s, "newline_delimited") != 0 && strcmp(s, "nd") != 0 &&
            strcmp(s, "auto") != 0)
            st = basalt_sql_err(B, BASALT_UNSUPPORTED, v->pos, err,
                                "%s: format '%s' is not supported (only 'newline_delimited')",
                                fn, s);
    } else if (strcmp(name, "sample_size") == 0) {
        st = int_arg(B, v, fn, name, &n, err);
        a->json.sample_rows = n;
    } else if (strcmp(name, "maximum_object_size") == 0) {
        st = int_arg(B, v, fn, name, &n, err);
        if (st == BASALT_OK && n < 1)
            st = basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err, "%s: %s must be positive",
                                fn, name);
        a->json.max_record_size = (size_t)n;
    } else if (strcmp(name, "maximum_depth") == 0) {
        st = int_arg(B, v, fn, name, &n, err);
        if (st == BASALT_OK && (n < 1 || n > 100000))
            st = basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err, "%s: %s out of range", fn,
                                name);
        a->json.max_depth = (int32_t)n;
    } else if (strcmp(name, "auto_detect") == 0 || strcmp(name, "records") == 0) {
        /* the types are always inferred; records are always objects */
    } else {
        st = basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err, "%s: unknown option \"%s\"", fn,
                            name);
    }
    return st;
}

static basalt_status function_args(struct binder *B, const struct basalt_sql_call *c, int32_t pos,
                                   struct scan_args *a, struct basalt_error *err)
{
    const char *fn = c->name.name;
    if (strcmp(fn, "read_parquet") == 0 || strcmp(fn, "parquet_scan") == 0)
        a->kind = SCAN_PARQUET;
    else if (strcmp(fn, "read_csv") == 0 || strcmp(fn, "read_csv_auto") == 0)
        a->kind = SCAN_CSV;
    else if (strcmp(fn, "read_ipc") == 0 || strcmp(fn, "read_arrow") == 0)
        a->kind = SCAN_IPC;
    else if (strcmp(fn, "iceberg_scan") == 0)
        a->kind = SCAN_ICEBERG;
    else if (strcmp(fn, "read_json") == 0 || strcmp(fn, "read_json_auto") == 0 ||
             strcmp(fn, "read_ndjson") == 0 || strcmp(fn, "read_ndjson_auto") == 0)
        a->kind = SCAN_JSON;
    else
        return basalt_sql_err(B, BASALT_NOT_FOUND, pos, err, "table function \"%s\" not found",
                              fn);
    if (c->n_args == 0 || (c->arg_names != NULL && c->arg_names[0] != NULL))
        return basalt_sql_err(B, BASALT_INVALID_ARG, pos, err, "%s: the first argument is the file",
                              fn);
    const struct basalt_sql_expr *first = c->args[0];
    basalt_status st = BASALT_OK;
    if (first->kind == BASALT_SQL_EXPR_LIST) {
        for (int i = 0; i < first->u.list.n_items && st == BASALT_OK; i++) {
            if (a->n_paths == 256)
                return basalt_sql_err(B, BASALT_LIMIT, pos, err, "%s: more than 256 files", fn);
            st = string_arg(B, first->u.list.items[i], fn, "a file", &a->paths[a->n_paths++], err);
        }
    } else {
        st = string_arg(B, first, fn, "the file", &a->paths[a->n_paths++], err);
    }
    for (int i = 1; i < c->n_args && st == BASALT_OK; i++) {
        const char *name = c->arg_names ? c->arg_names[i] : NULL;
        const struct basalt_sql_expr *v = c->args[i];
        if (name == NULL)
            return basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err,
                                  "%s: only the first argument is positional", fn);
        const char *s = "";
        if (a->kind == SCAN_CSV && (strcmp(name, "delim") == 0 || strcmp(name, "sep") == 0 ||
                                    strcmp(name, "delimiter") == 0)) {
            st = string_arg(B, v, fn, name, &s, err);
            if (st == BASALT_OK)
                a->csv.delimiter = strcmp(s, "\\t") == 0 ? '\t' : s[0];
        } else if (a->kind == SCAN_CSV && strcmp(name, "quote") == 0) {
            st = string_arg(B, v, fn, name, &s, err);
            if (st == BASALT_OK)
                a->csv.quote = s[0];
        } else if (a->kind == SCAN_CSV && strcmp(name, "header") == 0) {
            a->csv.header = bool_arg(v) ? BASALT_CSV_HEADER_YES : BASALT_CSV_HEADER_NO;
        } else if (a->kind == SCAN_CSV && strcmp(name, "skip") == 0) {
            st = int_arg(B, v, fn, name, &a->csv.skip_rows, err);
        } else if (a->kind == SCAN_CSV && (strcmp(name, "types") == 0 ||
                                           strcmp(name, "dtypes") == 0 ||
                                           strcmp(name, "column_types") == 0)) {
            st = csv_types_arg(B, v, fn, name, a, err);
        } else if (a->kind == SCAN_CSV && (strcmp(name, "names") == 0 ||
                                           strcmp(name, "column_names") == 0)) {
            const char **names = NULL;
            st = strings_arg(B, v, fn, name, &names, &a->csv.n_names, err);
            if (st == BASALT_OK)
                a->csv.names = names;
        } else if (a->kind == SCAN_JSON) {
            st = json_option(B, fn, name, v, a, err);
        } else if (a->kind == SCAN_ICEBERG && (strcmp(name, "snapshot_from_id") == 0 ||
                                               strcmp(name, "snapshot_id") == 0)) {
            st = int_arg(B, v, fn, name, &a->iceberg.snapshot_id, err);
            a->iceberg.has_snapshot_id = true;
        } else if (a->kind == SCAN_ICEBERG && strcmp(name, "snapshot_from_timestamp") == 0) {
            st = int_arg(B, v, fn, name, &a->iceberg.as_of_ms, err);
            a->iceberg.has_as_of = true;
        } else if (a->kind == SCAN_ICEBERG && strcmp(name, "version") == 0) {
            /* version => N picks metadata file vN: resolved to a path. */
            int64_t version = 0;
            st = int_arg(B, v, fn, name, &version, err);
            if (st == BASALT_OK) {
                char *p = basalt_arena_alloc(&B->arena, strlen(a->paths[0]) + 64, 1);
                if (p == NULL)
                    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                sprintf(p, "%s/metadata/v%lld.metadata.json", a->paths[0], (long long)version);
                a->paths[0] = p;
            }
        } else if (a->kind == SCAN_ICEBERG && strcmp(name, "allow_moved_paths") == 0) {
            /* tables are always read relative to their directory */
        } else {
            return basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err, "%s: unknown option \"%s\"",
                                  fn, name);
        }
    }
    return st;
}

/* Adds rel's columns to scope under `alias`, renamed by column aliases. */
static basalt_status scope_rel(struct binder *B, const struct basalt_sql_from *f, const char *alias,
                               struct brel *rel, const char *const *names, int rel_index,
                               struct bscope *scope, struct basalt_error *err)
{
    if (f->n_column_aliases > rel->n)
        return basalt_sql_err(B, BASALT_INVALID_ARG, f->pos, err,
                              "%d column aliases for %d columns", (int)f->n_column_aliases, rel->n);
    if (f->exact_column_aliases && f->n_column_aliases != rel->n)
        return basalt_sql_err(B, BASALT_INVALID_ARG, f->pos, err,
                              "the subquery returns %d columns, expected %d", rel->n,
                              (int)f->n_column_aliases);
    const struct ArrowSchema *s = basalt_qplan_schema(rel->node);
    for (int i = 0; i < rel->n; i++) {
        const char *name = i < f->n_column_aliases ? f->column_aliases[i].name
                                                   : (names ? names[i] : s->children[i]->name);
        /* A scan's own names are copied: the optimizer replaces its schema
         * when it prunes columns, and the names outlive that. */
        if (i >= f->n_column_aliases && names == NULL && name != NULL &&
            (name = basalt_arena_strndup(&B->arena, name, strlen(name))) == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_status st = basalt_sql_scope_add(scope, alias, name, rel->gids[i], rel_index, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static const char *stem(struct binder *B, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    char *p = basalt_arena_alloc(&B->arena, n + 1, 1);
    if (p) {
        memcpy(p, base, n);
        p[n] = '\0';
    }
    return p;
}

static const struct bmem_table *registered(struct binder *B, const struct basalt_sql_name *n)
{
    if (n->n_parts != 1)
        return NULL;
    for (int i = 0; i < B->session->n_tables; i++)
        if (strcasecmp(B->session->tables[i].name, n->parts[0].name) == 0)
            return &B->session->tables[i];
    return NULL;
}

/* A registered table as in-memory batches: views of its arrays, so the
 * table stays for later queries. */
static basalt_status mem_scan(struct binder *B, const struct bmem_table *t, struct basalt_qplan **out,
                              struct basalt_error *err)
{
    struct basalt_arrow_batches views;
    basalt_arrow_batches_init(&views);
    basalt_status st = basalt_arrow_schema_copy(&t->batches.schema, &views.schema, err);
    for (int64_t i = 0; i < t->batches.n && st == BASALT_OK; i++) {
        struct ArrowArray v;
        st = basalt_arrow_array_view(&t->batches.arrays[i], &v, err);
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(&views, &v, err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_values(B->ctx, &views, out, err);
    basalt_arrow_batches_reset(&views);
    return st;
}

static basalt_status bind_leaf(struct binder *B, const struct basalt_sql_from *f,
                               struct bscope *scope, struct bfrom *F, struct basalt_error *err)
{
    struct basalt_qplan *node = NULL;
    const char **names = NULL;
    const char *alias = f->alias.name;
    struct brel rel;
    basalt_status st = BASALT_OK;
    struct scan_args a;
    memset(&a, 0, sizeof a);
    basalt_csv_read_options_init(&a.csv);
    basalt_json_read_options_init(&a.json);
    basalt_iceberg_scan_options_init(&a.iceberg);
    switch (f->kind) {
    case BASALT_SQL_FROM_TABLE: {
        const struct basalt_sql_name *n = &f->u.table.name;
        int cte = basalt_sql_cte_find(B, n);
        if (alias == NULL)
            alias = n->parts[n->n_parts - 1].name;
        if (cte >= 0) {
            st = basalt_sql_cte_bind(B, cte, &rel, &names, err);
            if (st == BASALT_OK)
                goto scoped;
            return st;
        }
        const struct bmem_table *mem = registered(B, n);
        if (mem != NULL) {
            st = mem_scan(B, mem, &node, err);
            break;
        }
        if (B->session->catalog == NULL)
            return basalt_sql_err(B, BASALT_NOT_FOUND, f->pos, err,
                                  "table \"%s\" not found (no catalog is open; files are read "
                                  "with FROM 'file.parquet')",
                                  n->parts[n->n_parts - 1].name);
        char ident[512] = "";
        for (int i = 0; i < n->n_parts; i++) {
            strncat(ident, i ? "." : "", sizeof ident - strlen(ident) - 1);
            strncat(ident, n->parts[i].name, sizeof ident - strlen(ident) - 1);
        }
        struct basalt_iceberg_table *t;
        st = basalt_catalog_load_table(B->session->catalog, ident, &t, err);
        if (st != BASALT_OK)
            return basalt_sql_err(B, st, f->pos, err, "%s", err ? err->message : "");
        st = keep_table(B, t, err);
        if (st == BASALT_OK && f->u.table.travel != BASALT_SQL_TRAVEL_NONE) {
            const struct basalt_sql_expr *v = f->u.table.as_of;
            if (f->u.table.travel == BASALT_SQL_TRAVEL_VERSION) {
                st = int_arg(B, v, "FOR VERSION AS OF", "the snapshot id", &a.iceberg.snapshot_id, err);
                a.iceberg.has_snapshot_id = true;
            } else if (v->kind == BASALT_SQL_EXPR_INTEGER) {
                st = int_arg(B, v, "FOR TIMESTAMP AS OF", "the time", &a.iceberg.as_of_ms, err);
                a.iceberg.has_as_of = true;
            } else {
                const char *text = v->kind == BASALT_SQL_EXPR_STRING ? v->u.lit.text
                                   : v->kind == BASALT_SQL_EXPR_TYPED_LITERAL ? v->u.typed.text
                                                                              : NULL;
                int64_t us;
                if (text == NULL || !basalt_sql_parse_timestamp_us(text, &us))
                    return basalt_sql_err(B, BASALT_INVALID_ARG, v->pos, err,
                                          "FOR TIMESTAMP AS OF takes a timestamp");
                a.iceberg.as_of_ms = us / 1000;
                a.iceberg.has_as_of = true;
            }
        }
        if (st == BASALT_OK)
            st = basalt_qplan_scan_iceberg(B->ctx, t, &a.iceberg, &node, err);
        break;
    }
    case BASALT_SQL_FROM_FILE:
        if (alias == NULL)
            alias = stem(B, f->u.file);
        a.paths[a.n_paths++] = f->u.file;
        st = kind_of_path(B, f->u.file, f->pos, &a, err);
        if (st == BASALT_OK)
            st = open_scan(B, &a, f->pos, &node, err);
        break;
    case BASALT_SQL_FROM_FUNCTION:
        if (basalt_sql_is_series(f->u.call.name.name)) {
            if (alias == NULL)
                alias = f->u.call.name.name;
            st = basalt_sql_bind_series(B, &f->u.call, f->pos, &node, err);
            break;
        }
        st = function_args(B, &f->u.call, f->pos, &a, err);
        if (alias == NULL)
            alias = a.n_paths > 0 ? stem(B, a.paths[0]) : f->u.call.name.name;
        if (st == BASALT_OK)
            st = open_scan(B, &a, f->pos, &node, err);
        break;
    case BASALT_SQL_FROM_SUBQUERY:
        /* an unnamed subquery gets a name of its own, so that USING and
         * NATURAL can write `a.k = b.k` between two of them */
        if (alias == NULL) {
            char name[32];
            snprintf(name, sizeof name, "unnamed_subquery%d", B->n_unnamed++);
            alias = basalt_arena_strndup(&B->arena, name, strlen(name));
            if (alias == NULL)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        if (f->lateral) {
            bool done;
            st = basalt_sql_bind_lateral(B, f, alias, scope, F, &done, err);
            if (st != BASALT_OK || done)
                return st;
        }
        st = basalt_sql_bind_query(B, f->u.subquery, &rel, &names, err);
        if (st == BASALT_NOT_FOUND && !f->lateral && scope->n > 0) {
            /* DuckDB reads a subquery that names the FROM items before it
             * as LATERAL without the word; its own error stands if that
             * fails too */
            struct basalt_error again;
            basalt_error_init(&again);
            bool done;
            if (basalt_sql_bind_lateral(B, f, alias, scope, F, &done, &again) == BASALT_OK && done)
                return BASALT_OK;
        }
        if (st == BASALT_OK)
            goto scoped;
        return st;
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "not a leaf");
    }
    if (st != BASALT_OK)
        return st;
    st = basalt_sql_rel_new(B, node, &rel, err);
    if (st != BASALT_OK)
        return st;
    rel.rows = (double)basalt_qplan_estimated_rows(node);
    rel.table_rows = true;
    basalt_sql_note_ndv(B, &rel);
scoped:
    rel.leaf = f->kind == BASALT_SQL_FROM_SUBQUERY ? NULL : f;
    rel.left_on = NULL; /* joined as any relation (bind_lateral.c sets them) */
    rel.n_left_on = 0;
    rel.empty = NULL;
    rel.n_empty = 0;
    st = scope_rel(B, f, alias, &rel, names, F->n, scope, err);
    if (st == BASALT_OK)
        st = add_rel(F, &rel, err);
    return st;
}

static enum basalt_qplan_join_type join_type(enum basalt_sql_join_kind k)
{
    switch (k) {
    case BASALT_SQL_JOIN_LEFT: return BASALT_QPLAN_JOIN_LEFT;
    case BASALT_SQL_JOIN_RIGHT: return BASALT_QPLAN_JOIN_RIGHT;
    case BASALT_SQL_JOIN_FULL: return BASALT_QPLAN_JOIN_FULL;
    case BASALT_SQL_JOIN_SEMI: return BASALT_QPLAN_JOIN_SEMI;
    case BASALT_SQL_JOIN_ANTI: return BASALT_QPLAN_JOIN_ANTI;
    case BASALT_SQL_JOIN_CROSS: return BASALT_QPLAN_JOIN_CROSS;
    default: return BASALT_QPLAN_JOIN_INNER;
    }
}

/* USING (a, b): left.a = right.a ...; afterwards the name means the left
 * side's column. NATURAL: USING every name the two sides have in common
 * (visible ones, in the left side's order); none makes a cross join. */
/* The pairs of columns USING joined: scope entries of the left and the
 * right side's column of each name. */
struct using_pairs {
    int *left, *right;
    int n;
};

static basalt_status using_conj(struct binder *B, const struct basalt_sql_from *f,
                                struct bscope *scope, int left_from, int right_from,
                                struct bfrom *F, struct using_pairs *pairs,
                                struct basalt_error *err)
{
    int n = f->u.join.natural ? scope->n : f->u.join.n_using;
    pairs->left = basalt_arena_alloc(&B->arena, sizeof *pairs->left * (size_t)(n + 1), 8);
    pairs->right = basalt_arena_alloc(&B->arena, sizeof *pairs->right * (size_t)(n + 1), 8);
    pairs->n = 0;
    if (pairs->left == NULL || pairs->right == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int u = 0; u < n; u++) {
        const char *name;
        int32_t pos;
        if (f->u.join.natural) {
            const struct bcol *c = &scope->cols[u];
            if (c->hidden || c->rel < left_from || c->rel >= right_from)
                continue;
            name = c->name;
            pos = f->pos;
        } else {
            name = f->u.join.using_[u].name;
            pos = f->u.join.using_[u].pos;
        }
        int li = -1, ri = -1;
        for (int i = 0; i < scope->n; i++) {
            if (strcasecmp(scope->cols[i].name, name) != 0 || scope->cols[i].hidden)
                continue;
            if (scope->cols[i].rel >= left_from && scope->cols[i].rel < right_from && li < 0)
                li = i;
            else if (scope->cols[i].rel >= right_from && ri < 0)
                ri = i;
        }
        if (f->u.join.natural && ri < 0)
            continue; /* on the left only */
        if (li < 0 || ri < 0)
            return basalt_sql_err(B, BASALT_NOT_FOUND, pos, err,
                                  "column \"%s\" of USING is not on both sides", name);
        /* A synthetic `l.name = r.name` over the two columns' tables. */
        struct basalt_sql_expr *eq = basalt_sql_ast_binary(
            B, BASALT_SQL_BINARY_EQ,
            basalt_sql_ast_column(B, scope->cols[li].table, scope->cols[li].name, pos),
            basalt_sql_ast_column(B, scope->cols[ri].table, scope->cols[ri].name, pos));
        if (eq == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_status st = add_conj(F, eq, err);
        if (st != BASALT_OK)
            return st;
        /* unqualified, the name means the left side's column */
        scope->cols[ri].hidden = true;
        pairs->left[pairs->n] = li;
        pairs->right[pairs->n++] = ri;
    }
    if (f->u.join.natural && pairs->n == 0)
        return basalt_sql_err(B, BASALT_INVALID_ARG, f->pos, err,
                              "NATURAL JOIN: no columns found to join on (CROSS JOIN makes a "
                              "cross product)");
    return BASALT_OK;
}

/* After a RIGHT or FULL join USING (x), an unqualified x is COALESCE(l.x,
 * r.x), as in DuckDB: a row only the right side has keeps its key. The
 * join's relation gains those columns; each name's left scope entry stays
 * for `l.x` and `l.*` (qualified only), and an entry without a table in
 * front of it takes the unqualified name and the place in `*`. */
static basalt_status merged_using(struct binder *B, struct bscope *scope,
                                  const struct using_pairs *pairs, struct brel *rel,
                                  struct basalt_error *err)
{
    int n = rel->n, m = pairs->n;
    struct basalt_qexpr_builder *b;
    basalt_status st = basalt_qplan_builder(B->ctx, rel->node, &b, err);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)(n + m), sizeof *exprs);
    const char **names = basalt_calloc((size_t)(n + m), sizeof *names);
    int32_t *gids = basalt_arena_alloc(&B->arena, sizeof *gids * (size_t)(n + m), 8);
    if (st == BASALT_OK && (exprs == NULL || names == NULL || gids == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const struct ArrowSchema *in = basalt_qplan_schema(rel->node);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = basalt_qexpr_column(b, i, &exprs[i], err);
        names[i] = in->children[i]->name; /* the join's columns pass through as they are */
        gids[i] = rel->gids[i];
    }
    for (int k = 0; k < m && st == BASALT_OK; k++) {
        struct basalt_qexpr *both[2] = {NULL, NULL};
        for (int i = 0; i < n; i++) {
            if (rel->gids[i] == scope->cols[pairs->left[k]].gid)
                both[0] = exprs[i];
            if (rel->gids[i] == scope->cols[pairs->right[k]].gid)
                both[1] = exprs[i];
        }
        if (both[0] == NULL || both[1] == NULL)
            st = basalt_error_set(err, BASALT_INTERNAL, "USING column not in the join");
        else
            st = basalt_qexpr_coalesce(b, both, 2, &exprs[n + k], err);
        names[n + k] = scope->cols[pairs->left[k]].name;
        gids[n + k] = basalt_sql_gid(B);
    }
    struct basalt_qplan *p = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, rel->node, exprs, names, n + m, &p, err);
    basalt_free(exprs);
    basalt_free(names);
    if (st != BASALT_OK)
        return st;
    rel->node = p;
    rel->gids = gids;
    rel->n = n + m;
    /* the new entries, each in front of its left column, the furthest
     * first so that the positions still to come hold */
    bool *done = basalt_calloc((size_t)m, sizeof *done);
    if (done == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int left = 0; left < m && st == BASALT_OK; left++) {
        int k = -1;
        for (int j = 0; j < m; j++)
            if (!done[j] && (k < 0 || pairs->left[j] > pairs->left[k]))
                k = j;
        done[k] = true;
        int at = pairs->left[k];
        struct bcol merged = scope->cols[at];
        st = basalt_sql_scope_add(scope, NULL, merged.name, gids[n + k], merged.rel, err);
        if (st != BASALT_OK)
            break;
        struct bcol added = scope->cols[scope->n - 1];
        memmove(&scope->cols[at + 1], &scope->cols[at], sizeof *scope->cols * (size_t)(scope->n - 1 - at));
        scope->cols[at] = added;
        scope->cols[at + 1].hidden = true;
    }
    basalt_free(done);
    return st;
}

basalt_status basalt_sql_bind_from(struct binder *B, const struct basalt_sql_from *f,
                                   struct bscope *scope, struct bfrom *F, struct basalt_error *err)
{
    if (f->kind != BASALT_SQL_FROM_JOIN)
        return bind_leaf(B, f, scope, F, err);
    enum basalt_sql_join_kind k = f->u.join.kind;
    if (k == BASALT_SQL_JOIN_CROSS || k == BASALT_SQL_JOIN_INNER) {
        int left_from = F->n;
        basalt_status st = basalt_sql_bind_from(B, f->u.join.left, scope, F, err);
        int right_from = F->n;
        if (st == BASALT_OK)
            st = basalt_sql_bind_from(B, f->u.join.right, scope, F, err);
        if (st == BASALT_OK)
            st = add_conj(F, f->u.join.on, err);
        struct using_pairs pairs;
        if (st == BASALT_OK && (f->u.join.n_using > 0 || f->u.join.natural))
            st = using_conj(B, f, scope, left_from, right_from, F, &pairs, err);
        return st;
    }
    /* Outer, semi and anti joins: each side planned on its own. */
    const struct basalt_sql_from *r = f->u.join.right;
    if (r->kind == BASALT_SQL_FROM_SUBQUERY && r->lateral && k != BASALT_SQL_JOIN_LEFT)
        return basalt_sql_err(B, BASALT_UNSUPPORTED, r->pos, err,
                              "LATERAL is supported in inner, cross and LEFT joins only");
    /* The conditions of a side that read outside it (a LATERAL's
     * equalities with the items before it): the left side's go to the
     * enclosing FROM, the right side's into the ON. */
    struct bfrom across[2];
    memset(across, 0, sizeof across);
    struct bfrom sides[2];
    memset(sides, 0, sizeof sides);
    struct brel rel[2];
    int first = F->n;
    basalt_status st = BASALT_OK;
    int scope_mark[2];
    for (int s = 0; s < 2 && st == BASALT_OK; s++) {
        /* relation indices continue from F so the scope stays consistent */
        sides[s].n = 0;
        scope_mark[s] = scope->n;
        struct bfrom tmp;
        memset(&tmp, 0, sizeof tmp);
        /* pad with placeholders so indices are unique across the FROM */
        for (int i = 0; i < F->n + (s == 1 ? sides[0].n : 0) && st == BASALT_OK; i++) {
            struct brel dummy;
            memset(&dummy, 0, sizeof dummy);
            st = add_rel(&tmp, &dummy, err);
        }
        int from = tmp.n;
        if (st == BASALT_OK)
            st = basalt_sql_bind_from(B, s == 0 ? f->u.join.left : f->u.join.right, scope, &tmp, err);
        if (st == BASALT_OK) {
            /* plan this side alone: its own relations and ON conditions */
            struct brel *own = tmp.rels + from;
            int n_own = tmp.n - from;
            uint64_t side_mask = 0; /* relations as basalt_sql_refs numbers them */
            for (int i = from; i < tmp.n; i++)
                side_mask |= (uint64_t)1 << (i & 63);
            int kept = 0;
            for (int c = 0; c < tmp.nc && st == BASALT_OK; c++) {
                if ((basalt_sql_refs(B, scope, tmp.conj[c]) & ~side_mask) != 0)
                    st = add_conj(&across[s], tmp.conj[c], err);
                else
                    tmp.conj[kept++] = tmp.conj[c];
            }
            tmp.nc = kept;
            /* relabel the side's relations 0..n_own-1 for the planner */
            for (int i = scope_mark[s]; i < scope->n; i++)
                scope->cols[i].rel -= from;
            if (st == BASALT_OK)
                st = basalt_sql_plan_joins(B, scope, own, n_own, tmp.conj, tmp.nc, &rel[s], err);
            for (int i = scope_mark[s]; i < scope->n; i++)
                scope->cols[i].rel = first + s;
            sides[s].n = n_own;
        }
        basalt_sql_from_reset(&tmp);
    }
    struct bfrom on;
    memset(&on, 0, sizeof on);
    if (st == BASALT_OK)
        st = add_conj(&on, f->u.join.on, err);
    for (int c = 0; c < across[1].nc && st == BASALT_OK; c++)
        st = add_conj(&on, across[1].conj[c], err);
    for (int c = 0; c < across[0].nc && st == BASALT_OK; c++)
        st = add_conj(F, across[0].conj[c], err);
    basalt_sql_from_reset(&across[0]);
    basalt_sql_from_reset(&across[1]);
    if (st != BASALT_OK) {
        basalt_sql_from_reset(&on);
        return st;
    }
    struct using_pairs pairs = {NULL, NULL, 0};
    if (st == BASALT_OK && (f->u.join.n_using > 0 || f->u.join.natural))
        st = using_conj(B, f, scope, first, first + 1, &on, &pairs, err);
    bool *used = basalt_calloc((size_t)on.nc + 1, sizeof *used);
    if (st == BASALT_OK && used == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    enum basalt_qplan_join_type t = join_type(k);
    /* RIGHT joins are LEFT joins with the sides swapped. */
    struct brel out;
    if (st == BASALT_OK)
        st = basalt_sql_join_pair(B, scope, t, &rel[0], (uint64_t)1 << first, &rel[1],
                                  (uint64_t)1 << (first + 1), on.conj, on.nc, used, &out, err);
    basalt_free(used);
    basalt_sql_from_reset(&on);
    /* LEFT JOIN LATERAL over an aggregate without GROUP BY: its values
     * over no rows for the rows it has no key for */
    if (st == BASALT_OK && t == BASALT_QPLAN_JOIN_LEFT)
        st = basalt_sql_empty_rows(B, &out, rel[1].key_gid, rel[1].empty, rel[1].n_empty, err);
    if (st != BASALT_OK)
        return st;
    if (pairs.n > 0 && (k == BASALT_SQL_JOIN_RIGHT || k == BASALT_SQL_JOIN_FULL))
        st = merged_using(B, scope, &pairs, &out, err);
    if (st != BASALT_OK)
        return st;
    /* The join is one relation of the FROM from now on. */
    for (int i = scope_mark[0]; i < scope->n; i++)
        scope->cols[i].rel = F->n;
    if (t == BASALT_QPLAN_JOIN_SEMI || t == BASALT_QPLAN_JOIN_ANTI)
        for (int i = scope_mark[1]; i < scope->n; i++)
            scope->cols[i].name = "";
    return add_rel(F, &out, err);
}
