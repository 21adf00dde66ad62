#!/usr/bin/env bash
# DESIGN.md section 1: dependencies run one way. A module may include the
# public headers of its own layer and the layers below, and no other module's
# internal headers.
set -euo pipefail
root=$1
rank() {
  case $1 in
    core|arrow|arrow_fb|bench) echo 0 ;;
    codec|hash) echo 1 ;;
    io) echo 2 ;;
    # ipc needs only core, arrow, codec and io, so it sits with the other
    # file formats; Parquet conversion lives in the CLI.
    thrift|parquet_format|parquet_writer|parquet|parquet_variant|avro|csv|json|ipc) echo 3 ;;
    iceberg|iceberg_*) echo 4 ;;
    catalog|frame) echo 5 ;;
    query|query_*) echo 6 ;;
    sql) echo 7 ;;
    flight|flight_*) echo 8 ;;
    basalt) echo 9 ;;
    *) echo 99 ;;
  esac
}
status=0
for dir in "$root"/src/*/; do
  module=$(basename "$dir")
  mine=$(rank "$module")
  while IFS=: read -r file inc; do
    header=$(sed -E 's/.*"basalt\/([a-z0-9_]+)\.h".*/\1/' <<<"$inc")
    theirs=$(rank "$header")
    if [ "$theirs" -gt "$mine" ]; then
      echo "$file includes basalt/$header.h, a higher layer than $module"; status=1
    fi
  done < <(grep -r -H -E --include='*.[ch]' '#include "basalt/[a-z0-9_]+\.h"' "$dir" 2>/dev/null || true)
  # Sub-folders include their module's headers by path from src/<module>/,
  # so "../" only ever means another module.
  if grep -r -H -E --include='*.[ch]' '#include "\.\./' "$dir" 2>/dev/null; then
    echo "module $module reaches into another module's directory"; status=1
  fi
done
[ $status = 0 ] && echo "ok: layering holds"
exit $status
