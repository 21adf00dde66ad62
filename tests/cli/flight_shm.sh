#!/usr/bin/env bash
# basalt flight shm-serve / shm-get, two processes on one machine: the rows a
# consumer gets through shared memory are the source file's (compared with
# the CSV awk wrote); kill -9 of the producer mid-transfer makes the consumer
# fail with one clear line (exit 1, no crash); kill -9 of a consumer
# mid-transfer makes the producer log the failure and serve the next
# consumer. Each time the survivor holds no memory file afterwards
# (/proc/PID/fd, readlink "/memfd:...") though it held one before, and
# /dev/shm is as it was.
set -euo pipefail
basalt=$1
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log; do echo "== $f"; tail -5 "$f"; done
  exit 1
}

# The transport's memory files held open by process $1.
memfds() {
  local n=0 l
  for l in /proc/"$1"/fd/*; do
    case $(readlink "$l" 2>/dev/null) in /memfd:basalt-flight-shm*) n=$((n + 1)) ;; esac
  done
  echo $n
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds.
wait_for() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.05
  done
}
memfds_are() { [ "$(memfds "$1")" = "$2" ]; }
# What /dev/shm holds that could be ours (other programs of a parallel test
# run, PostgreSQL for one, add and remove their own entries meanwhile).
shm_list() { ls -A /dev/shm 2> /dev/null | grep -i basalt | sort || true; }

awk 'BEGIN { print "a,b,s"; for (i = 0; i < 2000000; i++) printf "%d,%d,x%d\n", i, i * 3 - 7, i % 1000 }' \
  > "$tmp/t.csv"
rows=$(($(wc -l < "$tmp/t.csv") - 1))
sock=$tmp/s.sock
shm_before=$(shm_list)

start_server() { # start_server LOG
  "$basalt" flight shm-serve --socket "$sock" --root "$tmp" --batch-rows 500 2> "$tmp/$1" &
  server=$!
  pids+=("$server")
  wait_for 20 grep -q "listening on" "$tmp/$1" || fail "the server did not start"
}

# 4000 and more batches of at most 500 rows; the consumer stops reading after batch 3
# (SIGSTOP), so the producer is mid-stream, blocked on a full socket.
start_consumer() { # start_consumer NAME
  "$basalt" flight shm-get --socket "$sock" --ticket t.csv --count --progress \
    > "$tmp/$1.out" 2> "$tmp/$1.log" &
  consumer=$!
  pids+=("$consumer")
  wait_for 30 grep -q "^batch 3:" "$tmp/$1.log" || fail "$1: no batch 3"
  kill -STOP "$consumer"
  wait_for 10 memfds_are "$server" 1 || fail "$1: the producer holds no memory file mid-stream"
  memfds_are "$consumer" 1 || fail "$1: the consumer holds no memory file mid-stream"
}

# --- the values, and the usage errors
start_server serve1.log
"$basalt" flight shm-get --socket "$sock" --ticket t.csv --format csv > "$tmp/out.csv"
cmp -s "$tmp/out.csv" "$tmp/t.csv" || fail "rows through shared memory differ from the file"
"$basalt" flight shm-get --socket "$sock" --ticket t.csv --count > "$tmp/count.out"
grep -q "^rows: $rows\$" "$tmp/count.out" || fail "count: $(cat "$tmp/count.out")"
batches=$(sed -n 's/^batches: //p' "$tmp/count.out")
[ "$batches" -ge 4000 ] || fail "batches: $batches" # 500 rows at most each
grep -q "^copied buffers: 0\$" "$tmp/count.out" || fail "buffers were copied"
set +e
"$basalt" flight shm-get --socket "$sock" --ticket ../t.csv 2> "$tmp/bad.err"
rc=$?
"$basalt" flight shm-get --socket "$sock" 2> /dev/null
rc2=$?
set -e
[ $rc = 1 ] && grep -q "INVALID_ARG: .*producer: a ticket is a relative path" "$tmp/bad.err" \
  || fail "a ticket outside the root: rc $rc, $(cat "$tmp/bad.err")"
[ $rc2 = 2 ] || fail "usage error exit $rc2"

# --- kill -9 of the producer mid-transfer
start_consumer get1
kill -9 "$server"
wait "$server" 2> /dev/null || true
kill -CONT "$consumer"
set +e
wait "$consumer"
rc=$?
set -e
[ $rc = 1 ] || fail "the consumer of a dead producer exited $rc"
last=$(tail -1 "$tmp/get1.log")
case $last in
  "basalt: IO: flight shm $sock: the producer closed the connection before the end of the stream"*) ;;
  *) fail "consumer message: $last" ;;
esac
[ "$(shm_list)" = "$shm_before" ] || fail "/dev/shm changed"
[ -S "$sock" ] || fail "the dead producer's socket file is gone?"

# --- kill -9 of a consumer mid-transfer; a new server replaces the stale socket
start_server serve2.log
start_consumer get2
kill -9 "$consumer"
wait "$consumer" 2> /dev/null || true
wait_for 20 grep -q "IO: .*the consumer went away" "$tmp/serve2.log" \
  || fail "the producer logged no failure"
wait_for 10 memfds_are "$server" 0 || fail "the producer still holds a memory file"
kill -0 "$server" || fail "the producer died"
"$basalt" flight shm-get --socket "$sock" --ticket t.csv --format csv > "$tmp/out2.csv"
cmp -s "$tmp/out2.csv" "$tmp/t.csv" || fail "the next consumer's rows differ"
memfds_are "$server" 0 || fail "the producer holds a memory file after serving"
kill -TERM "$server"
wait "$server" || fail "the producer exited $? on SIGTERM"
[ ! -e "$sock" ] || fail "the socket file is left"
[ "$(shm_list)" = "$shm_before" ] || fail "/dev/shm changed"
# --- an Iceberg table served by `flight serve --shm-socket`: each endpoint's
# ticket through shared memory gives the table's rows, and the fixed-width
# columns were decoded straight into the memory files (the server's counters
# at exit), where a consumer reads them without copying.
wh=$tmp/wh
mkdir -p "$wh"
cat="--catalog sqlite:$wh/catalog.db --warehouse $wh"
for f in 0 1; do
  "$basalt" sql "COPY (SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE i * 0.5 END AS x,
                 'v' || (i % 13) AS s FROM range($((f * 150000)), $(((f + 1) * 150000))) t(i))
                 TO '$tmp/p$f.parquet'" > /dev/null
done
"$basalt" iceberg create db.t --like "$tmp/p0.parquet" $cat > /dev/null
"$basalt" iceberg append db.t "$tmp/p0.parquet" $cat > /dev/null
"$basalt" iceberg append db.t "$tmp/p1.parquet" $cat > /dev/null
fsock=$tmp/f.sock
"$basalt" flight serve $cat --port 0 --shm-socket "$fsock" --shm-decode-in-place --verbose \
  > "$tmp/fserve.out" 2> "$tmp/fserve.log" &
fserver=$!
pids+=("$fserver")
wait_for 20 grep -q "^listening on" "$tmp/fserve.out" || fail "flight serve did not start"
uri=$(sed -n 's/^listening on //p' "$tmp/fserve.out")
"$basalt" flight info "$uri" db.t > "$tmp/info.out"
: > "$tmp/shm_rows.csv"
n=0
args=()
while IFS= read -r ticket; do
  "$basalt" flight shm-get --socket "$fsock" --ticket "$ticket" --format csv | tail -n +2 \
    >> "$tmp/shm_rows.csv"
  "$basalt" flight shm-get --socket "$fsock" --ticket "$ticket" --count > "$tmp/fcount.out"
  grep -q "^copied buffers: 0\$" "$tmp/fcount.out" || fail "the consumer copied buffers"
  args+=(--ticket "$ticket")
  n=$((n + 1))
done < <(sed -n 's/^  endpoint [0-9]*: \({.*}\)$/\1/p' "$tmp/info.out")
[ $n -ge 2 ] || fail "flight info gave $n endpoints: $(cat "$tmp/info.out")"
# Every endpoint again, twice over, in one session: one connection and one
# memory file for all of them.
"$basalt" flight shm-get --socket "$fsock" "${args[@]}" "${args[@]}" --format csv | tail -n +2 \
  | sort > "$tmp/session_rows.csv"
"$basalt" sql --catalog "sqlite:$wh/catalog.db" --format csv "SELECT id, x, s FROM db.t" | tail -n +2 | sort > "$tmp/want.csv"
sort -o "$tmp/shm_rows.csv" "$tmp/shm_rows.csv"
[ "$(wc -l < "$tmp/want.csv")" = 300000 ] || fail "the table has $(wc -l < "$tmp/want.csv") rows"
cmp -s "$tmp/shm_rows.csv" "$tmp/want.csv" || fail "the table's rows through shared memory differ"
sort "$tmp/want.csv" "$tmp/want.csv" | cmp -s - "$tmp/session_rows.csv" \
  || fail "the rows of a session differ"
kill -TERM "$fserver"
wait "$fserver" || fail "flight serve exited $? on SIGTERM"
line=$(grep "flight serve: shm:" "$tmp/fserve.log") || fail "no shm counters: $(cat "$tmp/fserve.log")"
in_place=$(sed -n 's/.* \([0-9]*\) bytes decoded in place.*/\1/p' <<< "$line")
streams=$(sed -n 's/.*shm: \([0-9]*\) streams.*/\1/p' <<< "$line")
[ "$streams" = $((4 * n)) ] || fail "streams served: $line"
# Each of the 4n streams read id's and x's values (8 bytes a row) and x's
# validity where it was decoded: at least 4 * 300000 * 16 bytes in place.
[ "${in_place:-0}" -ge $((4 * 300000 * 16)) ] || fail "decoded in place: $line"
echo "$line"
echo "ok: flight shm"
