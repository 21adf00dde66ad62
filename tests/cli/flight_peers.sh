#!/usr/bin/env bash
# basalt's Arrow Flight server against an independent client: @grpc/grpc-js
# with the upstream Flight.proto, batches decoded by apache-arrow and
# compared in Polars with what Polars reads from the tables' data files
# (flight_peers.mjs). Tables: taxi trips partitioned by month (24 endpoints),
# the same after a merge-on-read delete of one zone, and an empty table that
# DoPut fills. The server requires a bearer token. Then basalt's own client
# verbs (list, info, schema, get, put, action) against the same server.
#   BASALT_FLIGHT_ROWS  taxi rows (default 200000)
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
for m in @grpc/grpc-js @grpc/proto-loader apache-arrow nodejs-polars; do
  if ! command -v node >/dev/null || [ ! -d "$root/node_modules/$m" ]; then
    echo "skipped: node or $m is missing (scripts/setup installs them)"
    [ "${BASALT_REQUIRE_PEERS:-0}" = 1 ] && exit 1
    exit 0
  fi
done
check "the upstream Flight.proto is in testdata" test -f "$testdata/flight/Flight.proto" || { finish; exit; }
build=$(cd "$(dirname "$basalt")/../.." && pwd)
gen=$build/bench/taxigen/basalt-taxigen
check "basalt-taxigen is built" test -x "$gen" || { finish; exit; }
rows=${BASALT_FLIGHT_ROWS:-200000}
cd "$tmp"
cat="sqlite:$tmp/wh/catalog.db"
mkdir -p wh
expect 0 "$gen" --scale "$rows" --out "$tmp/src" --threads 2
expect 0 bash "$root/bench/taxi/load.sh" "$tmp/src" --catalog "$cat" --basalt "$basalt"
expect 0 bash "$root/bench/taxi/load.sh" "$tmp/src" --catalog "$cat" --basalt "$basalt" \
  --table taxi.trips_mor
expect 0 "$basalt" iceberg delete taxi.trips_mor --where 'PULocationID = 161' --mode mor \
  --catalog "$cat"
for t in put put_dictionary; do
  expect 0 "$basalt" iceberg create flight.$t --schema 'id long, name string, score double' \
    --catalog "$cat"
done

token=flight-test-token
"$basalt" flight serve --catalog "$cat" --port 0 --require-token "$token" \
  >"$tmp/serve.out" 2>"$tmp/serve.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; [ -n "${BASALT_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q listening "$tmp/serve.out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on grpc:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/serve.out")
check "the server says where it listens" test -n "$port" || { cat "$tmp/serve.err"; finish; exit; }
url=grpc://127.0.0.1:$port

