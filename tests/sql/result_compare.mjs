// Result comparison for `basalt sql` against DuckDB, by the rules of
// tests/sql/sql_differential.mjs: values in a canonical form (numbers of
// any type as numbers, so DuckDB's DECIMAL meets basalt's DECIMAL or
// DOUBLE; dates and timestamps as text without the 'T', the UTC zone and
// a fraction's trailing zeros), numbers equal to
// 1e-9 relative, rows in order when the query orders them completely, else
// as multisets.

export function canon(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  // a list compares as the text of its canonical elements
  if (Array.isArray(v)) return JSON.stringify(v.map(canon));
  // an interval: DuckDB's node API gives {months, days, micros}, basalt's
  // JSON {months, days, nanoseconds}; as text both would be
  // "[object Object]" and any two intervals would agree
  if (typeof v === 'object' && 'months' in v && 'days' in v) {
    const us = 'micros' in v ? BigInt(v.micros) : BigInt(v.nanoseconds) / 1000n;
    return `${v.months} months ${v.days} days ${us} us`;
  }
  const s = String(v);
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(s)) return Number(s);
  if (s === 'NaN' || s === 'Infinity' || s === '-Infinity') return Number(s);
  // UTC as basalt writes it (Z) and as DuckDB does (+00)
  const t = s.replace('T', ' ').replace(/(Z|\+00)$/, '');
  // A timestamp's or time's fraction of a second without trailing zeros:
  // basalt prints microseconds (.250000), DuckDB as few digits as it needs
  // (.25), JavaScript's Date milliseconds (.000Z).
  return /^(\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d\.\d+$/.test(t) ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
}

// absTol: numbers this close are equal too (0 unless given: for results
// near zero whose digits are rounding noise, such as r^2 of uncorrelated
// columns).
export function same(a, b, absTol = 0) {
  if (a === null || b === null) return a === b;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (a === b || Math.abs(a - b) <= absTol) return true;
    return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  }
  return a === b;
}

const rowKey = row => JSON.stringify(row.map(v => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)));
// Each row's key is made once, not twice per comparison (a sort of 1e5 rows
// made millions of them).
const sortedByKey = rows => rows.map(row => [rowKey(row), row])
  .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)).map(pair => pair[1]);

// null when the rows agree, else a one-line description of the first difference.
export function compareRows(expected, actual, ordered, absTol = 0) {
  let a = expected, b = actual;
  if (a.length !== b.length) return `${a.length} rows in duckdb, ${b.length} in basalt`;
  if (!ordered) {
    a = sortedByKey(a);
    b = sortedByKey(b);
  }
  for (let k = 0; k < a.length; k++) {
    if (a[k].length !== b[k].length) return `row ${k}: ${a[k].length} vs ${b[k].length} columns`;
    for (let c = 0; c < a[k].length; c++)
      if (!same(a[k][c], b[k][c], absTol))
        return `row ${k} col ${c}: duckdb ${JSON.stringify(a[k][c])} basalt ${JSON.stringify(b[k][c])}`;
  }
  return null;
}
