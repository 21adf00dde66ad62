#!/usr/bin/env bash
# basalt-bench's command line: --help, --list, --only, --time, --json and the
# usage errors. $1 is the basalt CLI; basalt-bench is built beside it.
set -euo pipefail
bench="$(dirname "$1")/../../bench/basalt-bench"
if [ ! -x "$bench" ]; then
  echo "skipped: no basalt-bench in this build (BASALT_BUILD_BENCH=OFF)"
  exit 0
fi
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bench" --help >"$tmp/help" || fail "--help exited $?"
grep -q -- '--only PATTERN' "$tmp/help" || fail "--help does not describe --only"

"$bench" --list >"$tmp/list" || fail "--list exited $?"
grep -q '^core/memcpy/1MiB ' "$tmp/list" || fail "--list lacks core/memcpy/1MiB"
grep -q '^core/reference-kernel ' "$tmp/list" || fail "--list lacks core/reference-kernel"

# Substring selection picks every core benchmark and nothing else, '=' only
# the exact name.
"$bench" --list --only core/ >"$tmp/sub"
n_core=$(grep -c '^core/' "$tmp/list")
[ "$n_core" -ge 2 ] && [ "$(grep -c '^core/' "$tmp/sub")" = "$n_core" ] &&
  [ "$(grep -v '^core/' "$tmp/sub" | grep -vc '^benchmark ')" = 0 ] || fail "--only core/ did not select the $n_core core benchmarks alone"
"$bench" --list --only =core/memcpy/1MiB >"$tmp/exact"
[ "$(grep -c '^core/' "$tmp/exact")" = 1 ] || fail "--only =NAME selected more than NAME"
"$bench" --list --only =core/memcpy >"$tmp/none" 2>"$tmp/err" && fail "exact prefix matched"
[ "$(wc -l <"$tmp/none")" -le 1 ] || fail "output despite no match"

# Usage errors exit 2 with one line on stderr.
for args in "--bogus" "--only" "--time" "--time 0" "--time abc" "--time -1" "--only nothing-like-this"; do
  set +e
  # shellcheck disable=SC2086
  "$bench" $args >/dev/null 2>"$tmp/err"
  rc=$?
  set -e
  [ $rc = 2 ] || fail "'$args' exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "'$args' printed more than one line on stderr"
done

# A short run in text: a result line and the verdict.
"$bench" --only =core/reference-kernel --time 0.05 >"$tmp/text" || fail "text run exited $?"
grep -q '^core/reference-kernel ' "$tmp/text" || fail "no result line"
grep -q -E '^machine: (steady|NOT steady: .+)$' "$tmp/text" || fail "no verdict line"

# --json: stdout is one JSON document (checked by python3's parser), the
# progress goes to stderr, and throughput is bytes per p50.
"$bench" --only =core/memcpy/1MiB --only =core/reference-kernel --time 0.05 --json \
  >"$tmp/json" 2>"$tmp/progress" || fail "--json run exited $?"
grep -q '^machine: ' "$tmp/progress" || fail "verdict not on stderr with --json"
if [ -x "$py" ]; then
  "$py" - "$tmp/json" <<'EOF' || fail "JSON check failed"
import json, sys
d = json.load(open(sys.argv[1]))
names = [b["name"] for b in d["benchmarks"]]
assert names == ["core/memcpy/1MiB", "core/reference-kernel"], names
for b in d["benchmarks"]:
    assert b["status"] == "OK", b
    assert b["iters"] >= 1 and b["samples"] >= 5, b
    assert 0 < b["min_ns"] <= b["p50_ns"] <= b["p90_ns"], b
    # calibrated: a sample lasts about the target (caches may warm up after)
    assert b["iters"] * b["p50_ns"] >= d["sample_target_ns"] * 0.5, b
m = d["benchmarks"][0]
assert abs(m["mb_per_s"] - 1048576 / (m["p50_ns"] * 1e-9) / 1e6) <= 1e-9 * m["mb_per_s"], m
r = d["benchmarks"][1]
assert abs(r["items_per_s"] - 1048576 / (r["p50_ns"] * 1e-9)) <= 1e-9 * r["items_per_s"], r
v = d["machine"]
assert isinstance(v["steady"], bool) and (v["reason"] == "") == v["steady"], v
assert len(v["reference_ns"]) == 3, v
assert v["first_benchmark"] == "core/memcpy/1MiB", v
assert v["cpus"] >= 1 and d["time_s"] == 0.05, d
assert d["sample_target_ns"] >= 2e6 and d["sample_target_ns"] >= 1000 * d["clock_resolution_ns"]
EOF
else
  echo "no $py: JSON not parsed"
fi
echo "ok"
