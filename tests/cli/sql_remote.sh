#!/usr/bin/env bash
# basalt sql over files on object storage: Parquet, CSV, JSON lines and Arrow
# IPC files named by s3:// URIs in FROM (moto with SigV4 verified) give the
# rows the same query gives over the local files, alone and joined with a
# local file; a glob over a prefix (on a moto without signature checks: moto
# refuses signed listings whose prefix holds '/', see io_store_s3.sh) reads
# every matching object and no other; a missing object and a glob matching
# nothing fail with one clear line naming the URI.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/../servers/servers.bash"

if ! start_moto; then
  check "moto starts with SigV4 checks on" false
  finish; exit
fi
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY AWS_REGION=$S3_REGION
export AWS_ENDPOINT_URL_S3=$S3_ENDPOINT
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL

# The local files: 50,000 rows with NULLs and strings, in every format.
awk 'BEGIN { print "id,k,x,s"; for (i = 0; i < 50000; i++)
  printf "%d,%d,%s,name%d\n", i, i % 97, (i % 11 == 0 ? "" : sprintf("%.2f", i * 0.25)), i % 1000 }' \
  >"$tmp/t.csv"
for f in parquet json; do
  expect 0 "$basalt" sql "COPY (SELECT * FROM '$tmp/t.csv') TO '$tmp/t.$f'"
done
expect 0 "$basalt" ipc convert "$tmp/t.parquet" "$tmp/t.arrow"
for f in parquet csv json arrow; do
  expect 0 "$basalt" io cp "$tmp/t.$f" "s3://$S3_BUCKET/data/t.$f"
done

# same_rows QUERY-WITH-@: the query over s3://.../t.EXT and over the local
# file print the same rows.
same_rows() {
  local q=$1 ext=$2
  "$basalt" sql "${q//@/s3://$S3_BUCKET/data/t.$ext}" --format csv >"$tmp/remote.out" 2>"$tmp/remote.err"
  "$basalt" sql "${q//@/$tmp/t.$ext}" --format csv >"$tmp/local.out" 2>&1
  check "$ext: '$q' over s3:// gives the local file's rows ($(head -c 300 "$tmp/remote.err"))" \
    cmp -s "$tmp/remote.out" "$tmp/local.out"
  check "$ext: '$q' gave rows" test "$(wc -l <"$tmp/local.out")" -gt 1
}
for ext in parquet csv json arrow; do
  same_rows "SELECT k, count(*) AS n, sum(x) AS sx, min(s) AS ms FROM '@' GROUP BY k ORDER BY k" "$ext"
  same_rows "SELECT * FROM '@' WHERE id % 5000 = 7 ORDER BY id" "$ext"
done
same_rows "SELECT count(*), sum(a.x) FROM '@' a JOIN '$tmp/t.csv' b ON a.id = b.id AND a.s = b.s" parquet

# ---- text files larger than the memory limit ----
# A remote CSV or JSON lines object is copied to an unlinked temporary file
# and mapped, so it is parsed a window at a time as a local one is: 1.5M
# rows (39 MB as CSV, 68 MB as JSON lines) aggregate under a 24 MB limit
# with the local file's answer. (Read whole into memory first, they passed
# the limit before the first batch.) Nothing is left in the temp directory.
awk 'BEGIN { print "id,k,x,s"; for (i = 0; i < 1500000; i++)
  printf "%d,%d,%.2f,name%d\n", i, i % 97, i * 0.25, i % 1000 }' >"$tmp/big.csv"
