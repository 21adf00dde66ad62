# Servers for tests: moto (S3 with SigV4 checks), azurite (Azure Blob with
# Shared Key checks), nginx (plain HTTP with ranges), an HTTPS server with
# HTTP/2 (tests/servers/tls_server.mjs), PostgreSQL (catalogs),
# basalt's own REST catalog server, a minimal Iceberg REST catalog
# (tests/catalog/mini_rest_server.py), moto for the Glue and S3 Tables
# catalogs (tests/catalog/moto_catalog_server.py), and fault_proxy
# (tests/tools/fault_proxy.c) in front of any of them. Source it
# from a CLI case (after tests/cli/lib.bash, or alone):
#
#   source "$(dirname "$0")/../servers/servers.bash"
#   start_moto; start_azurite; start_nginx DIR; start_fault_proxy PORT --truncate 1
#
# Everything listens on 127.0.0.1 on a port the kernel picked, in its own
# process group; the first start_* installs stop_servers as an EXIT trap
# (keeping a trap already set, such as lib.bash's), so no process outlives
# the test. Readiness is polled against a deadline ($SERVER_START_TIMEOUT s,
# default 60), never waited for with a fixed sleep. Every server's logs go
# to $SERVER_LOG_DIR (default: a temporary directory, removed at exit unless
# a check failed), and nothing secret is written there, so a test may grep
# all of $SERVER_LOG_DIR/* for a secret.

servers_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
servers_repo=$(cd "$servers_dir/../.." && pwd)
SERVER_START_TIMEOUT=${SERVER_START_TIMEOUT:-60}
if [ -z "${SERVER_LOG_DIR:-}" ]; then
  SERVER_LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/basalt-servers.XXXXXX")
  _servers_own_log_dir=1
else
  mkdir -p "$SERVER_LOG_DIR"
  _servers_own_log_dir=0
fi
export SERVER_LOG_DIR
# Scratch (configs, azurite's workspace, nginx's temp files): never logs.
_servers_scratch=$(mktemp -d "${TMPDIR:-/tmp}/basalt-servers-run.XXXXXX")
_servers_pids=()     # process-group leaders, in start order
_servers_names=()
_servers_trap_set=0
_servers_prev_exit=""
_servers_proxy_count=0

servers_log() { echo "servers: $*" >&2; }

