/* basalt catalog: naming tables, and committing changes to them.
 *
 * One interface over every kind of catalog, chosen by URI:
 *   sqlite:PATH (also sqlite:///PATH, jdbc:sqlite:PATH)   embedded SQLite
 *   postgresql://... (also postgres://, jdbc:postgresql://)  PostgreSQL
 *   a directory or file://DIR                             file system
 *   rest+http://HOST:PORT[/PATH], rest+https://...        Iceberg REST catalog
 *   glue://[REGION]                                       AWS Glue Data Catalog
 *   s3tables://arn:aws:s3tables:REGION:ACCOUNT:bucket/NAME  Amazon S3 Tables
 * The SQL kinds keep the tables of PyIceberg's SqlCatalog and the Java
 * JdbcCatalog, so those read and write the same catalog. Table changes are
 * committed with requirements and updates (iceberg_commit.h); every kind
 * provides a struct basalt_iceberg_committer for the table format's
 * operations (appends, deletes, ...). */
#ifndef BASALT_CATALOG_H
#define BASALT_CATALOG_H

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_view.h"
#include "basalt/iceberg_write.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------- naming */

/* The catalog_name used when none is given (PyIceberg's and the Java
 * catalogs' usual name). */
#define BASALT_CATALOG_DEFAULT_NAME "default"

/* A catalog. Used by one thread at a time; tables loaded from it are
 * independent of it and may outlive it.
 *
 * SQL catalog ("sqlite:PATH", also "sqlite:///PATH" as SQLAlchemy writes it
 * -- "sqlite:////abs" is "/abs" -- and "jdbc:sqlite:PATH"). The two tables
 * are created exactly as PyIceberg's SqlCatalog creates them (the SQLAlchemy
 * models of pyiceberg/catalog/sql.py):
 *
 *   CREATE TABLE iceberg_tables (
 *       catalog_name VARCHAR(255) NOT NULL,
 *       table_namespace VARCHAR(255) NOT NULL,
 *       table_name VARCHAR(255) NOT NULL,
 *       metadata_location VARCHAR(1000),
 *       previous_metadata_location VARCHAR(1000),
 *       PRIMARY KEY (catalog_name, table_namespace, table_name))
 *   CREATE TABLE iceberg_namespace_properties (
 *       catalog_name VARCHAR(255) NOT NULL,
 *       namespace VARCHAR(255) NOT NULL,
 *       property_key VARCHAR(255) NOT NULL,
 *       property_value VARCHAR(1000) NOT NULL,
 *       PRIMARY KEY (catalog_name, namespace, property_key))
 *
 * This is also the Java JdbcCatalog's "V0" schema (the Java catalog's default;
 * it declares the two property columns nullable, which changes nothing for
 * rows either writes). No `iceberg_type` column is created: current PyIceberg
 * neither creates nor reads it, and the Java catalog only adds it (ALTER
 * TABLE ... ADD COLUMN iceberg_type VARCHAR(5)) when asked for its "V1"
 * schema with views. A catalog that has the column is read correctly: rows
 * whose iceberg_type is 'VIEW' are not tables and are skipped, and register
 * writes 'TABLE' into it.
 * Namespaces are dot-joined strings ("a.b"); a namespace exists when a table
 * or a property row names it or a namespace under it. Every statement is
 * prepared with bound parameters; the connection waits up to 5 s on a
 * locked database.
 *
 * Filesystem catalog (any other URI: a directory, or "file://" + directory):
 * <warehouse>/<ns>/<table> with namespace levels as nested directories; a
 * directory is a table when it holds metadata/ with a metadata file. A
 * namespace directory named "<ns>.db" (Hive/PyIceberg style) is listed and
 * found as "<ns>". Tables are registered by placing them there: register and
 * drop are UNSUPPORTED.
 *
 * `catalog_name`: the catalog_name column (NULL: "default"). `create`: create
 * the SQLite file (and its parent directories) and the two tables, or the
 * warehouse directory, when missing; without it a missing catalog is
 * NOT_FOUND, and a SQLite file without iceberg_tables is NOT_FOUND too.
 * REST catalogs: see "REST catalogs" below (nothing is sent at open;
 * INVALID_ARG for a malformed URI, or one holding credentials).
 * INVALID_ARG (empty URI), IO (SQLite errors), NOMEM. */
