/* Upper bounds of the bytes a column chunk can grow by, so that the writer
 * can tell, before encoding, that no row-group cut by bytes can fall inside
 * a run of slices (see writer.c). */
#include "parquet_writer.h"

/* What one page can cost beyond the bytes of its values and levels: page
 * header, statistics, CRC, codec framing (every codec's worst case expands
 * by a fraction of the input plus less than a kilobyte). */
#define PAGE_OVERHEAD 1024

/* A page body's encoded bytes are at most 2.2 times its raw value bytes
 * (DELTA_BYTE_ARRAY's two length streams are the worst) plus one byte a
 * level, times 1.2 for the codec; the dictionary adds at most the raw bytes
 * again. Five times covers all of it. */
#define RAW_FACTOR 5

int64_t basalt_parquet_wcolumn_dict_max_len(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array)
{
    if (!col->arrow_dictionary || col->physical != BASALT_PARQUET_TYPE_BYTE_ARRAY)
        return 0;
    /* the leaf array: the dictionary-encoded one */
    const struct ArrowArray *a = array;
    for (int d = 0; d + 1 < col->depth; d++) {
        const struct basalt_parquet_wnode *node = &col->nodes[d];
        a = a->children[node->kind == BASALT_PARQUET_WNODE_STRUCT ? node->child : 0];
    }
    const struct ArrowArray *dict = a->dictionary;
    int64_t max = 0;
    for (int64_t i = dict->offset; i < dict->offset + dict->length; i++) {
        int64_t len;
        if (col->conv == BASALT_PARQUET_WCONV_BINARY64) {
            const int64_t *o = dict->buffers[1];
            len = o[i + 1] - o[i];
        } else {
            const int32_t *o = dict->buffers[1];
            len = (int64_t)o[i + 1] - o[i];
        }
        if (len < 0)
            return -1;
        if (len > max)
            max = len;
    }
    return max;
}

int64_t basalt_parquet_wchunk_bytes_bound(const struct basalt_parquet_wchunk *c)
{
    return basalt_parquet_wchunk_bytes(c) + RAW_FACTOR * (c->pend_bytes + c->pend_levels);
}

/* Offset `i` of a list or byte array's offsets. */
static int64_t offset_at(const struct ArrowArray *a, bool large, int64_t i)
{
    if (large)
        return ((const int64_t *)a->buffers[1])[i];
    return ((const int32_t *)a->buffers[1])[i];
}

int64_t basalt_parquet_wcolumn_growth_bound(const struct basalt_parquet_wcolumn *col,
                                            const struct ArrowArray *array, int64_t start,
                                            int64_t count, int64_t dict_max_len,
                                            const struct basalt_parquet_writer_options *o)
{
    if (dict_max_len < 0)
        return -1;
    /* Physical slots [b, e) of each node's array in turn; every slot of
     * every node gives at most one level. */
    const struct ArrowArray *a = array;
    int64_t b = array->offset + start, e = b + count;
    int64_t levels = 0;
    for (int d = 0;; d++) {
        const struct basalt_parquet_wnode *node = &col->nodes[d];
        if (e < b || levels > INT64_MAX / 4 - (e - b))
            return -1;
        levels += e - b;
        if (node->kind == BASALT_PARQUET_WNODE_LEAF || node->kind == BASALT_PARQUET_WNODE_NULL)
            break;
        if (d + 1 >= col->depth)
            return -1;
        switch (node->kind) {
        case BASALT_PARQUET_WNODE_STRUCT:
            a = a->children[node->child];
            break;
        case BASALT_PARQUET_WNODE_LIST:
        case BASALT_PARQUET_WNODE_MAP:
        case BASALT_PARQUET_WNODE_LARGE_LIST: {
            bool large = node->kind == BASALT_PARQUET_WNODE_LARGE_LIST;
            int64_t first = offset_at(a, large, b);
            e = offset_at(a, large, e);
            b = first;
            a = a->children[0];
            break;
        }
        case BASALT_PARQUET_WNODE_FIXED_LIST: {
            int64_t size = node->fixed_size;
            if (size < 0 || (size > 0 && e > INT64_MAX / 4 / size))
                return -1;
            b *= size;
            e *= size;
            a = a->children[0];
            break;
        }
        default:
            return -1; /* a node without a bound: no runs */
        }
        b += a->offset;
        e += a->offset;
    }
    int64_t values = e - b, raw;
    if (col->physical == BASALT_PARQUET_TYPE_BOOLEAN) {
        raw = values / 8 + 1;
    } else if (col->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
        int64_t data;
        if (col->arrow_dictionary) {
            if (dict_max_len > INT64_MAX / 8 / (values + 1))
                return -1;
            data = values * dict_max_len;
        } else {
            bool large = col->conv == BASALT_PARQUET_WCONV_BINARY64;
            data = offset_at(a, large, e) - offset_at(a, large, b);
            if (data < 0)
                return -1;
        }
        raw = data + 4 * values;
    } else {
        size_t width = col->width ? col->width : (size_t)col->type_length;
        raw = values * (int64_t)width;
    }
    if (raw < 0 || raw > INT64_MAX / 64 - levels)
        return -1;
    if (o->max_statistics_size > (size_t)1 << 40)
        return -1;
    int64_t pages = count / o->page_rows + 2;
    return RAW_FACTOR * (raw + levels) +
           pages * (PAGE_OVERHEAD + 4 * (int64_t)o->max_statistics_size);
}
