# Helpers for the io_store_*.sh and io_faults.sh cases: finding
# tests/tools/store_check and folding its "ok:"/"FAIL:" lines into lib.bash's
# counts. Source after lib.bash.

# The store_check binary: $STORE_CHECK, or beside the basalt binary's build
# tree (cases run as `bash case.sh BUILD/tools/basalt/basalt`), or build/ in
# the repository.
find_store_check() {
  local c repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  for c in "${STORE_CHECK:-}" "$(dirname "$basalt")/../../tests/tools/store_check" \
           "$repo/build/tests/tools/store_check"; do
    # Absolute: cases may cd elsewhere.
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$(cd "$(dirname "$c")" && pwd)/$(basename "$c")"; return 0; fi
  done
  echo "store_check is not built (cmake --build BUILD --target store_check) and STORE_CHECK is unset" >&2
  return 1
}
store_check=$(find_store_check) || { echo "FAIL: store_check missing"; exit 1; }

# run_store_check NAME LIMIT_S ARGS...: runs store_check under a deadline,
# shows its output indented, and counts each of its ok/FAIL lines as a check.
# Its output stays in $tmp/NAME.log.
run_store_check() {
  local name=$1 limit=$2; shift 2
  local log=$tmp/$name.log rc ok bad
  echo "== $name: store_check $*" | sed -E 's/(sig=|--sas )[^ &]*/\1<hidden>/g'
  timeout -k 5 "$limit" "$store_check" "$@" >"$log" 2>&1
  rc=$?
  sed 's/^/  /' "$log"
  ok=$(grep -c '^ok: ' "$log")
  bad=$(grep -c '^FAIL: ' "$log")
  checks=$((checks + ok + bad))
  failures=$((failures + bad))
  check "$name: store_check exited 0 (got $rc${bad:+, $bad FAIL lines}; 124 = timed out)" test "$rc" = 0
}