files=$(printf '"%s",' "$tmp"/src/*.parquet)
files="[${files%,}]"
cat >"$tmp/checks.json" <<EOF
{"tables": [{"path": ["taxi", "trips"], "files": $files},
            {"path": ["taxi", "trips_mor"], "files": $files,
             "exclude": {"column": "PULocationID", "value": 161}}],
 "cmd": {"table": "taxi.trips", "columns": ["PULocationID", "fare_amount", "tpep_pickup_datetime"],
         "filter": "PULocationID = 132", "column": "PULocationID", "value": 132, "files": $files},
 "put": {"path": ["flight", "put"]}, "put_dictionary": {"path": ["flight", "put_dictionary"]}}
EOF
(cd "$root" && node tests/cli/flight_peers.mjs "127.0.0.1:$port" "$token" "$tmp/checks.json") \
  >"$tmp/node.out" 2>&1
status=$?
cat "$tmp/node.out"
check "the grpc-js client's checks pass" test "$status" -eq 0

# basalt's own client.
export BASALT_FLIGHT_TOKEN=$token
expect 0 "$basalt" flight list "$url"
check "list names the tables" grep -q '^flight taxi.trips_mor:' "$tmp/out"
expect 0 "$basalt" flight get "$url" taxi.trips --summary
check "get fetches every row" grep -q "^rows $rows, " "$tmp/out"
check "the batches use every buffer where it was received" \
  grep -qE ', buffers [1-9][0-9]* in place, 0 copied$' "$tmp/out"
expect 0 "$basalt" flight info "$url" taxi.trips
check "info lists 24 endpoints" grep -q ', 24 endpoints$' "$tmp/out"
expect 0 "$basalt" flight get "$url" --cmd '{"table":"taxi.trips","filter":"PULocationID = 161"}' \
  --summary
zone=$("$basalt" sql --catalog "$cat" "SELECT count(*) FROM taxi.trips WHERE PULocationID = 161" \
  --format csv | tail -1)
check "a filtered get returns the SQL count ($zone)" grep -q "^rows $zone, " "$tmp/out"
expect 0 "$basalt" flight get "$url" taxi.trips_mor --summary
check "merge-on-read deletes apply" grep -q "^rows $((rows - zone)), " "$tmp/out"
expect 0 "$basalt" flight get "$url" taxi.trips --limit 5 --format csv
check "get --limit prints 5 rows and a header" test "$(wc -l <"$tmp/out")" -eq 6
expect 0 "$basalt" flight get "$url" taxi.trips --out "$tmp/all.arrow"
expect 0 "$basalt" ipc cat "$tmp/all.arrow" --format csv
check "--out writes an IPC stream of every row" test "$(($(wc -l <"$tmp/out") - 1))" -eq "$rows"
# put: a Parquet file appended through DoPut, then read back.
expect 0 "$basalt" flight put "$url" taxi.trips "$tmp/src/yellow_tripdata_2024-06.parquet"
check "put reports the rows" grep -q '"rows":' "$tmp/out"
added=$(sed -n 's/.*"rows":\([0-9]*\).*/\1/p' "$tmp/out")
expect 0 "$basalt" flight get "$url" taxi.trips --summary
check "the put rows are read back" grep -q "^rows $((rows + added)), " "$tmp/out"
expect 0 "$basalt" flight action "$url" plan '{"table":"taxi.trips","filter":"PULocationID = 1"}'
check "the plan action answers JSON" grep -q '"tasks":' "$tmp/out"
# Errors: clear messages, non-zero exits, a server that keeps serving.
expect 1 "$basalt" flight get "$url" no.such
check "a missing table is NOT_FOUND" grep -q 'NOT_FOUND' "$tmp/err"
expect 1 env BASALT_FLIGHT_TOKEN=wrong "$basalt" flight list "$url"
check "a wrong token is refused" grep -q 'AUTH' "$tmp/err"
expect 1 "$basalt" flight list grpc://127.0.0.1:1
check "a closed port is an IO error" grep -q 'IO' "$tmp/err"
expect 0 "$basalt" flight actions "$url"
check "the server still serves" grep -q '^tables:' "$tmp/out"
check "the server never crashed" kill -0 "$server"

# Every table of the Iceberg corpus (its current metadata, testdata/iceberg/
# TABLES.tsv), registered in the served catalog: DoGet of the whole table
# equals the local scan of the same catalog entry, row for row.
compared=0
while IFS=$'\t' read -r dir meta _; do
  name=corpus.t$compared
  "$basalt" iceberg register "$name" "$testdata/iceberg/$dir/$meta" --catalog "$cat" >/dev/null 2>&1 ||
    { echo "FAIL: cannot register $dir"; failures=$((failures + 1)); continue; }
  "$basalt" iceberg scan "$name" --catalog "$cat" --format csv 2>"$tmp/scan.err" | sort >"$tmp/local.csv"
  local_rc=${PIPESTATUS[0]}
  "$basalt" flight get "$url" "$name" --format csv 2>"$tmp/get.err" | sort >"$tmp/flight.csv"
  flight_rc=${PIPESTATUS[0]}
  checks=$((checks + 1))
  if [ "$local_rc" != "$flight_rc" ] || ! cmp -s "$tmp/local.csv" "$tmp/flight.csv"; then
    echo "FAIL: $dir/$meta: the local scan (exit $local_rc, $(wc -l <"$tmp/local.csv") lines) and DoGet (exit $flight_rc, $(wc -l <"$tmp/flight.csv") lines) differ"
    head -2 "$tmp/scan.err" "$tmp/get.err"
    failures=$((failures + 1))
  fi
  compared=$((compared + 1))
done < <(awk -F'\t' 'NR > 1 { last[$1] = $2 } END { for (d in last) print d "\t" last[d] }' \
           "$testdata/iceberg/TABLES.tsv" | sort)
check "every corpus table compared ($compared)" test "$compared" -ge 10

# TLS: a certificate for 127.0.0.1 made here; grpc-js and basalt's client
# check it against that CA, and refuse the server without it.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
  -subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' 2>/dev/null
env -u BASALT_FLIGHT_TOKEN "$basalt" flight serve --catalog "$cat" --port 0 --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem" \
  >"$tmp/tls.out" 2>"$tmp/tls.err" &
tls_server=$!
trap 'kill $server $tls_server 2>/dev/null; wait $server $tls_server 2>/dev/null; [ -n "${BASALT_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
for _ in $(seq 50); do grep -q listening "$tmp/tls.out" && break; sleep 0.1; done
tport=$(sed -n 's/^listening on grpc+tls:\/\/127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/tls.out")
check "the TLS server says where it listens" test -n "$tport"
expect 0 "$basalt" flight get "grpc+tls://localhost:$tport" taxi.trips_mor --summary --tls-ca "$tmp/cert.pem"
check "basalt's client reads over TLS" grep -q "^rows $((rows - zone)), " "$tmp/out"
expect 1 "$basalt" flight list "grpc+tls://localhost:$tport"
check "an unknown CA is refused" grep -q 'self-signed certificate' "$tmp/err"
expect 1 "$basalt" flight list "grpc://127.0.0.1:$tport"
(cd "$root" && node tests/cli/flight_peers.mjs tls "localhost:$tport" "$tmp/cert.pem" taxi.trips_mor) \
  >"$tmp/out" 2>&1
check "grpc-js reads over TLS" grep -q "^rows $((rows - zone)) over TLS" "$tmp/out" || cat "$tmp/out"
finish
