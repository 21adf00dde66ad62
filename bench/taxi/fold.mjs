// The taxibench result shapes, folded from a peer engine's rows as
// basalt-taxibench folds basalt's (bench/taxi/fold.c), and the answer rule:
//   COUNT {count}   SUM {count, sum}   RATIO {count, tip, fare, tip_ratio}
//   ZONE_COUNT {count, top: [[zone, count] x10]}
//   ZONE_SUM {count, sum, top: [[zone, count, sum] x10], top_sum: [[zone, sum] x10]}
export const KIND = {
  q1: 'COUNT', q2: 'SUM', q3: 'SUM', q4: 'RATIO', q5: 'ZONE_COUNT', q6: 'ZONE_SUM', q7: 'COUNT', q8: 'SUM',
};
export const QUERIES = Object.keys(KIND);

const num = (v) => (v === null || v === undefined ? 0 : Number(v));

// Zones 0 <= z < 266 with a value above 0, by value descending, ties to the lower zone.
function top10(pairs) {
  return pairs.filter(([z, v]) => z >= 0 && z < 266 && v > 0)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 10);
}

/** rows: the engine's result rows (arrays of numbers, bigints or nulls). */
export function fold(name, rows) {
  const r0 = () => (rows[0] ?? []).map(num);
  switch (KIND[name]) {
    case 'COUNT': return { count: r0()[0] };
    case 'SUM': { const [count, sum] = r0(); return { count, sum }; }
    case 'RATIO': { const [count, tip, fare] = r0(); return { count, tip, fare, tip_ratio: fare === 0 ? 0 : tip / fare }; }
    case 'ZONE_COUNT': case 'ZONE_SUM': {
      // ascending zones, so the total sum does not depend on the engine's group order
      const t = rows.map((r) => r.map(num)).sort((a, b) => a[0] - b[0]);
      const out = { count: t.reduce((a, r) => a + r[1], 0) };
      if (KIND[name] === 'ZONE_COUNT') return { ...out, top: top10(t.map((r) => [r[0], r[1]])) };
      const sums = new Map(t.map((r) => [r[0], r[2]]));
      return {
        ...out,
        sum: t.reduce((a, r) => a + r[2], 0),
        top: top10(t.map((r) => [r[0], r[1]])).map(([z, n]) => [z, n, sums.get(z)]),
        top_sum: top10(t.map((r) => [r[0], r[2]])),
      };
    }
    default: throw new Error(`unknown query ${name}`);
  }
}

/** null when a and b agree: same structure, every number within |a-b|/max(|a|,|b|,1) <= tol
 *  (counts and zone ids, below 1e9, are thereby exact); else where they differ. */
export function disagreement(a, b, tol = 1e-9, at = 'result') {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return `${at}: length ${a?.length} vs ${b?.length}`;
    for (let i = 0; i < a.length; i++) { const e = disagreement(a[i], b[i], tol, `${at}[${i}]`); if (e) return e; }
    return null;
  }
  if (a !== null && typeof a === 'object') {
    const ka = Object.keys(a).sort().join(), kb = Object.keys(b ?? {}).sort().join();
    if (ka !== kb) return `${at}: keys ${ka} vs ${kb}`;
    for (const k of Object.keys(a)) { const e = disagreement(a[k], b[k], tol, `${at}.${k}`); if (e) return e; }
    return null;
  }
  if (typeof a !== 'number' || typeof b !== 'number') return a === b ? null : `${at}: ${a} vs ${b}`;
  const d = Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1);
  return d <= tol ? null : `${at}: ${a} vs ${b} (relative ${d.toExponential(2)})`;
}

/** Nearest rank, index round(q (n - 1)). */
export const percentile = (sorted, q) => sorted[Math.round(q * (sorted.length - 1))];
