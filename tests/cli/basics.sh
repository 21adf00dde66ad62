#!/usr/bin/env bash
# The CLI skeleton: help, version, dispatch, usage errors.
source "$(dirname "$0")/lib.bash"

expect 0 "$basalt" --help && check "--help lists groups" grep -q '^groups:' "$tmp/out"
expect 0 "$basalt" --version && check "--version prints the version" grep -Eq '^basalt [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out"
expect 2 "$basalt" && check "no arguments prints usage on stderr" grep -q usage "$tmp/err"
expect 2 "$basalt" frobnicate && check "unknown group: one line on stderr" one_line_stderr
expect 2 "$basalt" --bogus && check "unknown option: one line on stderr" one_line_stderr
check "unknown group names itself" grep -q -- "--bogus" "$tmp/err"
expect 0 "$basalt" info && check "info prints cpu features" grep -q '^cpu features: ' "$tmp/out"
expect 2 "$basalt" info extra && check "info with an argument is a usage error" one_line_stderr
expect 0 "$basalt" info --help
for group in codec hash; do
  expect 0 "$basalt" "$group" --help && check "$group --help lists verbs" grep -q 'verbs:' "$tmp/out"
  expect 2 "$basalt" "$group" no-such-verb && check "$group: unknown verb is one line" one_line_stderr
done
finish
