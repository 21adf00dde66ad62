#!/usr/bin/env bash
# The eight queries on basalt over the same table in two catalogs (a local
# warehouse and one on object storage, say), legs interleaved: for each
# pass, query and thread count, A then B, each in its own process. Prints
# per query the median over passes of each leg's p50 and of its first
# (warm-up) run, and the totals with B/A.
#
#   bash bench/taxi/compare_catalogs.sh CATALOG_A TABLE_A CATALOG_B TABLE_B [PASSES] [BUILD]
set -euo pipefail
a_cat=${1:?usage: compare_catalogs.sh CATALOG_A TABLE_A CATALOG_B TABLE_B [PASSES] [BUILD]}
a_tab=${2:?table A}
b_cat=${3:?catalog B}
b_tab=${4:?table B}
passes=${5:-3}
build=${6:-$(cd "$(dirname "$0")/../.." && pwd)/build}
bench=$build/bench/taxi/basalt-taxibench
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((p = 0; p < passes; p++)); do
  for q in q1 q2 q3 q4 q5 q6 q7 q8; do
    for t in 1 2; do
      pin=()
      [ "$t" = 1 ] && command -v taskset >/dev/null && pin=(taskset -c 0)
      for side in A B; do
        if [ $side = A ]; then cat=$a_cat tab=$a_tab; else cat=$b_cat tab=$b_tab; fi
        line=$("${pin[@]}" "$bench" --query "$q" --threads "$t" --catalog "$cat" --table "$tab")
        p50=$(sed -n 's/.*"total_ms":\([0-9.]*\).*/\1/p' <<<"$line")
        cold=$(sed -n 's/.*"cold_ms":\([0-9.]*\).*/\1/p' <<<"$line")
        echo "$q $t $side $p50 $cold" >>"$out"
      done
    done
  done
done
awk '
  { k = $1 " " $2 " " $3; n[k]++; p[k, n[k]] = $4; c[k, n[k]] = $5; keys[$1 " " $2] = 1 }
  function med(arr, k, m,   i, j, t, v) {
    for (i = 1; i <= m; i++) v[i] = arr[k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((m + 1) / 2)]
  }
  END {
    printf "| query | threads | A p50 | B p50 | B/A | A first run | B first run |\n|---|---:|---:|---:|---:|---:|---:|\n"
    split("q1 q2 q3 q4 q5 q6 q7 q8", qs, " ")
    for (t = 1; t <= 2; t++) for (i = 1; i <= 8; i++) {
      ka = qs[i] " " t " A"; kb = qs[i] " " t " B"
      pa = med(p, ka, n[ka]); pb = med(p, kb, n[kb]); ca = med(c, ka, n[ka]); cb = med(c, kb, n[kb])
      ta[t] += pa; tb[t] += pb; tca[t] += ca; tcb[t] += cb
      printf "| %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f |\n", qs[i], t, pa, pb, pb / pa, ca, cb
    }
    for (t = 1; t <= 2; t++)
      printf "| **total** | %d | **%.1f** | **%.1f** | **%.2f** | %.1f | %.1f |\n", t, ta[t], tb[t], tb[t] / ta[t], tca[t], tcb[t]
  }' "$out"
