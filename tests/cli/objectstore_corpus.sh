#!/usr/bin/env bash
# The corpus from a bucket: every Parquet file of the DuckDB differential
# (tests/cli/parquet_duckdb.sh) read from S3 prints what it prints from the
# local file, and the Iceberg tables whose metadata names s3:// and s3a://
# locations (icebird's hyperparam-iceberg bucket) scan from moto with no
# --map, row for row as the local scan. moto checks every request's SigV4
# signature, except the table-directory loads, which list metadata/ and so
# run against a second moto without signature checks: moto 5.2.1 rejects a
# correctly signed request whose query has a '/' in a value (prefix=a/b/),
# and boto3 gets the same rejection.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"

start_moto >/dev/null
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY
export AWS_REGION=$S3_REGION
unset AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_PROFILE
s3() { "$basalt" --endpoint "$S3_ENDPOINT" "$@"; }

# --- Parquet: local and remote output identical --------------------------
files=()
for f in "$testdata"/parquet-testing/data/*.parquet "$testdata"/parquet-testing/data/geospatial/*.parquet; do
  files+=("$f")
done
while IFS= read -r f; do files+=("$f"); done < <(find "$testdata/parquet-extra" -name '*.parquet' \
  -not -path '*/BYTE_STREAM_SPLIT/*' -not -path '*/fuzzing/*' | sort)
# Too large to hold twice in the test's time budget; the remote path has
# nothing file-specific.
declare -A skip=([large_string_map.brotli.parquet]=1)

compared=0 differ=0 uploaded=0 wanted=0
for f in "${files[@]}"; do
  name=$(basename "$f")
  [ -n "${skip[$name]:-}" ] && continue
  wanted=$((wanted + 1))
  key="corpus/$(printf '%s' "${f#"$testdata"/}" | tr -c 'A-Za-z0-9._/\n-' '_')"
  s3 io cp "$f" "s3://$S3_BUCKET/$key" >"$tmp/cp.out" 2>&1 || { echo "upload failed: $f"; cat "$tmp/cp.out"; differ=$((differ + 1)); continue; }
  uploaded=$((uploaded + 1))
  "$basalt" parquet cat "$f" --format json >"$tmp/local" 2>"$tmp/local.err"; lrc=$?
  s3 parquet cat "s3://$S3_BUCKET/$key" --format json >"$tmp/remote" 2>"$tmp/remote.err"; rrc=$?
  # Errors name the file: compare them with the name taken out.
  sed -i "s#$f#FILE#g" "$tmp/local.err"
  sed -i "s#s3://$S3_BUCKET/$key#FILE#g" "$tmp/remote.err"
  if [ $lrc = $rrc ] && cmp -s "$tmp/local" "$tmp/remote" && cmp -s "$tmp/local.err" "$tmp/remote.err"; then
    compared=$((compared + 1))
  else
    differ=$((differ + 1))
    echo "differs: $f (exit $lrc local, $rrc remote)"
    diff <(head -c 2000 "$tmp/local.err") <(head -c 2000 "$tmp/remote.err") | head -5
  fi
done
echo "parquet: $compared files print the same from S3 as locally, $differ differ"
check "every corpus file ($wanted) was uploaded" [ "$uploaded" = "$wanted" ]
check "the corpus is there ($wanted files)" [ "$wanted" -gt 100 ]
check "every uploaded file prints the same from S3" [ "$differ" = 0 ]

# --- Iceberg: tables whose metadata names s3:// and s3a:// locations -----
# moto 5.2.1 also rejects correctly signed requests for keys with '=', '+',
# ':' and the like in their path (boto3's as well): the Hive-style partition
# directories of spark/rename_column ("id_bucket=0/") go to the moto without
# signature checks, with the table-directory loads.
bucket=hyperparam-iceberg
local_root=$testdata/iceberg/icebird/$bucket
start_moto_noauth >/dev/null
for endpoint in "$S3_ENDPOINT" "$S3_NOAUTH_ENDPOINT"; do
  /usr/bin/env python3 - "$endpoint" "$bucket" <<'PY'
import sys, boto3
boto3.client("s3", endpoint_url=sys.argv[1]).create_bucket(Bucket=sys.argv[2])
PY
  check "the bucket $bucket exists at $endpoint" [ $? = 0 ]
done
signed_tables=(athena/example java/bunnies spark/bunnies)
for table in "${signed_tables[@]}"; do
  expect 0 s3 io cp -r "$local_root/$table/" "s3://$bucket/$table/"
done
expect 0 "$basalt" --endpoint "$S3_NOAUTH_ENDPOINT" io cp -r "$local_root/" "s3://$bucket/"
tables=0
while IFS= read -r meta; do
  rel=${meta#"$local_root"/}
  endpoint=$S3_NOAUTH_ENDPOINT
  for table in "${signed_tables[@]}"; do
    [[ $rel == "$table"/* ]] && endpoint=$S3_ENDPOINT
  done
  expect 0 "$basalt" iceberg scan "$meta" --format json && cp "$tmp/out" "$tmp/local"
  # No --map: the data and delete files are read where the metadata says.
  expect 0 "$basalt" --endpoint "$endpoint" iceberg scan "s3://$bucket/$rel" --format json &&
    check "$rel: scan from S3 = local scan ($(wc -l <"$tmp/local") rows)" cmp -s "$tmp/out" "$tmp/local"
  tables=$((tables + 1))
done < <(find "$local_root" -name '*.metadata.json' | sort)
check "every icebird metadata file was scanned" [ "$tables" -ge 15 ]

# A scan counts its own requests and bytes (manifest list, manifests, data
# and delete files) apart from the store's, which also counts loading the
# table: what `iceberg describe` alone costs, read from the store's counter
# in another process, plus the scan's own figures must be the store's.
# stats_of FILE KEY: "<requests> <bytes>" of the store ("io") or the scan.
stats_of() {
  case $2 in
    io) sed -n 's/^io: \([0-9]*\) requests.* (\([0-9]*\) and [0-9]* bytes)$/\1 \2/p' "$1" ;;
    scan) sed -n 's/^scan: \([0-9]*\) requests, \([0-9]*\) bytes requested$/\1 \2/p' "$1" ;;
  esac
}
counted=0 reading=0
for rel in \
           $(cd "$local_root" && find . -name '*.metadata.json' | sed 's|^\./||' | sort); do
  [ -f "$local_root/$rel" ] || continue
  endpoint=$S3_NOAUTH_ENDPOINT
  for table in "${signed_tables[@]}"; do [[ $rel == "$table"/* ]] && endpoint=$S3_ENDPOINT; done
  "$basalt" --endpoint "$endpoint" --stats iceberg describe "s3://$bucket/$rel" >/dev/null 2>"$tmp/load.err" || continue
  "$basalt" --endpoint "$endpoint" --stats iceberg scan "s3://$bucket/$rel" --format json \
    >/dev/null 2>"$tmp/scan.err" || continue
  read -r load_req load_bytes <<<"$(stats_of "$tmp/load.err" io)"
  read -r all_req all_bytes <<<"$(stats_of "$tmp/scan.err" io)"
  read -r scan_req scan_bytes <<<"$(stats_of "$tmp/scan.err" scan)"
  if [ -z "${scan_req:-}" ] || [ -z "${all_req:-}" ] || [ -z "${load_req:-}" ] ||
     [ "$((load_req + scan_req))" != "$all_req" ] || [ "$((load_bytes + scan_bytes))" != "$all_bytes" ]; then
    check "$rel: load ${load_req:-?}/${load_bytes:-?} + scan ${scan_req:-?}/${scan_bytes:-?} = store ${all_req:-?}/${all_bytes:-?} (requests/bytes)" false
  fi
  counted=$((counted + 1))
  [ "${scan_req:-0}" -gt 0 ] && reading=$((reading + 1))
done
echo "scan counters checked on $counted tables, $reading with files to read"
check "the scan's own counters add up with the load's to the store's on every table ($counted)" \
  [ "$counted" -ge 15 ]
# (the tables without a snapshot read nothing: their scans count 0)
check "most scans made requests of their own ($reading)" [ "$reading" -ge 12 ]

# A table named by its directory: the newest metadata file from a listing.
for table in java/bunnies spark/bunnies spark/rename_column; do
  expect 0 "$basalt" iceberg scan "$local_root/$table" --format json && cp "$tmp/out" "$tmp/local"
  expect 0 "$basalt" --endpoint "$S3_NOAUTH_ENDPOINT" iceberg scan "s3a://$bucket/$table" --format json &&
    check "$table by directory: scan from S3 = local scan" cmp -s "$tmp/out" "$tmp/local"
done
finish
