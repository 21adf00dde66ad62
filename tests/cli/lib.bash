# Helpers for CLI cases (tests/cli/*.sh source this file). Each case runs with the basalt binary as $1.
set -uo pipefail
basalt=$1
failures=0
checks=0
tmp=$(mktemp -d)
trap '[ -n "${BASALT_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

# The third-party files the suite reads (testdata/SOURCES.md says where each
# set comes from). Missing data fails the case: it never passes on nothing.
testdata=${BASALT_TESTDATA_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/testdata}
if [ ! -f "$testdata/SOURCES.md" ]; then
  echo "FAIL: the test data is missing: $testdata/SOURCES.md does not exist"
  exit 1
fi

# expect STATUS CMD...: runs CMD, captures stdout/stderr in $tmp/out, $tmp/err.
expect() {
  local want=$1; shift
  checks=$((checks + 1))
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$*' exited $got, expected $want"; sed 's/^/  stderr: /' "$tmp/err" | head -5
    failures=$((failures + 1)); return 1
  fi
  return 0
}

# check DESCRIPTION COMMAND...: a shell condition that must hold.
check() {
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then echo "FAIL: $what (line ${BASH_LINENO[0]})"; failures=$((failures + 1)); return 1; fi
  return 0
}

one_line_stderr() { [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^basalt: ' "$tmp/err"; }

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