expect 0 "$basalt" sql "COPY (SELECT * FROM '$tmp/big.csv') TO '$tmp/big.json'"
mkdir -p "$tmp/spool"
for ext in csv json; do
  expect 0 "$basalt" io cp "$tmp/big.$ext" "s3://$S3_BUCKET/data/big.$ext"
  q="SELECT count(*) AS n, sum(x) AS sx, min(s) AS ms, max(id) AS mi FROM '@'"
  TMPDIR=$tmp/spool "$basalt" sql "${q//@/s3://$S3_BUCKET/data/big.$ext}" --format csv --threads 2 \
    --memory-limit 24MB >"$tmp/remote.out" 2>"$tmp/remote.err"
  "$basalt" sql "${q//@/$tmp/big.$ext}" --format csv >"$tmp/local.out" 2>&1
  check "$ext: $(($(stat -c %s "$tmp/big.$ext") >> 20)) MB from s3:// under a 24 MB limit gives the local file's answer ($(head -c 300 "$tmp/remote.err"))" \
    cmp -s "$tmp/remote.out" "$tmp/local.out"
  check "$ext: no temporary file left" test -z "$(ls -A "$tmp/spool")"
done
# The CLI's own readers copy the object the same way.
TMPDIR=$tmp/spool "$basalt" csv cat "s3://$S3_BUCKET/data/big.csv" --limit 5 --format json \
  >"$tmp/remote.out" 2>"$tmp/remote.err"
"$basalt" csv cat "$tmp/big.csv" --limit 5 --format json >"$tmp/local.out" 2>&1
check "csv cat of the s3:// object gives the local file's rows ($(head -c 300 "$tmp/remote.err"))" \
  cmp -s "$tmp/remote.out" "$tmp/local.out"
TMPDIR=$tmp/spool "$basalt" json cat "s3://$S3_BUCKET/data/big.json" --limit 5 \
  >"$tmp/remote.out" 2>"$tmp/remote.err"
"$basalt" json cat "$tmp/big.json" --limit 5 >"$tmp/local.out" 2>&1
check "json cat of the s3:// object gives the local file's rows ($(head -c 300 "$tmp/remote.err"))" \
  cmp -s "$tmp/remote.out" "$tmp/local.out"
check "csv and json cat: no temporary file left" test -z "$(ls -A "$tmp/spool")"
rm -f "$tmp/big.csv" "$tmp/big.json"

# ---- a glob over a prefix ----
if start_moto_noauth; then
  export AWS_ENDPOINT_URL_S3=$S3_NOAUTH_ENDPOINT
  for p in 0 1 2; do
    expect 0 "$basalt" sql "COPY (SELECT * FROM '$tmp/t.parquet' WHERE id % 3 = $p) TO '$tmp/part$p.parquet'"
    expect 0 "$basalt" io cp "$tmp/part$p.parquet" "s3://$S3_BUCKET/parts/p$p.parquet"
  done
  expect 0 "$basalt" io cp "$tmp/t.csv" "s3://$S3_BUCKET/parts/p9.csv"
  expect 0 "$basalt" io cp "$tmp/part0.parquet" "s3://$S3_BUCKET/parts/deeper/p0.parquet"
  expect 0 "$basalt" sql "SELECT count(*) AS n, sum(id) AS s FROM 's3://$S3_BUCKET/parts/*.parquet'" --format csv
  cp "$tmp/out" "$tmp/glob.out"
  expect 0 "$basalt" sql "SELECT count(*) AS n, sum(id) AS s FROM '$tmp/t.parquet'" --format csv
  check "the glob reads the three parts and neither the CSV nor the deeper object ($(tr '\n' ' ' <"$tmp/glob.out"))" \
    cmp -s "$tmp/glob.out" "$tmp/out"
  expect 1 "$basalt" sql "SELECT count(*) FROM read_parquet('s3://$S3_BUCKET/parts/*.parquet.nothing')"
  check "a glob matching nothing names the pattern: $(head -c 300 "$tmp/err")" \
    grep -q "no files found that match 's3://$S3_BUCKET/parts/\*.parquet.nothing'" "$tmp/err"
  export AWS_ENDPOINT_URL_S3=$S3_ENDPOINT
else
  check "a second moto with signature checks off starts" false
fi

# ---- errors ----
expect 1 "$basalt" sql "SELECT count(*) FROM 's3://$S3_BUCKET/data/missing.parquet'"
check "a missing object fails with one line naming it: $(head -c 300 "$tmp/err")" \
  bash -c "grep -q 'missing.parquet' '$tmp/err' && [ \$(wc -l <'$tmp/err') -eq 1 ]"
finish
