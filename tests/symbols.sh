#!/usr/bin/env bash
# Every symbol libbasalt exports (shared: dynamic symbol table; static: every
# global definition) must start with basalt_. Symbols that sanitizer
# instrumentation adds are not ours and are ignored.
set -euo pipefail
shared=$1 static=$2
bad=$( { nm -D --defined-only "$shared" | awk '$2 ~ /^[TDBRVW]$/ {print "shared: " $3}';
         nm --defined-only "$static" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ {print "static: " $3}'; } |
       grep -v -E ': basalt_' | grep -v -E ': (_init|_fini|_edata|_end|__bss_start)$' |
       grep -v -E ': (__odr_asan|__asan_|__ubsan_|__sancov_|___asan_gen_)' || true)
count=$(nm -D --defined-only "$shared" | awk '$2 == "T"' | wc -l)
if [ -n "$bad" ]; then
  echo "symbols without the basalt_ prefix:"; echo "$bad"; exit 1
fi
if [ "$count" -lt 10 ]; then echo "only $count exported functions: is visibility broken?"; exit 1; fi
echo "ok: $count exported functions, all prefixed basalt_"
