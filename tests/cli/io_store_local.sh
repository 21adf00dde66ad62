#!/usr/bin/env bash
# The store's local backend: every store_check check on a temporary
# directory, named by a plain path, a relative path and a file:// URI (the
# same API the remote backends answer; etags are empty, directories are made
# by the caller). The basalt binary ($1) only locates the build tree.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/io_store_lib.bash"

mkdir -p "$tmp/store"
run_store_check local_path 60 --part-size 65536 "$tmp/store/plain"
run_store_check local_file_uri 60 --part-size 65536 "file://$tmp/store/uri"
(cd "$tmp/store" && run_store_check local_relative 60 --part-size 65536 "relative/dir"
 echo "$checks $failures" >"$tmp/rel.counts")
read -r checks failures <"$tmp/rel.counts"
left=$(find "$tmp/store" -type f | head -5)
check "no file is left behind (${left:-none})" test -z "$left"
finish