struct basalt_catalog;

BASALT_EXPORT basalt_status basalt_catalog_open(const char *uri, const char *catalog_name,
                                                        bool create,
                                                        struct basalt_catalog **out,
                                                        struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_catalog_close(struct basalt_catalog *catalog);
/* Adds a location mapping used when loading tables (and when register checks
 * a metadata location), as basalt_iceberg_io_map. NOMEM, INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_catalog_map(struct basalt_catalog *c,
                                                       const char *prefix, const char *local,
                                                       struct basalt_error *err);
/* Reads tables' remote locations through `store` (borrowed; it must outlive
 * the catalog and the tables loaded from it), as basalt_iceberg_io_set_store. */
BASALT_EXPORT void basalt_catalog_set_store(struct basalt_catalog *c,
                                                    struct basalt_io_store *store);

/* Lists: arrays of basalt_malloc'd strings, sorted (byte order), freed with
 * basalt_string_list_free. An empty list is *out = NULL, *n = 0. */
/* The namespaces directly under `parent` (NULL or "" for the top level), as
 * full dotted names. NOT_FOUND when parent does not exist. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_list_namespaces(struct basalt_catalog *c,
                                                                   const char *parent,
                                                                   char ***out, size_t *n,
                                                                   struct basalt_error *err);
/* The tables directly in namespace `ns`, as full identifiers "ns.table".
 * NOT_FOUND when the namespace does not exist, INVALID_ARG for an empty
 * name or an empty level ("a..b"). IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_list_tables(struct basalt_catalog *c,
                                                               const char *ns, char ***out,
                                                               size_t *n,
                                                               struct basalt_error *err);
/* Frees the strings and the array. NULL is a no-op. */
BASALT_EXPORT void basalt_string_list_free(char **list, size_t n);
/* Creates a namespace (SQL: the row ("exists", "true") in
 * iceberg_namespace_properties, as PyIceberg does for a namespace created
 * without properties; filesystem: the directory). CONFLICT when it exists,
 * INVALID_ARG for an empty name or an empty level ("a..b"), IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_create_namespace(struct basalt_catalog *c,
                                                                    const char *ns,
                                                                    struct basalt_error *err);
/* Whether a namespace exists. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_namespace_exists(struct basalt_catalog *c,
                                                                    const char *ns, bool *exists,
                                                                    struct basalt_error *err);
/* Loads a table by identifier "ns.table" (the namespace may itself contain
 * dots: the last dot splits). The stored metadata location is resolved with
 * the catalog's mappings and loaded as basalt_iceberg_table_load loads a
 * metadata file; table->name is the identifier and
 * table->metadata_location the stored location. NOT_FOUND (no such table, or
 * its metadata file is missing), INVALID_ARG (no namespace in the
 * identifier), the statuses of basalt_iceberg_table_load, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_load_table(struct basalt_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_iceberg_table **out,
                                                              struct basalt_error *err);
/* The stored metadata location of a table, basalt_malloc'd into *out.
 * NOT_FOUND, INVALID_ARG, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_table_location(struct basalt_catalog *c,
                                                                  const char *identifier,
                                                                  char **out,
                                                                  struct basalt_error *err);
/* Adds an existing table by the location of its metadata file, stored as
 * given (previous_metadata_location NULL). The metadata is read and parsed
 * first, so a location that does not resolve to a table is refused with its
 * load status and nothing is written. A namespace that does not exist yet
 * is created with the table, in one transaction, as create_namespace creates
 * it (PyIceberg registers only into existing namespaces, so a catalog it
 * reads always has that row; the namespace then outlives a drop).
 * CONFLICT when the identifier exists, INVALID_ARG (no namespace),
 * UNSUPPORTED (filesystem catalog), IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_register_table(struct basalt_catalog *c,
                                                                  const char *identifier,
                                                                  const char *metadata_location,
                                                                  struct basalt_error *err);
/* Removes the table from the catalog; its files are kept. NOT_FOUND,
 * INVALID_ARG, UNSUPPORTED (filesystem catalog), IO. */
BASALT_EXPORT basalt_status basalt_catalog_drop_table(struct basalt_catalog *c,
                                                              const char *identifier,
                                                              struct basalt_error *err);

/* ------------------------------------------------------------ AWS catalogs
 *
 * "glue://[REGION]" opens the AWS Glue Data Catalog over its JSON 1.1 API,
 * laid out as the Java GlueCatalog and PyIceberg lay it out: a database per
 * namespace (one level: a dotted namespace is INVALID_ARG), an Iceberg
 * table as a Glue table of TableType EXTERNAL_TABLE whose Parameters hold
 * table_type "ICEBERG", metadata_location and previous_metadata_location,
 * with the table location in StorageDescriptor.Location and the current
 * schema as Columns (Hive types; parameters iceberg.field.id,
 * iceberg.field.optional, iceberg.field.current). Listings follow NextToken
 * and list only Iceberg tables; other tables do not load (NOT_FOUND). New
 * tables go to "<database LocationUri>/<table>", else
 * "<warehouse>/<ns>.db/<table>" (basalt_catalog_set_warehouse: s3://... or
 * a local path; without either, INVALID_ARG). A commit reads the table
 * (GetTable), refuses with CONFLICT when its metadata_location is not the
 * base of the change, writes the next metadata file, and sends UpdateTable
 * with the VersionId that GetTable gave and SkipArchive: Glue answers
 * ConcurrentModificationException (CONFLICT; the new file is deleted) when
 * another commit came in between.
 *
 * "s3tables://<table bucket ARN>" opens Amazon S3 Tables over its
 * control-plane API: namespaces (one level), tables (format ICEBERG). The
 * service places each table (its warehouseLocation, a bucket of its own):
 * create_table makes the table, writes the first metadata file there
 * whatever location the updates name (default_location only names the
 * table), and sets it with UpdateTableMetadataLocation; a commit writes the
 * next file there and swaps with the version token read with the base
 * check (a stale token is 409 ConflictException: CONFLICT). register is
 * UNSUPPORTED (metadata must live in the service's bucket).
 *
 * Both sign every request with SigV4 ("glue", "s3tables") using the AWS
 * credentials of the catalog's store (basalt_catalog_set_store, else one
 * made with the defaults: AWS_ACCESS_KEY_ID..., profiles), for the region
 * of the URI (S3 Tables: the ARN's), else the store's (AWS_REGION,
 * AWS_DEFAULT_REGION, the profile; else us-east-1). Endpoints:
 * AWS_ENDPOINT_URL_GLUE / AWS_ENDPOINT_URL_S3TABLES, else AWS_ENDPOINT_URL,
 * else https://glue.REGION.amazonaws.com / https://s3tables.REGION
 * .amazonaws.com. Answers: EntityNotFoundException and 404 are NOT_FOUND,
 * AlreadyExistsException, ConcurrentModificationException, ConflictException
 * and 409 CONFLICT, 401/403 and AccessDenied AUTH, validation errors
 * INVALID_ARG, the rest IO with the operation's name and AWS's message. A
 * commit whose answer was lost (or was 5xx) is UNKNOWN_OUTCOME, and its
 * metadata file is kept. */

/* ----------------------------------------------------------- REST catalogs
 *
 * "rest+http://HOST[:PORT][/PATH][?warehouse=W]" (or rest+https://) opens an
 * Iceberg REST catalog (the OpenAPI document iceberg-rest-catalog-open-api
 * .yaml) whose routes live under http(s)://HOST:PORT/PATH/v1/ -- PATH is
 * what the Java client's `uri` property holds beyond the host ("/iceberg",
 * "/api/catalog"), usually nothing. Opening sends nothing; the first
 * operation makes the session: a token first when client credentials are
 * set, then GET /v1/config (with ?warehouse= from the URI or
 * basalt_catalog_set_warehouse), whose overrides, else defaults, give the
 * {prefix} path segment and the namespace separator (default %1F), and
 * whose `endpoints` say which routes the server offers (absent: the spec's
 * default set). An operation whose route is not offered is UNSUPPORTED.
 *
 * Every operation above works on a REST catalog: namespaces (listed
 * following next-page-token through every page; a parent is sent as
 * ?parent=), tables (listed likewise), loads (GET loadTable: the metadata
 * comes in the answer, table->metadata_location is its metadata-location),
 * register (POST register), drop (DELETE, files kept: purgeRequested=false),
 * create_table (POST createTable with the schema, spec, sort order,
 * location and properties of the updates, "format-version" among the
 * properties; when the updates hold more, or stage_create is set, a staged
 * create then a commit of every update with assert-create, as the Java
 * client's create transactions do; a missing namespace is created first),
 * commit_table (POST updateTable with the requirements and updates as
 * given; the server writes the metadata file) and default_location (the
 * location the server chooses, asked with a staged create that creates
 * nothing; NOT_FOUND when the namespace does not exist). `create` of
 * basalt_catalog_open and the catalog name are not used.
 *
 * Statuses of answers: 400/422 INVALID_ARG, 401/403/419 AUTH, 404
 * NOT_FOUND, 406/501 UNSUPPORTED, 409 CONFLICT (an existing namespace or
 * table; for a commit, a failed requirement: CommitFailedException, which
 * appends retry), anything else IO; messages carry the server's error type
 * and text. For a commit, 500/502/503/504 -- and a connection lost after
 * the request went out -- are UNKNOWN_OUTCOME ("commit state unknown"):
 * the change may have been applied, so callers keep
 * every file it names (basalt_iceberg_append does). Reads are retried by
 * the io layer (basalt_io_http_request); writes only when they certainly
 * never reached the server.
 *
 * HTTP goes through the catalog's store (basalt_catalog_set_store; else one
 * made with the defaults), so its TLS settings, timeouts and retries
 * apply. Tables loaded from a REST catalog read and write their files
 * through their own io: the catalog's mappings and store, or -- when the
 * LoadTableResult vends credentials (storage-credentials, longest prefix
 * of the table location first, else its config: s3.access-key-id,
 * s3.secret-access-key, s3.session-token, s3.endpoint,
 * s3.path-style-access, client.region, gcs.oauth2.token) -- a store of
 * their own made from them, which the table owns
 * (basalt_iceberg_io_adopt_store), so it outlives the catalog as the
 * table may. A table config's `token` is the bearer for that table's
 * later loads and commits. */

/* How to talk to a REST catalog. Strings are copied by
 * basalt_catalog_set_rest_options. */
struct basalt_catalog_rest_options {
    /* A bearer token sent as "Authorization: Bearer TOKEN" (the Java
     * client's `token`). A 401 is AUTH. */
    const char *token;
    /* OAuth2 client credentials "CLIENT_ID:CLIENT_SECRET" (or "SECRET"
     * alone; the Java client's `credential`): exchanged with
     * grant_type=client_credentials at the token endpoint for a bearer
     * token, fetched again shortly before it expires (expires_in) and
     * whenever a request gets 401. Takes precedence over `token`. */
    const char *credential;
    /* The token endpoint (an identity provider's); NULL: the catalog's
     * oauth2-server-uri from its config when it sends one, else the
     * catalog's deprecated BASE/v1/oauth/tokens. */
    const char *oauth2_server_uri;
    const char *scope; /* NULL: "catalog" */
    /* Ask for vended credentials: "X-Iceberg-Access-Delegation:
     * vended-credentials" on loads and creates. */
    bool vended_credentials;
    /* Create tables with a staged create and a commit (see above). */
    bool stage_create;
};

/* Sets every member to zero / NULL. */
BASALT_EXPORT void basalt_catalog_rest_options_init(struct basalt_catalog_rest_options *o);
/* Replaces the REST options of a REST catalog (the next operation makes a
 * new session). INVALID_ARG for another kind of catalog, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_set_rest_options(
    struct basalt_catalog *c, const struct basalt_catalog_rest_options *options,
    struct basalt_error *err);

/* Commits changes to n tables atomically: all or none (REST catalogs that
 * offer POST /v1/{prefix}/transactions/commit). identifiers[i],
 * requirements[i] (NULL or "" for none) and updates[i] as
 * basalt_catalog_commit_table takes them. CONFLICT when a requirement
 * fails, UNKNOWN_OUTCOME on 500/502/503/504,
 * UNSUPPORTED for other catalogs and servers that do not offer it, the
 * other statuses of REST answers, INVALID_ARG, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_commit_transaction(
    struct basalt_catalog *c, size_t n, const char *const *identifiers,
    const char *const *requirements_json, const char *const *updates_json,
    struct basalt_error *err);

/* ------------------------------------------------------------------- views
 *
 * Iceberg views (iceberg_view.h) in SQL and REST catalogs; other kinds are
 * UNSUPPORTED. Identifiers are "ns.view" as for tables, and a view and a
 * table never share one: creating, registering or renaming onto a name a
 * table or view has is CONFLICT.
 *
 * SQL catalogs keep views in iceberg_tables, as the Java JdbcCatalog's V1
 * schema does: rows with iceberg_type 'VIEW', metadata_location naming the
 * view's metadata file, previous_metadata_location the one before. A
 * catalog without the iceberg_type column (the V0 schema PyIceberg and
 * this library create) has no views; the first view created or registered
 * in it adds the column with ALTER TABLE iceberg_tables ADD COLUMN
 * iceberg_type VARCHAR(5) -- the Java catalog's V1 migration -- in which
 * the existing rows, NULL there, stay tables for every reader that knows
 * the column. Readers that do not (PyIceberg) list view rows as tables once
 * there are any, so add views only to catalogs whose readers know views.
 * View metadata files are written like tables':
 * "<view location>/metadata/<NNNNN>-<uuid>.metadata.json", the location
 * defaulting to basalt_catalog_default_location. A commit is a
 * compare-and-swap on metadata_location (UPDATE ... WHERE metadata_location
 * = <base> AND iceberg_type = 'VIEW').
 *
 * REST catalogs use the view routes of the spec (listViews, loadView,
 * createView, replaceView, registerView, dropView, renameView, viewExists)
 * when the server offers them (its config's `endpoints`); the statuses
 * are those of table requests.
 *
 * Views come back as parsed metadata (*out, may be NULL; free with
 * basalt_iceberg_view_metadata_free) and the location of its metadata file
 * (*location, may be NULL; basalt_malloc'd). */

/* The views of namespace `ns` as "ns.view" (sorted, every page). NOT_FOUND
 * when the namespace does not exist, INVALID_ARG, UNSUPPORTED, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_list_views(struct basalt_catalog *c, const char *ns,
                                                      char ***out, size_t *n,
                                                      struct basalt_error *err);
/* Loads a view. NOT_FOUND (no such view -- a table of that name is not
 * one -- or its metadata file is missing), INVALID_ARG, UNSUPPORTED, the
 * statuses of basalt_iceberg_view_metadata_parse, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_load_view(struct basalt_catalog *c,
                                                     const char *identifier,
                                                     struct basalt_iceberg_view_metadata **out,
                                                     char **location, struct basalt_error *err);
/* Whether a view exists (a table does not count). INVALID_ARG,
 * UNSUPPORTED, IO. */
BASALT_EXPORT basalt_status basalt_catalog_view_exists(struct basalt_catalog *c,
                                                       const char *identifier, bool *exists,
                                                       struct basalt_error *err);
/* Creates a view from ViewUpdates (basalt_iceberg_view_create_updates
 * makes them; without a set-location the view goes to the default
 * location). A missing namespace is created with it in a SQL catalog; a
 * REST server answers NOT_FOUND for it. CONFLICT when a table or view has
 * the name, the statuses of basalt_iceberg_view_apply_updates, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_create_view(
    struct basalt_catalog *c, const char *identifier, const char *updates_json,
    struct basalt_iceberg_view_metadata **out, char **location, struct basalt_error *err);
/* Creates a view from its definition (schema, SQL and dialect, default
 * namespace, properties), at the default location (REST: where the server
 * puts it). As create_view. */
BASALT_EXPORT basalt_status basalt_catalog_create_sql_view(
    struct basalt_catalog *c, const char *identifier,
    const struct basalt_iceberg_view_definition *def, struct basalt_iceberg_view_metadata **out,
    char **location, struct basalt_error *err);
/* Commits a change to a view: loads it, checks `requirements_json`
 * (ViewRequirements; NULL or "": none), applies `updates_json`, writes the
 * next metadata file and swaps the catalog to it only if the view still
 * points at the metadata the change was built on (REST: replaceView).
 * CONFLICT when a requirement fails or another commit won (the new file is
 * deleted), NOT_FOUND, the statuses of apply_updates, IO, UNKNOWN_OUTCOME
 * (the answer of the swap was lost: the file is kept), NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_commit_view(
    struct basalt_catalog *c, const char *identifier, const char *requirements_json,
    const char *updates_json, struct basalt_iceberg_view_metadata **out, char **location,
    struct basalt_error *err);
/* Replaces the current version of a view by `def` (a new version, its
 * schema added or reused; def's properties set), asserting the view's
 * uuid: basalt_iceberg_view_replace_updates on the view as loaded, then
 * commit_view. When another commit wins, the view is loaded again and the
 * replace made again on it, up to `retries` times (-1: 4), waiting 10 to
 * 200 ms (doubling, with jitter) in between. As commit_view. */
BASALT_EXPORT basalt_status basalt_catalog_replace_view(
    struct basalt_catalog *c, const char *identifier,
    const struct basalt_iceberg_view_definition *def, int retries,
    struct basalt_iceberg_view_metadata **out, char **location, struct basalt_error *err);
/* Adds an existing view by the location of its metadata file, read and
 * parsed first (a file that is no view metadata is refused with its parse
 * status). A missing namespace is created with it (SQL). CONFLICT,
 * INVALID_ARG, UNSUPPORTED, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_register_view(struct basalt_catalog *c,
                                                         const char *identifier,
                                                         const char *metadata_location,
                                                         struct basalt_error *err);
/* Removes a view from the catalog; its files are kept. NOT_FOUND (also for
 * a table of that name), INVALID_ARG, UNSUPPORTED, IO. */
BASALT_EXPORT basalt_status basalt_catalog_drop_view(struct basalt_catalog *c,
                                                     const char *identifier,
                                                     struct basalt_error *err);
/* Renames a view, also into another namespace (which must exist). Its
 * files stay where they are. NOT_FOUND (no such view or namespace),
 * CONFLICT (a table or view has the new name), INVALID_ARG, UNSUPPORTED,
 * IO. */
BASALT_EXPORT basalt_status basalt_catalog_rename_view(struct basalt_catalog *c, const char *from,
                                                       const char *to, struct basalt_error *err);

/* ---------------------------------------------------------------- changing */

/* Where new tables go (default: the SQLite database's directory, or the
 * file-system catalog's directory, made absolute). Copied. For a REST
 * catalog it is the warehouse asked for in GET /v1/config (?warehouse=,
 * sent as given; the next operation makes a new session). NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_set_warehouse(struct basalt_catalog *c,
                                                                 const char *warehouse,
                                                                 struct basalt_error *err);
/* "<warehouse>/<namespace levels as directories>/<table>", basalt_malloc'd.
 * INVALID_ARG (no namespace), NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_default_location(
    struct basalt_catalog *c, const char *identifier, char **out,
    struct basalt_error *err);

/* Creates a table from `updates_json` (basalt_iceberg_create_updates makes
 * them) and registers it: the first metadata file is written at
 * "<location>/metadata/00000-<uuid>.metadata.json" (file-system catalog:
 * "v1.metadata.json" plus version-hint.text, and the location must be the
 * default one, since that catalog finds tables by directory). A missing
 * namespace is created with it. CONFLICT when the table exists (also when
 * another writer creates it first), the statuses of apply_updates, IO,
 * NOMEM. *out (may be NULL) receives the new table. */
BASALT_EXPORT basalt_status basalt_catalog_create_table(
    struct basalt_catalog *c, const char *identifier, const char *updates_json,
    struct basalt_iceberg_table **out, struct basalt_error *err);

/* Commits a change: loads the table, checks `requirements_json` (NULL or ""
 * for none), applies `updates_json`, writes the next metadata file
 * ("<NNNNN>-<uuid>.metadata.json", or "v<N>.metadata.json" in a file-system
 * catalog, created exclusively) and swaps the catalog to it only if the
 * table still points at the metadata the change was built on (SQL: one
 * UPDATE ... WHERE metadata_location = <base>; file system: the exclusive
 * create of the next version). When write.metadata.delete-after-commit.enabled
 * is true, metadata files that fell off the metadata log are deleted.
 * CONFLICT when a requirement fails or another commit won (the new file is
 * deleted: nothing references it), NOT_FOUND, the statuses of
 * apply_updates, IO (the commit certainly failed), UNKNOWN_OUTCOME (it may
 * have been applied: the answer of the swap was lost, a file-system
 * catalog's create failed on a remote store, or the table could not be
 * read back after the swap; the new file is kept), NOMEM. *out (may be
 * NULL): the table as committed. */
BASALT_EXPORT basalt_status basalt_catalog_commit_table(
    struct basalt_catalog *c, const char *identifier, const char *requirements_json,
    const char *updates_json, struct basalt_iceberg_table **out, struct basalt_error *err);

/* The committer of a catalog (valid while the catalog is open). */
BASALT_EXPORT void basalt_catalog_committer(struct basalt_catalog *c,
                                            struct basalt_iceberg_committer *out);

/* ------------------------------------------------------ REST catalog server
 *
 * Serves a catalog over the Iceberg REST catalog protocol
 * (iceberg-rest-catalog-open-api.yaml), so that any Iceberg engine shares
 * the tables basalt reads and writes. Routes are /v1/config and
 * /v1/[{prefix}/]..., namespaces in paths are levels joined by 0x1F (%1F,
 * also advertised as `namespace-separator`). Every error is the spec's
 * IcebergErrorResponse, {"error": {"message", "type", "code"}}, with the
 * exception names of the Java client (NoSuchTableException,
 * CommitFailedException, ...). Requests and responses are JSON.
 *
 * What is served depends on the catalog kind, and GET /v1/config lists it
 * in `endpoints`: every kind lists, creates, loads and commits namespaces
 * and tables; a SQL catalog also drops namespaces, keeps namespace
 * properties, drops, registers and renames tables, and commits multi-table
 * transactions atomically (one database transaction that swaps every
 * table's metadata pointer, or none) and serves views: list, create (from a
 * CreateViewRequest), load, replace (a CommitViewRequest, checked and
 * applied as basalt_catalog_commit_view does), exists, drop, rename and
 * register. Scan planning, credentials and request signing are not
 * served: their routes, and those a catalog kind lacks, answer 501
 * UnsupportedOperationException.
 *
 * Clients choose where tables live: a create writes metadata where its
 * location says, and register reads whatever metadata location it is
 * given, with the server's file permissions. Serve trusted clients (the
 * default address is 127.0.0.1; set a token). */

/* Options; basalt_catalog_rest_server_options_init sets the defaults.
 * Strings are borrowed for the duration of the call that takes them. */
struct basalt_catalog_rest_server_options {
    const char *catalog_uri;  /* as basalt_catalog_open takes it; created when missing */
    const char *catalog_name; /* NULL: BASALT_CATALOG_DEFAULT_NAME */
    const char *warehouse;    /* where new tables go; NULL: the catalog's default */
    /* The {prefix} path segment, advertised in /v1/config overrides; NULL or
     * "": none (paths are /v1/namespaces/...). */
    const char *prefix;
    /* When set, every request, /v1/config included (the spec puts the whole
     * API under its security schemes), needs "Authorization: Bearer TOKEN";
     * anything else is 401 NotAuthorizedException. NULL: no check. */
    const char *token;
    const char *bind_address; /* IPv4 or IPv6 literal; NULL: "127.0.0.1" */
    uint16_t port;            /* 0: one the kernel picks (see _port) */
    size_t max_body_bytes;    /* request bodies above are 413; 0: 16 MiB */
    /* Requests handled at once, each on its own connection to the catalog;
     * 0: 4. */
    unsigned threads;
    /* Where the tables' files are read and written when their locations are
     * remote (s3://, gs://, az://...), as basalt_catalog_set_store; borrowed,
     * it must outlive the server (a store is shared by threads). NULL: local
     * locations only. */
    struct basalt_io_store *store;
};

BASALT_EXPORT void basalt_catalog_rest_server_options_init(
    struct basalt_catalog_rest_server_options *options);

/* The request handling, without sockets: what the listener below feeds, and
 * what tests call directly. Shareable: any number of threads may call
 * basalt_catalog_rest_handle at once (each request borrows one of the
 * `threads` catalog connections, waiting for one to be free). */
struct basalt_catalog_rest_handler;

/* Opens the catalog `threads` times, and a SQL catalog's database once
 * more per connection for the server's own statements (namespace
 * properties, renames, transactions); bind_address and port are unused.
 * The statuses of basalt_catalog_open, INVALID_ARG (no catalog URI, a
 * prefix holding '/'), IO (the database), NOMEM. */
BASALT_EXPORT basalt_status basalt_catalog_rest_handler_new(
    const struct basalt_catalog_rest_server_options *options,
    struct basalt_catalog_rest_handler **out, struct basalt_error *err);
/* NULL is a no-op. No request may be in progress. */
BASALT_EXPORT void basalt_catalog_rest_handler_free(struct basalt_catalog_rest_handler *h);

/* One HTTP request, all borrowed. `path` is as received, still
 * percent-encoded ("/v1/namespaces/a%1Fb"); `query` is the raw text after
 * '?' (NULL: none). Header names are matched case-insensitively. */
struct basalt_catalog_rest_request {
    const char *method;
    const char *path;
    const char *query;
    const struct basalt_iceberg_kv *headers;
    uint32_t n_headers;
    const void *body;
    size_t body_len;
};

#define BASALT_CATALOG_REST_MAX_HEADERS 4

struct basalt_catalog_rest_header {
    char name[32];
    char value[224];
};

/* One response: `body` (basalt_malloc'd, NULL when there is none, as for
 * 204 and 304) is JSON; `headers` are what to send besides Content-Type
 * and Content-Length (ETag, Allow, WWW-Authenticate). */
struct basalt_catalog_rest_response {
    int status;
    char *body;
    size_t body_len;
    struct basalt_catalog_rest_header headers[BASALT_CATALOG_REST_MAX_HEADERS];
    uint32_t n_headers;
};

/* Handles one request into *out (caller storage, overwritten; free it with
 * _response_reset). Never fails: every failure is an error response, and
 * when even that cannot be allocated, status 500 with no body. */
BASALT_EXPORT void basalt_catalog_rest_handle(struct basalt_catalog_rest_handler *h,
                                              const struct basalt_catalog_rest_request *req,
                                              struct basalt_catalog_rest_response *out);
/* Frees the body; the response is empty again. */
BASALT_EXPORT void basalt_catalog_rest_response_reset(struct basalt_catalog_rest_response *r);

/* The listener: libmicrohttpd on bind_address:port with `threads` threads,
 * feeding basalt_catalog_rest_handle. Bodies are read up to max_body_bytes
 * (a larger Content-Length is refused before the body is read).
 * The statuses of _handler_new, INVALID_ARG (a bad bind address), IO (the
 * address is taken or cannot be bound). */
struct basalt_catalog_rest_server;

BASALT_EXPORT basalt_status basalt_catalog_rest_server_start(
    const struct basalt_catalog_rest_server_options *options,
    struct basalt_catalog_rest_server **out, struct basalt_error *err);
/* The port it listens on (the kernel's pick when options->port was 0). */
BASALT_EXPORT uint16_t basalt_catalog_rest_server_port(const struct basalt_catalog_rest_server *s);
/* Stops listening, lets requests in progress finish, closes the catalog.
 * NULL is a no-op. */
BASALT_EXPORT void basalt_catalog_rest_server_stop(struct basalt_catalog_rest_server *s);

#ifdef __cplusplus
}
#endif

#endif
