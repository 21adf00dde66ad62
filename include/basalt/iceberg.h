/* basalt iceberg: reading Apache Iceberg tables.
 *
 * The module is split by purpose, one header each; this one includes them
 * all:
 *   iceberg_types.h      the data model (schemas, specs, snapshots, manifest
 *                        entries, typed values) shared by the parts below
 *   iceberg_metadata.h   table metadata JSON (v1-v3): parse, write back,
 *                        snapshot and schema lookups, time travel
 *   iceberg_manifest.h   manifest lists and manifests (Avro), the manifest
 *                        cache, Puffin files, deletion vectors, position sets
 *   iceberg_expr.h       filter expressions: the text language, the C
 *                        builders, binding, literals, vectorised evaluation
 *   iceberg_transform.h  partition transforms, projection of filters onto
 *                        specs, the pruning evaluators, residuals
 *   iceberg_write.h      writing data files, manifests and manifest lists
 *   iceberg_catalog.h    locations and file access, loading tables
 *   iceberg_commit.h     changing tables: requirements and updates, table
 *                        creation, the committer interface, appends
 *   iceberg_maintain.h   compaction, manifest rewrites, orphan files,
 *                        cherry-picks
 *   iceberg_scan.h       scan planning, reading with deletes and schema
 *                        evolution into Arrow, counts */
#ifndef BASALT_ICEBERG_H
#define BASALT_ICEBERG_H

#include "basalt/iceberg_types.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_view.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_transform.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"
#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_maintain.h"

#endif
