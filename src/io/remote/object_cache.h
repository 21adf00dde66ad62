/* The bytes of immutable remote objects (opened with BASALT_IO_IMMUTABLE),
 * kept by the store across inputs: a later input of the same object is
 * sized and read from memory, without requests. Iceberg's data, delete,
 * manifest and metadata files never change under their names, and a query
 * engine reads them again and again. Bounded by bytes; the least recently
 * used blocks go first. Shared by threads. */
#ifndef BASALT_IO_OBJECT_CACHE_H
#define BASALT_IO_OBJECT_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/io.h"

struct basalt_object_cache;

/* NULL when out of memory (the store then has none). */
struct basalt_object_cache *basalt_object_cache_new(uint64_t capacity);
void basalt_object_cache_free(struct basalt_object_cache *c);

/* The object's size and ETag as its first input learnt them, and a copy of
 * its tail (*tail basalt_malloc'd, NULL when none was kept). False when the
 * object is not known. */
bool basalt_object_cache_find_object(struct basalt_object_cache *c, const char *name,
                                     uint64_t *size, char etag[BASALT_IO_ETAG_MAX],
                                     uint8_t **tail, uint64_t *tail_offset, uint64_t *tail_len);
/* Records an object's size, ETag and tail (copied). */
void basalt_object_cache_put_object(struct basalt_object_cache *c, const char *name,
                                    uint64_t size, const char *etag, const uint8_t *tail,
                                    uint64_t tail_offset, uint64_t tail_len);
/* Copies [offset, offset + length) of the object into dst when one kept
 * block holds all of it. */
bool basalt_object_cache_read(struct basalt_object_cache *c, const char *name, uint64_t offset,
                              uint64_t length, void *dst);
/* Whether one kept block holds all of [offset, offset + length). */
bool basalt_object_cache_has(struct basalt_object_cache *c, const char *name, uint64_t offset,
                             uint64_t length);
/* Keeps a copy of [offset, offset + length) of the object. */
void basalt_object_cache_put(struct basalt_object_cache *c, const char *name, uint64_t offset,
                             uint64_t length, const void *data);
/* Reads served from the cache so far (tests, statistics). */
uint64_t basalt_object_cache_hits(struct basalt_object_cache *c);

#endif
