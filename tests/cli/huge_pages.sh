#!/usr/bin/env bash
# The CLI's heap gets transparent huge pages (tools/basalt/huge_pages.c):
# where the kernel gives them only to memory that asks (THP "madvise"), the
# CLI executes itself again with glibc.malloc.hugetlb=1, and a process
# holding 64 MiB of heap then has it in 2 MiB pages. The user's own
# GLIBC_TUNABLES are kept, their hugetlb setting wins, and
# BASALT_HUGE_PAGES=0 turns it off.
source "$(dirname "$0")/lib.bash"
thp=/sys/kernel/mm/transparent_hugepage/enabled

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
check "info: on" grep -qx 'huge pages: on (THP madvise, GLIBC_TUNABLES=glibc.malloc.hugetlb=1)' "$tmp/out"
expect 0 env GLIBC_TUNABLES=glibc.malloc.arena_max=4 "$basalt" info
check "info: the user's tunables are kept, hugetlb added" grep -qx \
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

# The re-executed process is the same one: exit status and output pass through.
expect 2 "$basalt" info extra
check "a usage error still exits 2 with one line" one_line_stderr
finish
