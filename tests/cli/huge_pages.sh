#!/usr/bin/env bash
# The CLI's heap gets transparent huge pages (src/core/huge_pages.c):
# where the kernel gives them only to memory that asks (THP "madvise"), the
# CLI executes itself again with glibc.malloc.hugetlb=1 and
# glibc.malloc.arena_max=1, and a process holding 64 MiB of heap then has it
# in 2 MiB pages, worker threads' allocations included. The user's own
# GLIBC_TUNABLES are kept, their hugetlb and arena_max settings win, and
# BASALT_HUGE_PAGES=0 turns it off.
source "$(dirname "$0")/lib.bash"
thp=/sys/kernel/mm/transparent_hugepage/enabled

# `basalt` is a launcher (tools/basalt/launcher/launcher.c) that loads no
# library and executes basalt-cli with the tunables set: the CLI, which
# loads 54, starts once, not twice.
if command -v strace >/dev/null; then
  strace -f -qq -e trace=execve -o "$tmp/execs" "$basalt" --version >/dev/null
  grep ' = 0$' "$tmp/execs" | grep -o 'execve("[^"]*"' >"$tmp/exec_paths" || true
  check "two execs: the launcher, then basalt-cli ($(tr '\n' ' ' <"$tmp/exec_paths"))" \
    test "$(wc -l <"$tmp/exec_paths")" -eq 2 -a "$(sed -n 2p "$tmp/exec_paths")" = \
    "execve(\"$(dirname "$(readlink -f "$basalt")")/basalt-cli\""
  linked=$(ldd "$basalt" 2>&1 || true)
  if grep -q __asan_init "$basalt"; then
    # The sanitizer runtimes and theirs come along; the CLI's libraries must not.
    check "the launcher links none of the CLI's libraries" \
      test "$(grep -cE 'libcurl|libpq|libssl|libsqlite3|libedit' <<<"$linked")" -eq 0
  else
    check "the launcher links libc alone" test "$(grep -c '=>' <<<"$linked")" -le 1
  fi
fi

if grep -q __asan_init "$basalt"; then
  # AddressSanitizer's allocator is not glibc's: nothing to ask for.
  expect 0 "$basalt" info
  check "off under AddressSanitizer" grep -qx 'huge pages: off (not glibc.s malloc)' "$tmp/out"
  finish; exit
fi
if [ ! -r "$thp" ] || ! grep -q '\[madvise\]' "$thp"; then
  echo "THP mode here: $(cat "$thp" 2>/dev/null || echo none)"
  expect 0 "$basalt" info
  check "the state follows the kernel's mode" \
    grep -qE '^huge pages: (on \(THP always\)|off)$' "$tmp/out"
  finish; exit
fi

expect 0 "$basalt" info
check "info: on" grep -qx \
  'huge pages: on (THP madvise, GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1)' "$tmp/out"
expect 0 env GLIBC_TUNABLES=glibc.malloc.tcache_count=3 "$basalt" info
check "info: the user's tunables are kept, hugetlb and arena_max added" grep -qx \
  'huge pages: on (THP madvise, GLIBC_TUNABLES=glibc.malloc.tcache_count=3:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1)' "$tmp/out"
expect 0 env GLIBC_TUNABLES=glibc.malloc.arena_max=4 "$basalt" info
check "info: the user's arena_max wins" grep -qx \
  'huge pages: on (THP madvise, GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1)' "$tmp/out"
expect 0 env BASALT_HUGE_PAGES=0 "$basalt" info
check "info: BASALT_HUGE_PAGES=0 turns it off" grep -qx 'huge pages: off' "$tmp/out"
expect 0 env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$basalt" info
check "info: the user's hugetlb=0 wins" grep -qx 'huge pages: off' "$tmp/out"

# heap_probe ENV...: starts `basalt codec compress` reading 64 MiB from a
# FIFO that stays open, waits until the process holds them, and prints its
# resident and AnonHugePages kB; then closes the FIFO and lets it finish.
heap_probe() {
  rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
  env "$@" "$basalt" codec compress zstd - "$tmp/z" <"$tmp/fifo" &
  local pid=$! rss=0 i
  exec 3>"$tmp/fifo"
  head -c $((64 << 20)) /dev/zero >&3
  for i in $(seq 1 200); do
    rss=$(awk '/^Rss:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt 65536 ] && break
    sleep 0.05
  done
  awk '/^AnonHugePages:/ {print "huge", $2}' "/proc/$pid/smaps_rollup"
  echo "rss $rss"
  exec 3>&-
  wait "$pid"
}

heap_probe BASALT_HUGE_PAGES=1 >"$tmp/on"
cat "$tmp/on"
check "the process held its 64 MiB" test "$(awk '/^rss/ {print $2}' "$tmp/on")" -gt 65536
check "at least 32 MiB of the heap in huge pages" \
  test "$(awk '/^huge/ {print $2}' "$tmp/on")" -ge 32768
check "the input was compressed" test "$(wc -c <"$tmp/z")" -gt 0

heap_probe BASALT_HUGE_PAGES=0 >"$tmp/off"
cat "$tmp/off"
check "off: the process held its 64 MiB" test "$(awk '/^rss/ {print $2}' "$tmp/off")" -gt 65536
check "off: no huge pages" test "$(awk '/^huge/ {print $2}' "$tmp/off")" -eq 0

# Worker threads: a 2-worker group-by into 200,000 groups (their tables
# allocated on the workers) faults in its memory in 2 MiB pages too, so it
# takes far fewer page faults than with glibc's per-thread arenas, which
# stay in 4 KiB pages (about 2,300 against 9,900 when this was written).
gen=$(cd "$(dirname "$basalt")/../.." && pwd)/bench/h2ogen/basalt-h2ogen
if [ -x "$gen" ]; then
  "$gen" --rows 4000000 --k 20 --out "$tmp/h2o" --threads 2 >/dev/null 2>&1
  query="SELECT count(*), sum(s) FROM (SELECT id6, sum(v3) AS s FROM '$tmp/h2o/x.parquet' GROUP BY id6)"
  faults() { # ENV...: the minor page faults of the query at 2 threads
    env "$@" /usr/bin/python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt)' "$basalt" sql "$query" --threads 2
  }
  ours=$(faults BASALT_HUGE_PAGES=1)
  split=$(faults GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=8)
  echo "page faults: $ours in one arena, $split with per-thread arenas"
  check "workers' memory in huge pages: under half the faults" test "$((ours * 2))" -lt "$split"
else
  check "the generator $gen is built (the basalt-h2ogen target)" false
fi

# The re-executed process is the same one: exit status and output pass through.
expect 2 "$basalt" info extra
check "a usage error still exits 2 with one line" one_line_stderr
finish
