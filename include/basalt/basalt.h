/* basalt: the umbrella header. Include this, or the module headers you use. */
#ifndef BASALT_BASALT_H
#define BASALT_BASALT_H

#include "basalt/core.h"
#include "basalt/arrow.h"
#include "basalt/bench.h"
#include "basalt/codec.h"
#include "basalt/hash.h"
#include "basalt/io.h"
#include "basalt/ipc.h"
#include "basalt/avro.h"
#include "basalt/csv.h"
#include "basalt/json.h"
#include "basalt/parquet.h"
#include "basalt/parquet_format.h"
#include "basalt/parquet_variant.h"
#include "basalt/parquet_writer.h"
#include "basalt/thrift.h"
#include "basalt/iceberg.h"
#include "basalt/catalog.h"
#include "basalt/query.h"
#include "basalt/query_plan.h"
#include "basalt/sql.h"
#include "basalt/flight.h"
#include "basalt/flight_shm.h"

#endif
