#!/usr/bin/env bash
# Loads monthly taxi files (basalt-taxigen's yellow_tripdata_YYYY-MM.parquet)
# into an Iceberg table through basalt: `basalt iceberg create` with the
# taxibench schema (field ids 1..19, every column optional) partitioned by
# month(tpep_pickup_datetime) as pickup_month, then one append per month, in
# month order, as the upstream loader does.
#
#   bash bench/taxi/load.sh DATA_DIR [--catalog URI] [--table taxi.trips]
#                           [--basalt PATH] [-- EXTRA create/append options]
#
# --catalog: any catalog basalt takes (default sqlite:./warehouse/catalog.db,
# the table under ./warehouse); a REST catalog serving an s3:// warehouse
# puts the table on object storage (bench/taxi/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=${1:?usage: load.sh DATA_DIR [--catalog URI] [--table NAME] [--basalt PATH]}
shift
catalog=sqlite:./warehouse/catalog.db
table=taxi.trips
basalt=$here/../../build/tools/basalt/basalt
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --catalog) catalog=$2; shift 2 ;;
    --table) table=$2; shift 2 ;;
    --basalt) basalt=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "load.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
shopt -s nullglob
files=("$data"/yellow_tripdata_????-??.parquet)
[ ${#files[@]} -gt 0 ] || { echo "load.sh: no yellow_tripdata_YYYY-MM.parquet in $data" >&2; exit 1; }

schema="VendorID int, tpep_pickup_datetime timestamp, tpep_dropoff_datetime timestamp,
  passenger_count int, trip_distance double, RatecodeID int, store_and_fwd_flag string,
  PULocationID int, DOLocationID int, payment_type int, fare_amount double, extra double,
  mta_tax double, tip_amount double, tolls_amount double, improvement_surcharge double,
  total_amount double, congestion_surcharge double, airport_fee double"
"$basalt" iceberg create "$table" --schema "$schema" \
  --partition 'month(tpep_pickup_datetime) AS pickup_month' --catalog "$catalog" "${extra[@]}"
for f in "${files[@]}"; do
  "$basalt" iceberg append "$table" "$f" --catalog "$catalog" "${extra[@]}" >/dev/null
  echo "appended $(basename "$f")"
done
"$basalt" iceberg count "$table" --catalog "$catalog" "${extra[@]}" | sed 's/^/rows: /'