# free_port: prints a TCP port on 127.0.0.1 that the kernel reports free. A
# server started on it right after rarely loses it; its start then fails
# clearly.
free_port() {
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  "$py" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

_servers_install_trap() {
  [ "$_servers_trap_set" = 1 ] && return 0
  _servers_trap_set=1
  local prev
  prev=$(trap -p EXIT)
  if [ -n "$prev" ]; then
    prev=${prev#trap -- }
    prev=${prev% EXIT}
    eval "_servers_prev_exit=$prev"
  fi
  trap '_servers_on_exit' EXIT
  # A signal ends the test through the EXIT trap as well.
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

_servers_on_exit() {
  local rc=$?
  stop_servers
  if [ -n "$_servers_prev_exit" ]; then eval "$_servers_prev_exit"; fi
  exit "$rc"
}

# _servers_spawn NAME LOGFILE CMD...: starts CMD in a process group of its
# own (setsid execs in place, so $! is the group), output to LOGFILE.
_servers_spawn() {
  local name=$1 log=$2; shift 2
  _servers_install_trap
  setsid "$@" >"$log" 2>&1 </dev/null &
  _servers_last_pid=$!
  _servers_pids+=("$_servers_last_pid")
  _servers_names+=("$name")
}

# _servers_wait_until PID WHAT CMD...: polls CMD every 0.1 s until it
# succeeds, the process PID dies, or the deadline passes.
_servers_wait_until() {
  local pid=$1 what=$2; shift 2
  local deadline=$((SECONDS + SERVER_START_TIMEOUT))
  while ! "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      servers_log "$what: the process exited before it was ready"
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      servers_log "$what: not ready after ${SERVER_START_TIMEOUT} s"
      return 1
    fi
    sleep 0.1
  done
}

_servers_http_answers() { # URL: any HTTP status at all means the server is listening
  local code
  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$1")
  [ -n "$code" ] && [ "$code" != 000 ]
}

_servers_show_log() {
  servers_log "last lines of $1:"
  tail -n 20 "$1" 2>/dev/null | sed 's/^/  | /' >&2
}

# _servers_stop_pid PID: TERM to the whole group, then KILL after 10 s.
# Every step may fail (the process gone, its status non-zero) without
# stopping the caller: a script under `set -e` (bench/objectstore.sh) runs
# this from its EXIT trap, where a failing `wait` once ended the trap before
# the other servers were stopped, leaving moto_server running.
_servers_stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
    # A stopped child stays a zombie until waited for; kill -0 sees it.
    if [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ]; then break; fi
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" != Z ]; then
    servers_log "pid $pid ignored SIGTERM for 10 s: SIGKILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  # Anything left in the group (a child that outlived its parent).
  kill -KILL -- "-$pid" 2>/dev/null || true
  return 0
}

# ---------------------------------------------------------------- moto (S3)

# start_moto: moto_server with SigV4 verification on after its first three
# actions, which create an IAM user, its access key and an allow-all policy
# (tests/servers/moto_setup.py); then a request with a wrong secret must be
# refused and one with the right secret creates the bucket $S3_BUCKET.
# Exports S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION,
# S3_BUCKET, MOTO_PORT, MOTO_PID, and MOTO_WRONG_SECRET_CODE (what moto
# answered the wrong secret: SignatureDoesNotMatch).
start_moto() {
  command -v moto_server >/dev/null || { servers_log "moto_server is not on PATH"; return 1; }
  local port log=$SERVER_LOG_DIR/moto.log
  port=$(free_port) || return 1
  INITIAL_NO_AUTH_ACTION_COUNT=3 _servers_spawn moto "$log" moto_server -H 127.0.0.1 -p "$port"
  MOTO_PID=$_servers_last_pid
  # /moto-api/ is not an action: polling it does not spend the three.
  if ! _servers_wait_until "$MOTO_PID" moto _servers_http_answers "http://127.0.0.1:$port/moto-api/"; then
    _servers_show_log "$log"; return 1
  fi
  local creds
  S3_BUCKET=${S3_BUCKET:-basalt-test}
  if ! creds=$(python3 "$servers_dir/moto_setup.py" "http://127.0.0.1:$port" "$S3_BUCKET" 2>>"$log"); then
    _servers_show_log "$log"; return 1
  fi
  read -r S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY MOTO_WRONG_SECRET_CODE <<<"$creds"
  S3_ENDPOINT=http://127.0.0.1:$port
  S3_REGION=us-east-1
  MOTO_PORT=$port
  export S3_ENDPOINT S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY S3_REGION S3_BUCKET MOTO_PORT MOTO_PID \
    MOTO_WRONG_SECRET_CODE
  servers_log "moto on $S3_ENDPOINT (SigV4 on; a wrong secret got $MOTO_WRONG_SECRET_CODE)"
}

# start_moto_noauth: a second moto_server with signature checks off (every
# request is accepted, however it is signed), for what moto 5.2.1 cannot
# check with them on: it refuses (SignatureDoesNotMatch) a correctly signed
# request whose query has a value holding '/' (ListObjectsV2 with
# delimiter=/ or prefix=dir/; boto3 gets the same refusal), and answers 500
# to any presigned URL. Creates the bucket $S3_NOAUTH_BUCKET (default
# basalt-test). Exports S3_NOAUTH_ENDPOINT, S3_NOAUTH_BUCKET,
# MOTO_NOAUTH_PORT, MOTO_NOAUTH_PID.
start_moto_noauth() {
  command -v moto_server >/dev/null || { servers_log "moto_server is not on PATH"; return 1; }
  local port log=$SERVER_LOG_DIR/moto-noauth.log
  port=$(free_port) || return 1
  _servers_spawn moto-noauth "$log" env -u INITIAL_NO_AUTH_ACTION_COUNT moto_server -H 127.0.0.1 -p "$port"
  MOTO_NOAUTH_PID=$_servers_last_pid
  if ! _servers_wait_until "$MOTO_NOAUTH_PID" moto-noauth _servers_http_answers "http://127.0.0.1:$port/moto-api/"; then
    _servers_show_log "$log"; return 1
  fi
  S3_NOAUTH_BUCKET=${S3_NOAUTH_BUCKET:-basalt-test}
  # Any key is accepted: a fixed dummy one, nothing secret.
  if ! curl -sS -f -m 30 -o /dev/null -X PUT "http://127.0.0.1:$port/$S3_NOAUTH_BUCKET" 2>>"$log"; then
    servers_log "moto-noauth: creating the bucket failed"; _servers_show_log "$log"; return 1
  fi
  S3_NOAUTH_ENDPOINT=http://127.0.0.1:$port
  MOTO_NOAUTH_PORT=$port
  export S3_NOAUTH_ENDPOINT S3_NOAUTH_BUCKET MOTO_NOAUTH_PORT MOTO_NOAUTH_PID
  servers_log "moto (signature checks off) on $S3_NOAUTH_ENDPOINT"
}

# ---------------------------------------------------------- azurite (Blob)

# start_azurite: azurite-blob from node_modules (package.json), in memory,
# with Shared Key checks on (no --loose, no --skipApiVersionCheck). Proves
# a request signed with a wrong key gets 403 and one with the right key
# creates the container $AZURE_CONTAINER. Exports AZURE_BLOB_ENDPOINT
# (http://127.0.0.1:PORT/devstoreaccount1), AZURE_STORAGE_ACCOUNT,
# AZURE_STORAGE_KEY (the emulator's well-known key),
# AZURE_STORAGE_CONNECTION_STRING, AZURE_CONTAINER, AZURITE_PORT,
# AZURITE_PID, AZURITE_WRONG_KEY_CODE.
start_azurite() {
  local bin=$servers_repo/node_modules/.bin/azurite-blob
  [ -x "$bin" ] || { servers_log "$bin is missing: run scripts/setup"; return 1; }
  local port log=$SERVER_LOG_DIR/azurite.log work=$_servers_scratch/azurite
  mkdir -p "$work"
  port=$(free_port) || return 1
  # In memory (which excludes --location); run in scratch in case it writes anything.
  _servers_spawn azurite "$log" env -C "$work" "$bin" --blobHost 127.0.0.1 --blobPort "$port" \
    --inMemoryPersistence --disableTelemetry
  AZURITE_PID=$_servers_last_pid
  if ! _servers_wait_until "$AZURITE_PID" azurite _servers_http_answers \
      "http://127.0.0.1:$port/devstoreaccount1?comp=list"; then
    _servers_show_log "$log"; return 1
  fi
  AZURE_STORAGE_ACCOUNT=devstoreaccount1
  AZURE_STORAGE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
  AZURE_BLOB_ENDPOINT=http://127.0.0.1:$port/devstoreaccount1
  AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$AZURE_STORAGE_ACCOUNT;AccountKey=$AZURE_STORAGE_KEY;BlobEndpoint=$AZURE_BLOB_ENDPOINT;"
  AZURE_CONTAINER=${AZURE_CONTAINER:-basalt-test}
  AZURITE_PORT=$port
  export AZURE_STORAGE_ACCOUNT AZURE_STORAGE_KEY AZURE_BLOB_ENDPOINT AZURE_STORAGE_CONNECTION_STRING \
    AZURE_CONTAINER AZURITE_PORT AZURITE_PID
  local wrong got
  # The same length of key, other bytes.
  wrong=$(printf '%s' "$AZURE_STORAGE_KEY" | tr 'A-Za-z' 'N-ZA-Mn-za-m')
  got=$(node "$servers_dir/azure_blob.mjs" GET '?comp=list' --key "$wrong")
  AZURITE_WRONG_KEY_CODE=${got#* }
  export AZURITE_WRONG_KEY_CODE
  if [ "${got%% *}" != 403 ]; then
    servers_log "azurite: a request signed with a wrong key got '$got', not 403: Shared Key checks are off"
    return 1
  fi
  got=$(node "$servers_dir/azure_blob.mjs" PUT "$AZURE_CONTAINER?restype=container")
  if [ "${got%% *}" != 201 ]; then
    servers_log "azurite: creating the container with the right key got '$got', not 201"
    _servers_show_log "$log"; return 1
  fi
  servers_log "azurite on $AZURE_BLOB_ENDPOINT (Shared Key on; a wrong key got 403 $AZURITE_WRONG_KEY_CODE)"
}

# ------------------------------------------------------------ nginx (HTTP)

# start_nginx DIR: nginx as the current user with a temporary config,
# serving DIR read-only on 127.0.0.1 (range requests, keep-alive). Exports
# HTTP_ENDPOINT (http://127.0.0.1:PORT), NGINX_PORT, NGINX_PID.
start_nginx() {
  local root=${1:?start_nginx DIR}
  local bin
  bin=$(command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; })
  [ -n "$bin" ] || { servers_log "nginx is missing: run scripts/setup"; return 1; }
  root=$(cd "$root" && pwd) || return 1
  local port prefix=$_servers_scratch/nginx log=$SERVER_LOG_DIR/nginx-error.log
  mkdir -p "$prefix/tmp"
  port=$(free_port) || return 1
  # master_process off: one process as the current user, no worker that
  # would switch to another user or outlive a killed master.
  cat >"$prefix/nginx.conf" <<EOF
daemon off;
master_process off;
pid $prefix/nginx.pid;
error_log $log info;
events { worker_connections 256; }
http {
  access_log $SERVER_LOG_DIR/nginx-access.log;
  client_body_temp_path $prefix/tmp/body;
  proxy_temp_path $prefix/tmp/proxy;
  fastcgi_temp_path $prefix/tmp/fastcgi;
  uwsgi_temp_path $prefix/tmp/uwsgi;
  scgi_temp_path $prefix/tmp/scgi;
  default_type application/octet-stream;
  sendfile on;
  keepalive_requests 10000;
  server {
    listen 127.0.0.1:$port;
    root $root;
    location / { }
  }
}
EOF
  _servers_spawn nginx "$SERVER_LOG_DIR/nginx.out" "$bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$log"
  NGINX_PID=$_servers_last_pid
  if ! _servers_wait_until "$NGINX_PID" nginx _servers_http_answers "http://127.0.0.1:$port/"; then
    _servers_show_log "$log"; _servers_show_log "$SERVER_LOG_DIR/nginx.out"; return 1
  fi
  HTTP_ENDPOINT=http://127.0.0.1:$port
  NGINX_PORT=$port
  export HTTP_ENDPOINT NGINX_PORT NGINX_PID
  servers_log "nginx on $HTTP_ENDPOINT serving $root"
}

# ------------------------------------------------------ HTTPS (HTTP/2)

_servers_tls_count=0

# start_tls_server DIR CERT KEY: tests/servers/tls_server.mjs, node's http2
# server with HTTP/1.1 allowed (ALPN chooses), serving DIR read-only over
# TLS with the certificate CERT and its key KEY (ranges, ETag, If-Match) on
# 127.0.0.1, on a port the kernel picked. Each request is one JSON line in
# TLS_SERVER_LOG, with the httpVersion the client spoke. Exports
# TLS_SERVER_PORT, TLS_SERVER_PID, TLS_SERVER_LOG. Several may run at once.
start_tls_server() {
  local root=${1:?start_tls_server DIR CERT KEY} cert=${2:?} key=${3:?}
  command -v node >/dev/null || { servers_log "node is not on PATH"; return 1; }
  _servers_tls_count=$((_servers_tls_count + 1))
  local n=$_servers_tls_count
  local out=$SERVER_LOG_DIR/tls-server-$n.out
  TLS_SERVER_LOG=$SERVER_LOG_DIR/tls-server-$n.requests
  : >"$TLS_SERVER_LOG"
  _servers_spawn "tls-server-$n" "$out" node "$servers_dir/tls_server.mjs" --port 0 \
    --cert "$cert" --key "$key" --root "$root" --log "$TLS_SERVER_LOG"
  TLS_SERVER_PID=$_servers_last_pid
  if ! _servers_wait_until "$TLS_SERVER_PID" "tls server" grep -q '^listening [0-9]' "$out"; then
    _servers_show_log "$out"; return 1
  fi
  TLS_SERVER_PORT=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$out" | head -n 1)
  export TLS_SERVER_PORT TLS_SERVER_PID TLS_SERVER_LOG
  servers_log "https (HTTP/2 and 1.1) on 127.0.0.1:$TLS_SERVER_PORT serving $root"
}

# ------------------------------------------------------------- PostgreSQL

# start_postgres: a throwaway PostgreSQL server (initdb in the scratch
# directory, trust authentication for user "basalt", fsync off) on
# 127.0.0.1. PostgreSQL refuses to run as root, so as root it runs as the
# "postgres" user the Debian package creates. Exports POSTGRES_URI
# (postgresql://basalt@127.0.0.1:PORT/postgres), POSTGRES_PORT and
# POSTGRES_PID.
start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$bin" ] && [ -x "$bin/initdb" ] || { servers_log "PostgreSQL is missing: run scripts/setup"; return 1; }
  local dir=$_servers_scratch/postgres log=$SERVER_LOG_DIR/postgres.log
  mkdir -p "$dir/sock"
  local run=()
  if [ "$(id -u)" = 0 ]; then
    chmod 755 "$_servers_scratch"
    chown -R postgres "$dir"
    run=(runuser -u postgres --)
  fi
  if ! "${run[@]}" "$bin/initdb" -D "$dir/data" -U basalt --auth=trust -E UTF8 --no-sync \
      >"$SERVER_LOG_DIR/initdb.log" 2>&1; then
    _servers_show_log "$SERVER_LOG_DIR/initdb.log"; return 1
  fi
  local port
  port=$(free_port) || return 1
  _servers_spawn postgres "$log" "${run[@]}" "$bin/postgres" -D "$dir/data" -h 127.0.0.1 \
    -p "$port" -k "$dir/sock" -c fsync=off -c max_connections=200
  POSTGRES_PID=$_servers_last_pid
  if ! _servers_wait_until "$POSTGRES_PID" postgres "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
    _servers_show_log "$log"; return 1
  fi
  POSTGRES_PORT=$port
  POSTGRES_URI=postgresql://basalt@127.0.0.1:$port/postgres
  export POSTGRES_URI POSTGRES_PORT POSTGRES_PID
  servers_log "postgres on 127.0.0.1:$port"
}

# ------------------------------------------------------------- fault_proxy

# The fault_proxy binary: $FAULT_PROXY, or beside the basalt binary's build
# tree (tests are run as `bash case.sh BUILD/tools/basalt/basalt`), or
# build/ in the repository.
_servers_find_fault_proxy() {
  local c
  for c in "${FAULT_PROXY:-}" \
           ${basalt:+"$(dirname "$basalt")/../../tests/tools/fault_proxy"} \
           "$servers_repo/build/tests/tools/fault_proxy"; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
  done
  servers_log "fault_proxy is not built (cmake --build BUILD --target fault_proxy) and FAULT_PROXY is unset"
  return 1
}

# start_fault_proxy UPSTREAM_PORT [FLAGS...]: tests/tools/fault_proxy in
# front of 127.0.0.1:UPSTREAM_PORT, with fault_proxy's flags (--status-503 P,
# --slowdown P, --error-500 P, --reset-mid-body P, --truncate P, --stall P,
# --stall-ms MS, --latency-ms MS, --max-faults N, --seed N, --only-method M,
# --only-path-substring S). Exports PROXY_ENDPOINT (http://127.0.0.1:PORT),
# PROXY_PORT, PROXY_PID and PROXY_STATS (the JSON file its counters go to
# when it stops). Several may run at once.
start_fault_proxy() {
  local upstream=${1:?start_fault_proxy UPSTREAM_PORT [flags]}; shift
  local bin
  bin=$(_servers_find_fault_proxy) || return 1
  _servers_proxy_count=$((_servers_proxy_count + 1))
  local n=$_servers_proxy_count
  local out=$SERVER_LOG_DIR/fault_proxy-$n.out
  PROXY_STATS=$SERVER_LOG_DIR/fault_proxy-$n.json
  rm -f "$PROXY_STATS"
  _servers_spawn "fault_proxy-$n" "$out" "$bin" --stats "$PROXY_STATS" "$@" "127.0.0.1:$upstream"
  PROXY_PID=$_servers_last_pid
  if ! _servers_wait_until "$PROXY_PID" fault_proxy grep -q '^listening [0-9]' "$out"; then
    _servers_show_log "$out"; return 1
  fi
  PROXY_PORT=$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$out" | head -n 1)
  PROXY_ENDPOINT=http://127.0.0.1:$PROXY_PORT
  export PROXY_ENDPOINT PROXY_PORT PROXY_PID PROXY_STATS
}

# stop_fault_proxy [PID]: stops a proxy (default: the last one started) and
# sets PROXY_SUMMARY to its one-line summary; its counters are in the JSON
# file that was $PROXY_STATS when it started.
stop_fault_proxy() {
  local pid=${1:-$PROXY_PID} i
  PROXY_SUMMARY=""
  for i in "${!_servers_pids[@]}"; do
    if [ "${_servers_pids[$i]}" = "$pid" ]; then
      _servers_stop_pid "$pid"
      PROXY_SUMMARY=$(grep '^fault_proxy: ' "$SERVER_LOG_DIR/${_servers_names[$i]}.out" | tail -n 1) || true
      unset '_servers_pids[i]' '_servers_names[i]'
      return 0
    fi
  done
  servers_log "stop_fault_proxy: $pid is not a running proxy"
  return 1
}

# proxy_stat FILE KEY: one counter from a proxy's JSON stats (faults.KIND for
# the faults by kind).
proxy_stat() {
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  "$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"
}

# ------------------------------------------------- basalt catalog serve

_servers_catalog_count=0

# start_basalt_catalog BASALT [ARGS...]: `BASALT catalog serve --port 0 ARGS`
# (ARGS name the catalog, and --token, --prefix... as wanted), ready once it
# printed the URL it listens on. Exports BASALT_CATALOG_URL
# (http://127.0.0.1:PORT), BASALT_CATALOG_PORT, BASALT_CATALOG_PID and
# BASALT_CATALOG_LOG (its stdout and stderr). Several may run at once.
start_basalt_catalog() {
  local bin=${1:?start_basalt_catalog BASALT [args]}; shift
  _servers_catalog_count=$((_servers_catalog_count + 1))
  local log=$SERVER_LOG_DIR/basalt-catalog-$_servers_catalog_count.log
  _servers_spawn "basalt-catalog-$_servers_catalog_count" "$log" "$bin" catalog serve --port 0 "$@"
  BASALT_CATALOG_PID=$_servers_last_pid
  if ! _servers_wait_until "$BASALT_CATALOG_PID" "basalt catalog serve" \
      grep -q '^listening on http://' "$log"; then
    _servers_show_log "$log"; return 1
  fi
  BASALT_CATALOG_URL=$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)
  BASALT_CATALOG_PORT=${BASALT_CATALOG_URL##*:}
  BASALT_CATALOG_LOG=$log
  export BASALT_CATALOG_URL BASALT_CATALOG_PORT BASALT_CATALOG_PID BASALT_CATALOG_LOG
  servers_log "basalt catalog serve on $BASALT_CATALOG_URL"
}

# ------------------------------------------------ mini REST catalog (tests)

_servers_mini_rest_count=0

# start_mini_rest ARGS...: tests/catalog/mini_rest_server.py ARGS (a small
# Iceberg REST catalog written from the spec; --warehouse DIR at least, see
# its docstring), ready once it printed the URL it listens on. It runs on
# /usr/bin/python3, or on the python3 of PATH (with boto3) when ARGS hold
# --s3-endpoint. Exports MINI_REST_URL (http://127.0.0.1:PORT),
# MINI_REST_PORT, MINI_REST_PID and MINI_REST_LOG (its output; requests
# are logged there, never a secret). Several may run at once.
start_mini_rest() {
  local py=/usr/bin/python3 a
  [ -x "$py" ] || py=python3
  for a in "$@"; do [ "$a" = --s3-endpoint ] && py=python3; done
  _servers_mini_rest_count=$((_servers_mini_rest_count + 1))
  local log=$SERVER_LOG_DIR/mini-rest-$_servers_mini_rest_count.log
  _servers_spawn "mini-rest-$_servers_mini_rest_count" "$log" "$py" \
    "$servers_dir/../catalog/mini_rest_server.py" --port 0 "$@"
  MINI_REST_PID=$_servers_last_pid
  if ! _servers_wait_until "$MINI_REST_PID" "mini REST catalog" \
      grep -q '^listening on http://' "$log"; then
    _servers_show_log "$log"; return 1
  fi
  MINI_REST_URL=$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)
  MINI_REST_PORT=${MINI_REST_URL##*:}
  MINI_REST_LOG=$log
  export MINI_REST_URL MINI_REST_PORT MINI_REST_PID MINI_REST_LOG
  servers_log "mini REST catalog on $MINI_REST_URL"
}

# ------------------------------------------ moto for the AWS catalogs

_servers_moto_catalog_count=0

# start_moto_catalog [ARGS...]: tests/catalog/moto_catalog_server.py ARGS
# (moto's S3, Glue and S3 Tables in one server, Glue's UpdateTable checking
# VersionId; see its docstring) on the python3 of PATH, which has moto and
# boto3. Ready once it printed the URL it listens on. Exports
# MOTO_CATALOG_URL (http://127.0.0.1:PORT), MOTO_CATALOG_PORT,
# MOTO_CATALOG_PID and MOTO_CATALOG_LOG. Several may run at once.
start_moto_catalog() {
  _servers_moto_catalog_count=$((_servers_moto_catalog_count + 1))
  local log=$SERVER_LOG_DIR/moto-catalog-$_servers_moto_catalog_count.log
  _servers_spawn "moto-catalog-$_servers_moto_catalog_count" "$log" python3 \
    "$servers_dir/../catalog/moto_catalog_server.py" "$@"
  MOTO_CATALOG_PID=$_servers_last_pid
  if ! _servers_wait_until "$MOTO_CATALOG_PID" "moto (catalogs)" \
      grep -q '^listening on http://' "$log"; then
    _servers_show_log "$log"; return 1
  fi
  MOTO_CATALOG_URL=$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$log" | head -n 1)
  MOTO_CATALOG_PORT=${MOTO_CATALOG_URL##*:}
  MOTO_CATALOG_LOG=$log
  export MOTO_CATALOG_URL MOTO_CATALOG_PORT MOTO_CATALOG_PID MOTO_CATALOG_LOG
  servers_log "moto (S3, Glue, S3 Tables) on $MOTO_CATALOG_URL"
}

# ---------------------------------------------------------------- stopping

# stop_servers: stops every server and proxy started here, last first, and
# waits for each to exit; prints each proxy's summary line. Runs at exit.
stop_servers() {
  local i pid name
  local idx=("${!_servers_pids[@]}")
  for ((i = ${#idx[@]} - 1; i >= 0; i--)); do
    pid=${_servers_pids[${idx[$i]}]}
    name=${_servers_names[${idx[$i]}]}
    _servers_stop_pid "$pid"
    if [[ $name == fault_proxy-* ]]; then
      grep '^fault_proxy: ' "$SERVER_LOG_DIR/$name.out" | tail -n 1 | sed 's/^/servers: /' >&2 || true
    fi
  done
  _servers_pids=()
  _servers_names=()
  rm -rf "$_servers_scratch"
  if [ "$_servers_own_log_dir" = 1 ]; then
    if [ "${failures:-0}" -gt 0 ] || [ -n "${SERVER_KEEP_LOGS:-}" ]; then
      servers_log "logs kept in $SERVER_LOG_DIR"
    else
      rm -rf "$SERVER_LOG_DIR"
    fi
  fi
}
