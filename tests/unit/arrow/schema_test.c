/* Schemas: construction, ownership, release child by child, move, copy. */
#include "basalt/arrow.h"
#include "test.h"

TEST(arrow_schema_init_fields)
{
    struct ArrowSchema s;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "root", 0, 2, NULL), NULL);
    CHECK_STR(s.format, "+s");
    CHECK_STR(s.name, "root");
    CHECK(s.metadata == NULL);
    CHECK_EQ(s.flags, 0);
    CHECK_EQ(s.n_children, 2);
    CHECK(s.children != NULL);
    CHECK(s.children[0]->release == NULL && s.children[1]->release == NULL);
    CHECK(s.dictionary == NULL);
    CHECK(s.release != NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "i", "a", ARROW_FLAG_NULLABLE, 0, NULL),
             NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[1], "u", NULL, 0, 0, NULL), NULL);
    CHECK(s.children[1]->name == NULL);
    CHECK_OK(basalt_arrow_schema_validate(&s, NULL), NULL);
    s.release(&s);
    CHECK(s.release == NULL);
}

TEST(arrow_schema_metadata_and_dictionary)
{
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    CHECK_OK(basalt_arrow_metadata_append(&md, "PARQUET:field_id", 16, "3", 1, NULL), NULL);
    struct ArrowSchema s, dict;
    CHECK_OK(basalt_arrow_schema_init(&s, "i", "cat", ARROW_FLAG_DICTIONARY_ORDERED, 0, NULL),
             NULL);
    CHECK_OK(basalt_arrow_schema_set_metadata(&s, (const char *)md.data, NULL), NULL);
    CHECK(s.metadata != (const char *)md.data); /* a copy */
    CHECK_MEM(s.metadata, md.data, md.size);
    basalt_buffer_reset(&md);
    CHECK_OK(basalt_arrow_schema_init(&dict, "u", NULL, 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_set_dictionary(&s, &dict, NULL), NULL);
    CHECK(dict.release == NULL); /* moved in */
    CHECK(s.dictionary != NULL);
    CHECK_STR(s.dictionary->format, "u");
    const char *value;
    size_t len;
    CHECK_OK(basalt_arrow_metadata_get(s.metadata, "PARQUET:field_id", &value, &len, NULL), NULL);
    CHECK_EQ(len, 1);
    CHECK_EQ(value[0], '3');
    CHECK_OK(basalt_arrow_schema_validate(&s, NULL), NULL);
    /* Replacing and removing metadata. */
    CHECK_OK(basalt_arrow_schema_set_metadata(&s, NULL, NULL), NULL);
    CHECK(s.metadata == NULL);
    basalt_arrow_schema_release(&s);
    CHECK(s.release == NULL);
    basalt_arrow_schema_release(&s); /* released twice: a no-op */
    basalt_arrow_schema_release(NULL);
}

TEST(arrow_schema_set_on_foreign_schema)
{
    struct ArrowSchema foreign = {0};
    foreign.format = "i";
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_schema_set_metadata(&foreign, NULL, &err), BASALT_INVALID_ARG, &err);
    struct ArrowSchema dict;
    CHECK_OK(basalt_arrow_schema_init(&dict, "u", NULL, 0, 0, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_set_dictionary(&foreign, &dict, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(dict.release == NULL); /* released even on failure, as documented */
}

TEST(arrow_schema_child_moved_out_and_released_alone)
{
    struct ArrowSchema s, moved;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", NULL, 0, 2, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "+l", "xs", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0]->children[0], "i", "item", 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[1], "u", "name", 0, 0, NULL), NULL);
    basalt_arrow_schema_move(s.children[0], &moved);
    CHECK(s.children[0]->release == NULL);
    CHECK_STR(moved.format, "+l");
    CHECK_STR(moved.children[0]->format, "i");
    /* The parent goes first: the moved child must survive it. */
    s.release(&s);
    CHECK_STR(moved.name, "xs");
    CHECK_STR(moved.children[0]->name, "item");
    moved.release(&moved);
    CHECK(moved.release == NULL);
}

TEST(arrow_schema_child_released_before_parent)
{
    struct ArrowSchema s;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", NULL, 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "i", "a", 0, 0, NULL), NULL);
    s.children[0]->release(s.children[0]);
    CHECK(s.children[0]->release == NULL);
    s.release(&s); /* must not release the child again (ASan reports a double free) */
}

TEST(arrow_schema_move_parent)
{
    struct ArrowSchema a, b;
    CHECK_OK(basalt_arrow_schema_init(&a, "+s", "r", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(a.children[0], "g", "x", 0, 0, NULL), NULL);
    basalt_arrow_schema_move(&a, &b);
    CHECK(a.release == NULL);
    basalt_arrow_schema_release(&a); /* released source: no-op */
    CHECK_STR(b.children[0]->name, "x");
    b.release(&b);
}

/* A schema as another producer would hand it over: static strings, its own
 * release callback. */
static int foreign_releases;
static void foreign_release(struct ArrowSchema *s)
{
    foreign_releases++;
    s->release = NULL;
}

TEST(arrow_schema_copy_foreign)
{
    static const uint8_t md[] = {1, 0, 0, 0, 1, 0, 0, 0, 'k', 2, 0, 0, 0, 'v', 'w'};
    struct ArrowSchema leaf = {.format = "tsu:UTC", .name = "ts", .metadata = (const char *)md,
                               .flags = ARROW_FLAG_NULLABLE, .release = foreign_release};
    struct ArrowSchema dict = {.format = "u", .release = foreign_release};
    struct ArrowSchema idx = {.format = "s", .name = "d", .dictionary = &dict,
                              .release = foreign_release};
    struct ArrowSchema *children[] = {&leaf, &idx};
    struct ArrowSchema root = {.format = "+s", .name = "", .n_children = 2, .children = children,
                               .release = foreign_release};
    struct ArrowSchema copy;
    CHECK_OK(basalt_arrow_schema_copy(&root, &copy, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_validate(&copy, NULL), NULL);
    CHECK_STR(copy.format, "+s");
    CHECK_STR(copy.name, "");
    CHECK_EQ(copy.n_children, 2);
    CHECK(copy.children[0]->format != leaf.format);
    CHECK_STR(copy.children[0]->format, "tsu:UTC");
    CHECK_STR(copy.children[0]->name, "ts");
    CHECK_EQ(copy.children[0]->flags, ARROW_FLAG_NULLABLE);
    CHECK_MEM(copy.children[0]->metadata, md, sizeof md);
    CHECK(copy.children[0]->metadata != (const char *)md);
    CHECK_STR(copy.children[1]->dictionary->format, "u");
    CHECK(copy.children[1]->dictionary->name == NULL);
    copy.release(&copy);
    CHECK_EQ(foreign_releases, 0); /* copying never releases the source */

    /* A released child in the source is corrupt. */
    leaf.release = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_schema_copy(&root, &copy, &err), BASALT_CORRUPT, &err);
    CHECK(copy.release == NULL);
}

TEST(arrow_schema_validate_rejects)
{
    struct basalt_error err;
    struct ArrowSchema s;
    /* a list needs one child */
    CHECK_OK(basalt_arrow_schema_init(&s, "+l", "xs", 0, 0, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "column 'xs'") != NULL);
    s.release(&s);
    /* a child left uninitialised */
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", NULL, 0, 1, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_CORRUPT, &err);
    s.release(&s);
    /* a bad format deep down names its path */
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", NULL, 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "+s", "a", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0]->children[0], "w:x", "b", 0, 0, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_CORRUPT, &err);
    CHECK_MSG(strncmp(err.message, "column 'a.b': ", 14) == 0, "%s", err.message);
    s.release(&s);
    /* dictionary indices must be integers */
    struct ArrowSchema dict;
    CHECK_OK(basalt_arrow_schema_init(&s, "g", "f", 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(&dict, "u", NULL, 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_set_dictionary(&s, &dict, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_CORRUPT, &err);
    s.release(&s);
    /* a map's child must be a struct of two */
    CHECK_OK(basalt_arrow_schema_init(&s, "+m", "m", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "+s", "entries", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0]->children[0], "u", "key", 0, 0, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_CORRUPT, &err);
    s.release(&s);
    /* unknown format */
    CHECK_OK(basalt_arrow_schema_init(&s, "Q", "q", 0, 0, NULL), NULL);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_UNSUPPORTED, &err);
    s.release(&s);
    CHECK_STATUS(basalt_arrow_schema_validate(&s, &err), BASALT_INVALID_ARG, &err);
}

TEST(arrow_schema_validate_depth_limit)
{
    /* A cyclic foreign schema: a list whose child is itself. */
    struct ArrowSchema cyc = {.format = "+l", .n_children = 1, .release = foreign_release};
    struct ArrowSchema *children[] = {&cyc};
    cyc.children = children;
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_schema_validate(&cyc, &err), BASALT_LIMIT, &err);
    struct ArrowSchema copy;
    CHECK_STATUS(basalt_arrow_schema_copy(&cyc, &copy, &err), BASALT_LIMIT, &err);
}

static basalt_status schema_attempt(void *ctx)
{
    (void)ctx;
    struct ArrowSchema s, dict, copy;
    basalt_status st = basalt_arrow_schema_init(&s, "+s", "root", 0, 2, NULL);
    if (st != BASALT_OK)
        return st;
    static const uint8_t md[] = {1, 0, 0, 0, 1, 0, 0, 0, 'k', 1, 0, 0, 0, 'v'};
    if ((st = basalt_arrow_schema_init(s.children[0], "i", "a", 0, 0, NULL)) != BASALT_OK ||
        (st = basalt_arrow_schema_init(s.children[1], "s", "b", 0, 0, NULL)) != BASALT_OK ||
        (st = basalt_arrow_schema_set_metadata(s.children[0], (const char *)md, NULL)) !=
            BASALT_OK ||
        (st = basalt_arrow_schema_init(&dict, "u", NULL, 0, 0, NULL)) != BASALT_OK ||
        (st = basalt_arrow_schema_set_dictionary(s.children[1], &dict, NULL)) != BASALT_OK) {
        s.release(&s);
        return st;
    }
    st = basalt_arrow_schema_copy(&s, &copy, NULL);
    s.release(&s);
    if (st != BASALT_OK)
        return st;
    copy.release(&copy);
    return BASALT_OK;
}

TEST(arrow_schema_alloc_failures) { CHECK_ALLOC_SWEEP(schema_attempt, NULL); }
