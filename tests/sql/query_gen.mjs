// Seeded random SQL queries for tests/sql/sql_differential.mjs, over its
// tables $T, $U and $V (written there; the columns below are theirs).
//
//   import { generateQueries } from './query_gen.mjs';
//   generateQueries(seed, n) -> [{ sql, ordered }]
//
// The same seed and n give the same list. `ordered` says the query orders
// its rows completely (an ORDER BY that ends with a unique key, or over
// every output column), so the rows compare in order; else as multisets.
//
// Every query must have one answer, whatever order the engines read rows
// in and whatever plan they choose:
// - LIMIT/OFFSET only under a total order; ROW_NUMBER, NTILE, LAG/LEAD,
//   FIRST/LAST/NTH_VALUE and ROWS frames only when the window's ORDER BY
//   ends with a unique key; otherwise only calls that peers cannot tell
//   apart (ranks, CUME_DIST, aggregates over RANGE or GROUPS frames);
// - sums and averages in windows read exact columns (integers, DECIMAL,
//   the FLOAT f whose values are multiples of 1/4): a frame's DOUBLE sum is
//   rounded differently by each engine, and a frame whose sum cancels to
//   near zero would differ beyond 1e-9 relative; grouped sums of x and w
//   are over random values that never cancel that far;
// - STRING_AGG orders by its own argument ascending (basalt joins values in
//   byte order, documented in docs/QUERY.md), ANY_VALUE reads group keys;
// - no DOUBLE turned into text (the shortest round-trip text differs from
//   DuckDB's), no substring with a negative length, no square root or
//   logarithm of a negative number, divisors guarded with NULLIF.
// The rest of the surface is drawn freely: expressions over every column
// type (CASE, COALESCE, NULLIF, CAST, IN lists, BETWEEN, LIKE/ILIKE,
// arithmetic with // and %, string, math and date functions, INTERVAL
// arithmetic, strftime, comparisons with NULLs), aggregates with FILTER,
// DISTINCT and HAVING, window functions with every frame kind, QUALIFY,
// joins of every kind (ON with several keys, USING, EXISTS/IN and their
// negations), set operations, CTEs, subqueries in FROM and WHERE,
// DISTINCT, ORDER BY with LIMIT/OFFSET.

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Column types: int, dec, dbl, str, date, ts, bool. `exact`: sums of the
// column are exact in a double; `uniq`: no two rows share a value.
const TABLES = {
  T: {
    name: '$T', alias: 't', key: 'id', rows: 20000,
    cols: {
      id: { type: 'int', exact: true, uniq: true }, g: { type: 'int', exact: true },
      s: { type: 'str' }, x: { type: 'dbl' }, d: { type: 'dec', exact: true },
      dt: { type: 'date' }, b: { type: 'bool' }, uid: { type: 'int', exact: true },
      k: { type: 'int', exact: true }, f: { type: 'dbl', exact: true }, ts: { type: 'ts' },
      c: { type: 'str' },
    },
  },
  U: {
    name: '$U', alias: 'u', key: 'uid', rows: 3000,
    cols: {
      uid: { type: 'int', exact: true, uniq: true }, g: { type: 'int', exact: true },
      name: { type: 'str' }, w: { type: 'dbl' }, vid: { type: 'int', exact: true },
    },
  },
  V: {
    name: '$V', alias: 'v', key: 'vid', rows: 500,
    cols: {
      vid: { type: 'int', exact: true, uniq: true }, region: { type: 'str' },
      rank: { type: 'int', exact: true },
    },
  },
};

export function generateQueries(seed, n) {
  const r = rng((seed * 104729 + 17) >>> 0);
  const pick = a => a[Math.floor(r() * a.length)];
  const chance = p => r() < p;
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const pickN = (a, k) => {
    const c = [...a], out = [];
    while (out.length < k && c.length) out.push(c.splice(Math.floor(r() * c.length), 1)[0]);
    return out;
  };

  // Scope: the relations in FROM, by alias (or '' for a bare table).
  const colsOf = (scope, type, pred = () => true) => {
    const out = [];
    for (const [alias, tab] of scope)
      for (const [c, m] of Object.entries(tab.cols))
        if ((!type || m.type === type) && pred(m, c)) out.push(alias ? `${alias}.${c}` : c);
    return out;
  };
  const col = (scope, type, pred) => {
    const cs = colsOf(scope, type, pred);
    return cs.length ? pick(cs) : null;
  };

  // Literals.
  const words = ['red', 'green', 'blue', '', 'amber', 'Alpha', 'beta', 'GAMMA', 'delta x', '  pad ', 'a%b_c', 'name7', 'north'];
  const strLit = () => `'${pick(words)}'`;
  const dateLit = () => `DATE '${2023 + int(0, 1)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}'`;
  const tsLit = () => `TIMESTAMP '${2023 + int(0, 1)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')} ${String(int(0, 23)).padStart(2, '0')}:${String(int(0, 59)).padStart(2, '0')}:00'`;
  const numLit = type => {
    if (type === 'int') return String(int(-5, 30));
    if (type === 'dec') return (int(-20000, 100000) / 100).toFixed(2);
    return String(int(-500, 500) + pick([0, 0.5, 0.25]));
  };
  const lit = type => {
    switch (type) {
      case 'int': case 'dec': case 'dbl': return numLit(type);
      case 'str': return strLit();
      case 'date': return dateLit();
      case 'ts': return tsLit();
      case 'bool': return pick(['true', 'false']);
    }
    return 'NULL';
  };
  const parts = ['year', 'month', 'day', 'quarter', 'dow', 'doy', 'week', 'isodow'];
  const tsParts = [...parts, 'hour', 'minute', 'second'];
  const truncParts = ['year', 'quarter', 'month', 'week', 'day'];

  // An expression of a type over the scope's columns.
  function expr(scope, type, depth = 2) {
    const leaf = depth <= 0 || chance(0.35);
    if (leaf) {
      if (chance(0.1)) return lit(type);
      const c = col(scope, type);
      // (a FLOAT's value computed in FLOAT prints as its shortest FLOAT
      // text in basalt and as the double it widens to in DuckDB: 81.1 and
      // 81.0999984741211 compare as different; f goes into expressions as a
      // DOUBLE)
      if (c && /(^|\.)f$/.test(c)) return `CAST(${c} AS DOUBLE)`;
      if (c) return c;
      // no column of the type here: one made from an integer column
      const i = col(scope, 'int');
      switch (type) {
        case 'str': return `CAST(${i} AS VARCHAR)`;
        case 'date': return `DATE '2023-06-01' + CAST(${i} % 400 AS INTEGER)`;
        case 'ts': return `CAST(DATE '2023-06-01' + CAST(${i} % 400 AS INTEGER) AS TIMESTAMP) + INTERVAL ${int(1, 600)} MINUTE`;
        case 'bool': return `${i} % ${int(2, 5)} = 0`;
        case 'dec': return `CAST(${i} AS DECIMAL(10,2)) * 0.25`;
        case 'dbl': return `CAST(${i} AS DOUBLE) * 0.5`;
      }
      return lit(type);
    }
    const sub = t => expr(scope, t, depth - 1);
    switch (type) {
      case 'int': return pick([
        () => `${sub('int')} + ${sub('int')}`,
        () => `${sub('int')} - ${numLit('int')}`,
        () => `${sub('int')} * ${int(-3, 7)}`,
        () => `${sub('int')} // ${pick([2, 3, 7, -4])}`,
        () => `${sub('int')} % ${pick([2, 3, 5, -7])}`,
        () => `abs(${sub('int')})`,
        () => `length(${sub('str')})`,
        () => `extract(${pick(parts)} FROM ${sub('date')})`,
        () => `date_part('${pick(tsParts)}', ${sub('ts')})`,
        () => `CASE WHEN ${sub('bool')} THEN ${sub('int')} ${chance(0.5) ? `WHEN ${sub('bool')} THEN ${sub('int')} ` : ''}ELSE ${sub('int')} END`,
        () => `CASE ${sub('int')} WHEN ${numLit('int')} THEN ${sub('int')} WHEN ${numLit('int')} THEN ${numLit('int')} END`,
        () => `coalesce(${sub('int')}, ${sub('int')})`,
        () => `nullif(${sub('int')}, ${numLit('int')})`,
        () => `CAST(${sub('dec')} AS INTEGER)`,
        () => `CAST(${sub('dbl')} AS BIGINT)`,
        () => `sign(${sub('dbl')})`,
        () => `(${sub('date')} - ${chance(0.5) ? dateLit() : sub('date')})`,
        () => `(${sub('int')})`,
      ])();
      case 'dec': return pick([
        () => `${sub('dec')} + ${sub('dec')}`,
        () => `${sub('dec')} - ${numLit('dec')}`,
        () => `${sub('dec')} * ${int(-3, 5)}`,
        () => `abs(${sub('dec')})`,
        () => `round(${sub('dec')}, ${int(0, 1)})`,
        () => `CAST(${sub('int')} AS DECIMAL(10,2))`,
        () => `CAST(${sub('dbl')} AS DECIMAL(12,2))`,
        () => `coalesce(${sub('dec')}, ${numLit('dec')})`,
        () => `CASE WHEN ${sub('bool')} THEN ${sub('dec')} ELSE ${numLit('dec')} END`,
      ])();
      case 'dbl': return pick([
        () => `${sub('dbl')} + ${sub('dbl')}`,
        () => `${sub('dbl')} * ${pick(['2', '0.5', '-1.5'])}`,
        () => `${sub('int')} / ${pick(['2', '3', '-8'])}`,
        () => `${sub('dbl')} / nullif(${sub('int')}, 0)`,
        () => `sqrt(abs(${sub('dbl')}))`,
        () => `ln(abs(${sub('dbl')}) + 1)`,
        () => `log10(abs(${sub('dbl')}) + 1)`,
        () => `exp(${sub('dbl')} / 1000)`,
        () => `pow(${sub('dbl')} / 100, 2)`,
        () => `round(${sub('dbl')}, ${int(0, 3)})`,
        () => `floor(${sub('dbl')})`,
        () => `ceil(${sub('dbl')})`,
        () => `trunc(${sub('dbl')})`,
        () => `abs(${sub('dbl')})`,
        () => `CAST(${sub('int')} AS DOUBLE)`,
        () => `CAST(${sub('dec')} AS DOUBLE)`,
        () => `coalesce(${sub('dbl')}, ${numLit('dbl')})`,
        () => `CASE WHEN ${sub('bool')} THEN ${sub('dbl')} ELSE ${sub('int')} END`,
      ])();
      case 'str': return pick([
        () => `upper(${sub('str')})`,
        () => `lower(${sub('str')})`,
        () => `substr(${sub('str')}, ${int(1, 4)}, ${int(0, 5)})`,
        () => `substring(${sub('str')}, ${int(1, 3)})`,
        () => `concat(${sub('str')}, ${sub('str')})`,
        () => `concat(${sub('str')}, '-', ${sub('int')})`,
        () => `${sub('str')} || ${sub('str')}`,
        () => `replace(${sub('str')}, '${pick(['a', 'e', ' ', 'r'])}', '${pick(['X', '', '__'])}')`,
        () => `trim(${sub('str')})`,
        () => `ltrim(${sub('str')})`,
        () => `rtrim(${sub('str')})`,
        () => `CAST(${sub('int')} AS VARCHAR)`,
        () => `CAST(${sub('date')} AS VARCHAR)`,
        () => `strftime(${sub('date')}, '${pick(['%Y-%m', '%d/%m/%Y', '%j', '%Y'])}')`,
        () => `strftime(${sub('ts')}, '${pick(['%Y-%m-%d %H:%M:%S', '%H:%M', '%Y %j'])}')`,
        () => `coalesce(${sub('str')}, ${strLit()})`,
        () => `nullif(${sub('str')}, ${strLit()})`,
        () => `CASE WHEN ${sub('bool')} THEN ${sub('str')} ELSE ${strLit()} END`,
      ])();
      case 'date': return pick([
        () => `${sub('date')} + ${int(-40, 40)}`,
        () => `${sub('date')} - ${int(0, 400)}`,
        () => `CAST(${sub('ts')} AS DATE)`,
        () => `coalesce(${sub('date')}, ${dateLit()})`,
        () => `CASE WHEN ${sub('bool')} THEN ${sub('date')} ELSE ${dateLit()} END`,
      ])();
      case 'ts': return pick([
        () => `${sub('ts')} + INTERVAL ${int(1, 48)} ${pick(['HOUR', 'MINUTE', 'DAY'])}`,
        () => `${sub('ts')} - INTERVAL '${int(1, 90)} ${pick(['days', 'hours', 'seconds'])}'`,
        () => `${sub('date')} + INTERVAL ${int(1, 14)} ${pick(['DAY', 'MONTH', 'HOUR'])}`,
        () => `date_trunc('${pick([...truncParts, 'hour', 'minute'])}', ${sub('ts')})`,
        () => `date_trunc('${pick(truncParts)}', ${sub('date')})`,
        () => `CAST(${sub('date')} AS TIMESTAMP)`,
        () => `coalesce(${sub('ts')}, ${tsLit()})`,
      ])();
      case 'bool': {
        const t = pick(['int', 'int', 'dec', 'dbl', 'str', 'str', 'date', 'ts']);
        return pick([
          () => `${sub(t)} ${pick(['=', '<>', '<', '<=', '>', '>='])} ${chance(0.6) ? lit(t) : sub(t)}`,
          () => `${sub(t)} IS ${pick(['', 'NOT '])}NULL`,
          () => `${sub(t)} IS ${pick(['', 'NOT '])}DISTINCT FROM ${chance(0.3) ? 'NULL' : lit(t)}`,
          () => `${sub(t)} ${pick(['', 'NOT '])}BETWEEN ${lit(t)} AND ${lit(t)}`,
          () => `${sub(t)} ${pick(['', 'NOT '])}IN (${Array.from({ length: int(1, 4) }, () => lit(t)).join(', ')}${chance(0.2) ? ', NULL' : ''})`,
          () => `${sub('str')} ${pick(['', 'NOT '])}${pick(['LIKE', 'ILIKE'])} '${pick(['%e%', 'a%', '%A%', 'r_d', '%', '_', 'GR%', '%x', '% %'])}'`,
          () => `${pick(['starts_with', 'ends_with', 'contains'])}(${sub('str')}, '${pick(['a', 'e', 'Al', 'n', ''])}')`,
          () => `regexp_matches(${sub('str')}, '${pick(['^[a-g]', 'e.n', '[0-9]', 'a|A'])}')`,
          () => `(${sub('bool')}) ${pick(['AND', 'OR'])} (${sub('bool')})`,
          () => `NOT (${sub('bool')})`,
          () => `(${sub('bool')}) = ${pick(['true', 'false', 'NULL'])}`,
          () => col(scope, 'bool') ?? 'true',
        ])();
      }
    }
    return 'NULL';
  }
  const anyType = () => pick(['int', 'int', 'dec', 'dbl', 'str', 'str', 'date', 'ts', 'bool']);
  const where = (scope, p = 0.75) => (chance(p) ? ` WHERE ${expr(scope, 'bool', 2)}` : '');

  // Aggregate calls over a scope, deterministic whatever the row order.
  function agg(scope, keys = []) {
    // (sums of computed DOUBLEs, k / 3 and the like, can cancel to 1e-16
    // where the engines' roundings differ in every digit: only columns and
    // exact expressions)
    const num = () => pick([col(scope, 'int'), col(scope, 'dec'), col(scope, 'dbl'), expr(scope, pick(['int', 'dec']), 1)].filter(Boolean));
    const ord = () => expr(scope, pick(['int', 'dec', 'str', 'date', 'ts']), 1);
    const strc = () => col(scope, 'str') ?? "'z'";
    const filt = () => (chance(0.15) ? ` FILTER (WHERE ${expr(scope, 'bool', 1)})` : '');
    return pick([
      () => 'count(*)',
      () => `count(${expr(scope, anyType(), 1)})`,
      () => `count(DISTINCT ${expr(scope, pick(['int', 'str', 'date', 'bool']), 1)})`,
      () => `sum(${num()})${filt()}`,
      () => `avg(${num()})${filt()}`,
      () => `sum(DISTINCT ${col(scope, 'int')})`,
      () => `min(${ord()})${filt()}`,
      () => `max(${ord()})${filt()}`,
      // (variances of integers or, over one table, of its DOUBLE columns:
      // basalt's double-double sums of x and x*x leave ~1e-25 where the
      // values in a group are all equal, which a join's repeated rows make)
      () => `${pick(['stddev', 'stddev_pop', 'variance', 'var_pop', 'var_samp', 'stddev_samp'])}(${pick(colsOf(scope, null, m => m.type === 'int' || (m.type === 'dbl' && scope.length === 1)))})`,
      // (not of the FLOAT f: the interpolated FLOAT prints differently, above)
      () => `median(${pick(colsOf(scope, null, (m, c) => (m.type === 'dbl' || m.type === 'int') && c !== 'f'))})`,
      // (fractions exact in binary: 0.9 of a gap between integers rounds
      // near 0 to 1e-14 either way, differently in each engine)
      () => `quantile_cont(${pick(colsOf(scope, null, (m, c) => (m.type === 'dbl' || m.type === 'int') && c !== 'f'))}, ${pick([0.25, 0.5, 0.75])})`,
      () => `quantile_disc(${pick([col(scope, 'int'), col(scope, 'dec'), col(scope, 'date')].filter(Boolean))}, ${pick([0.1, 0.5, 0.9])})`,
      () => { const s = strc(); return `string_agg(${s}, '${pick([',', '|', ''])}' ORDER BY ${s})`; },
      () => { const s = strc(); return `string_agg(DISTINCT ${s}, ',' ORDER BY ${s})`; },
      () => `bool_and(${expr(scope, 'bool', 1)})`,
      () => `bool_or(${expr(scope, 'bool', 1)})`,
      () => (keys.length ? `any_value(${pick(keys)})` : 'count(*)'),
      () => { const y = col(scope, 'dbl') ?? num(); return `${pick(['corr', 'covar_pop', 'covar_samp', 'regr_slope', 'regr_intercept', 'regr_count'])}(${y}, ${num()})`; },
      () => `count(*) FILTER (WHERE ${expr(scope, 'bool', 1)})`,
    ])();
  }

  // A GROUP BY query over one table or a join.
  function groupBy(scope, from, w) {
    const nk = int(1, 3);
    const keys = [];
    for (let i = 0; i < nk; i++) {
      const t = pick(['int', 'str', 'bool', 'date']);
      let k;
      if (chance(0.6)) k = col(scope, t, m => !m.uniq || chance(0.2)) ?? col(scope, 'int');
      else k = pick([
        () => `${col(scope, 'int')} % ${int(2, 9)}`,
        () => `date_trunc('${pick(['month', 'quarter', 'year'])}', ${col(scope, 'date') ?? "DATE '2024-01-01'"})`,
        () => `extract(${pick(['month', 'dow', 'year'])} FROM ${col(scope, 'date') ?? "DATE '2024-01-01'"})`,
        () => `upper(${col(scope, 'str')})`,
        () => `CASE WHEN ${expr(scope, 'bool', 1)} THEN 'yes' ELSE 'no' END`,
        () => `${col(scope, 'int')} // ${int(10, 500)}`,
        () => `date_trunc('day', ${col(scope, 'ts') ?? "TIMESTAMP '2024-01-01 00:00:00'"})`,
      ])();
      // (a key must read a column: DuckDB's GROUP BY ALL leaves a constant
      // out, which makes a grouping over no rows one row there)
      const bare = k ? k.replace(/'[^']*'/g, '') : '';
      if (k && colsOf(scope).some(c => new RegExp(`(^|[^.\\w])${c.replace('.', '\\.')}\\b`).test(bare)) && !keys.includes(k)) keys.push(k);
    }
    if (!keys.length) keys.push(col(scope, 'int'));
    const aggs = [...new Set(Array.from({ length: int(1, 4) }, () => agg(scope, keys)))];
    const items = [...keys.map((k, i) => `${k} AS k${i}`), ...aggs.map((a, i) => `${a} AS a${i}`)];
    const by = pick(['names', 'ordinals', 'all', 'exprs']);
    const groupList = by === 'all' ? 'ALL' : by === 'ordinals' ? keys.map((_, i) => i + 1).join(', ')
      : by === 'names' ? keys.map((_, i) => `k${i}`).join(', ') : keys.join(', ');
    let q = `SELECT ${items.join(', ')} FROM ${from}${w} GROUP BY ${groupList}`;
    if (chance(0.3)) {
      q += ` HAVING ${pick([
        () => `count(*) > ${int(1, 200)}`,
        () => `a0 IS NOT NULL`,
        () => `sum(${col(scope, 'int')}) ${pick(['>', '<'])} ${int(0, 100000)}`,
        () => `max(${col(scope, 'int')}) - min(${col(scope, 'int')}) > ${int(0, 50)}`,
        () => `count(DISTINCT ${col(scope, 'str')}) >= ${int(1, 4)}`,
      ])()}`;
    }
    let ordered = false;
    if (chance(0.35)) {
      q += ` ORDER BY ${keys.map((_, i) => `k${i} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}`).join(', ')}`;
      ordered = true;
      if (chance(0.5)) q += ` LIMIT ${int(1, 40)}${chance(0.4) ? ` OFFSET ${int(1, 10)}` : ''}`;
    }
    return { sql: q, ordered };
  }

  // COUNT(*) over a frame that starts after it ends is 0 in basalt and end -
  // start (-1) in DuckDB (a documented difference): such a frame counts the
  // key column instead, 0 in both.
  const bound = b => (/UNBOUNDED PRECEDING/.test(b) ? -Infinity : /UNBOUNDED FOLLOWING/.test(b) ? Infinity
    : /CURRENT ROW/.test(b) ? 0 : /PRECEDING/.test(b) ? -parseFloat(b.replace(/^INTERVAL /, '')) || -1 : parseFloat(b.replace(/^INTERVAL /, '')) || 1);
  function countStarOk(call, key = 'id') {
    const m = call.match(/^count\(\*\) OVER .*BETWEEN (.*?) AND (.*?)( EXCLUDE [A-Z ]+)?\)$/);
    if (!m || bound(m[1]) <= bound(m[2])) return call;
    return call.replace(/^count\(\*\)/, `count(${key})`);
  }

  // A window query over one table.
  function windowQuery() {
    const tab = pick([TABLES.T, TABLES.T, TABLES.U]);
    const scope = [['', tab]];
    const nparts = pick([0, 1, 1, 2]);
    const partCands = tab === TABLES.T
      ? ['g', 's', 'b', 'uid % 7', 'k', 'extract(month FROM dt)', 'c', 'g % 3']
      : ['g', 'vid % 11', 'substr(name, 5, 1)', 'w > 50'];
    const parts = pickN(partCands, nparts);
    const total = chance(0.6);
    const orderCands = tab === TABLES.T ? ['g', 'x', 'd', 'dt', 's', 'ts', 'k', 'f', 'b'] : ['g', 'w', 'name', 'vid'];
    const nord = pick([0, 1, 1, 2]);
    const ord = pickN(orderCands, nord).map(o => `${o}${pick(['', ' ASC', ' DESC'])}${pick(['', ' NULLS FIRST', ' NULLS LAST'])}`);
    if (total) ord.push(`${tab.key}${pick(['', ' DESC'])}`);
    const orderBy = ord.length ? ` ORDER BY ${ord.join(', ')}` : '';
    const partBy = parts.length ? `PARTITION BY ${parts.join(', ')}` : '';
    const over = frame => `(${[partBy, orderBy.trim(), frame].filter(Boolean).join(' ')})`;
    const exactCol = () => pick(colsOf(scope, null, m => m.exact && m.type !== 'str'));
    const anyCol = () => pick(Object.keys(tab.cols));
    const rowsFrame = () => {
      const b = () => pick(['UNBOUNDED PRECEDING', `${int(0, 5)} PRECEDING`, 'CURRENT ROW', `${int(0, 5)} FOLLOWING`]);
      const e = () => pick([`${int(0, 5)} PRECEDING`, 'CURRENT ROW', `${int(0, 5)} FOLLOWING`, 'UNBOUNDED FOLLOWING']);
      return `ROWS BETWEEN ${b()} AND ${e()}${chance(0.15) ? ` EXCLUDE ${pick(['CURRENT ROW', 'GROUP', 'TIES', 'NO OTHERS'])}` : ''}`;
    };
    // RANGE and GROUPS frames: peers are in or out together.
    const peerFrame = () => {
      if (chance(0.5) || ord.length === 0) {
        const b = () => pick(['UNBOUNDED PRECEDING', 'CURRENT ROW', `${int(0, 3)} PRECEDING`, `${int(1, 3)} FOLLOWING`]);
        const e = () => pick(['CURRENT ROW', `${int(0, 3)} FOLLOWING`, 'UNBOUNDED FOLLOWING', `${int(0, 2)} PRECEDING`]);
        if (ord.length === 0) return pick(['', 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING']);
        return `GROUPS BETWEEN ${b()} AND ${e()}${chance(0.2) ? ` EXCLUDE ${pick(['CURRENT ROW', 'GROUP', 'TIES'])}` : ''}`;
      }
      return pick(['RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW', 'RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING', '']);
    };
    const calls = [];
    const ncalls = int(1, 4);
    let rangeOver = null;
    for (let i = 0; i < ncalls; i++) {
      const choices = [
        () => `rank() OVER ${over('')}`,
        () => `dense_rank() OVER ${over('')}`,
        () => `percent_rank() OVER ${over('')}`,
        () => `cume_dist() OVER ${over('')}`,
        () => `${pick(['sum', 'avg'])}(${exactCol()}) OVER ${over(peerFrame())}`,
        () => `${pick(['min', 'max'])}(${anyCol()}) OVER ${over(peerFrame())}`,
        () => `count(${pick(['*', anyCol()])}) OVER ${over(peerFrame())}`,
      ];
      if (total) choices.push(
        () => `row_number() OVER ${over('')}`,
        () => `ntile(${int(1, 7)}) OVER ${over('')}`,
        () => {
          const c = anyCol();
          const off = chance(0.6) ? `, ${int(1, 3)}` : '';
          const def = off && chance(0.5) ? `, ${lit(tab.cols[c].type)}` : '';
          return `${pick(['lag', 'lead'])}(${c}${off}${def}) OVER ${over('')}`;
        },
        () => `first_value(${anyCol()}) OVER ${over(chance(0.5) ? rowsFrame() : '')}`,
        () => `last_value(${anyCol()}) OVER ${over(chance(0.5) ? rowsFrame() : '')}`,
        () => `nth_value(${anyCol()}, ${int(1, 4)}) OVER ${over(chance(0.5) ? rowsFrame() : '')}`,
        () => `${pick(['sum', 'avg'])}(${exactCol()}) OVER ${over(rowsFrame())}`,
        () => `${pick(['min', 'max', 'count'])}(${anyCol()}) OVER ${over(rowsFrame())}`,
      );
      // A RANGE frame with offsets over one numeric or date key.
      if (chance(0.2)) {
        const k = pick(tab === TABLES.T ? ['g', 'd', 'dt', 'id', 'k', 'f', 'ts'] : ['g', 'uid', 'w']);
        const kt = tab.cols[k].type;
        const off = () => (kt === 'date' ? pick([`${int(0, 20)}`, `INTERVAL ${int(1, 30)} DAY`, 'INTERVAL 1 MONTH'])
          : kt === 'ts' ? pick([`INTERVAL ${int(1, 48)} HOUR`, `INTERVAL ${int(1, 5)} DAY`])
            : kt === 'dec' ? `${int(0, 50)}.5` : kt === 'dbl' ? `${int(0, 20)}` : `${int(0, 5)}`);
        const dir = pick(['', ' DESC']) + pick(['', ' NULLS FIRST', ' NULLS LAST']);
        const lo = pick([`${off()} PRECEDING`, 'UNBOUNDED PRECEDING', 'CURRENT ROW']);
        const hi = pick([`${off()} FOLLOWING`, 'CURRENT ROW', 'UNBOUNDED FOLLOWING']);
        const fn = pick([`sum(${exactCol()})`, `avg(${exactCol()})`, `count(*)`, `min(${anyCol()})`, `max(${anyCol()})`, `count(${anyCol()})`]);
        rangeOver = `${fn} OVER (${partBy} ORDER BY ${k}${dir} RANGE BETWEEN ${lo} AND ${hi})`;
        calls.push(countStarOk(rangeOver, tab.key));
        continue;
      }
      calls.push(countStarOk(pick(choices)(), tab.key));
    }
    const nRowsCap = tab === TABLES.T ? pick([600, 2000, 5000, 20000]) : 3000;
    const filters = [];
    if (tab === TABLES.T && nRowsCap < 20000) filters.push(`id < ${nRowsCap}`);
    if (chance(0.3)) filters.push(expr(scope, 'bool', 1));
    const w = filters.length ? ` WHERE ${filters.join(' AND ')}` : '';
    const shown = [tab.key, ...pickN(Object.keys(tab.cols).filter(c => c !== tab.key), int(0, 3))];
    const items = [...shown, ...calls.map((c, i) => `${c} AS w${i}`)];
    let q = `SELECT ${items.join(', ')} FROM ${tab.name}${w}`;
    // the shared window by name, sometimes
    const plain = over('');
    if (chance(0.25) && q.includes(`OVER ${plain}`)) q = `${q.replaceAll(`OVER ${plain}`, 'OVER win')} WINDOW win AS ${plain}`;
    let ordered = false;
    if (chance(0.2)) {
      // QUALIFY: filter on a window value
      q += ` QUALIFY ${pick([`w0 IS NOT NULL`, `${calls[0].replace(/ AS w0$/, '')} IS NOT NULL`,
        total ? `row_number() OVER ${over('')} <= ${int(1, 3)}` : `rank() OVER ${over('')} <= ${int(1, 3)}`])}`;
    } else if (chance(0.2)) {
      q = `SELECT * FROM (${q}) q WHERE w0 ${pick(['IS NULL', 'IS NOT NULL', `<= ${int(1, 3)}`])}`;
      if (calls[0].match(/^(min|max|lag|lead|first|last|nth)/)) q = q.replace(/<= \d+$/, 'IS NOT NULL');
    }
    if (chance(0.3)) {
      q += ` ORDER BY ${tab.key}${pick(['', ' DESC'])}`;
      ordered = true;
      if (chance(0.5)) q += ` LIMIT ${int(1, 50)}${chance(0.5) ? ` OFFSET ${int(1, 20)}` : ''}`;
    }
    return { sql: q, ordered };
  }

  // Projections with expressions of every type, filtered.
  function projection() {
    const tab = pick([TABLES.T, TABLES.T, TABLES.T, TABLES.U, TABLES.V]);
    const scope = [['', tab]];
    const items = [tab.key, ...Array.from({ length: int(1, 4) }, (_, i) => `${expr(scope, anyType(), int(1, 3))} AS e${i}`)];
    const filters = [];
    if (tab === TABLES.T) filters.push(pick(['id < 300', 'id < 1000', 'id >= 17000', 'id % 13 = 0']));
    if (chance(0.7)) filters.push(expr(scope, 'bool', int(1, 3)));
    let q = `SELECT ${chance(0.1) ? 'DISTINCT ' : ''}${items.join(', ')} FROM ${tab.name}${filters.length ? ' WHERE ' + filters.join(' AND ') : ''}`;
    let ordered = false;
    if (chance(0.25)) {
      const o = pickN(items.slice(1).map((_, i) => `e${i}`), int(0, 2)).map(e => `${e} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}`);
      q += ` ORDER BY ${[...o, `${tab.key}${pick(['', ' DESC'])}`].join(', ')}`;
      ordered = true;
      if (chance(0.6)) q += ` LIMIT ${int(1, 60)}${chance(0.4) ? ` OFFSET ${int(0, 30)}` : ''}`;
    }
    return { sql: q, ordered };
  }

  // DISTINCT over expressions, optionally ordered over every column.
  function distinct() {
    const tab = pick([TABLES.T, TABLES.T, TABLES.U]);
    const scope = [['', tab]];
    const n = int(1, 3);
    const items = Array.from({ length: n }, (_, i) => `${expr(scope, pick(['int', 'str', 'bool', 'date', 'dec']), 1)} AS e${i}`);
    let q = `SELECT DISTINCT ${items.join(', ')} FROM ${tab.name}${where(scope, 0.6)}`;
    let ordered = false;
    if (chance(0.4)) {
      q += ` ORDER BY ${items.map((_, i) => `e${i} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}`).join(', ')}`;
      ordered = true;
      if (chance(0.5)) q += ` LIMIT ${int(1, 20)}`;
    }
    return { sql: q, ordered };
  }

  // Joins of every kind.
  function join() {
    const kind = pick(['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN', 'JOIN', 'LEFT JOIN']);
    const T = TABLES.T, U = TABLES.U, V = TABLES.V;
    const shape = pick(['tu', 'tu', 'uv', 'tuv', 'tt']);
    const tcap = pick([500, 2000, 6000]);
    let from, scope, keyCols;
    const onExtra = sc => (chance(0.3) ? ` AND (${expr(sc, 'bool', 1)})` : '');
    if (shape === 'tu') {
      scope = [['t', T], ['u', U]];
      const multi = chance(0.3);
      if (chance(0.2) && kind !== 'FULL JOIN') {
        from = `(SELECT * FROM $T WHERE id < ${tcap}) t ${kind} $U u USING (uid${multi ? ', g' : ''})`;
      } else {
        from = `(SELECT * FROM $T WHERE id < ${tcap}) t ${kind} $U u ON t.uid = u.uid${multi ? ' AND t.g = u.g' : ''}${onExtra(scope)}`;
      }
      keyCols = ['t.id', 'u.uid'];
    } else if (shape === 'uv') {
      scope = [['u', U], ['v', V]];
      from = `$U u ${kind} (SELECT * FROM $V WHERE vid ${pick(['<', '>'])} ${int(50, 450)}) v ON u.vid = v.vid${onExtra(scope)}`;
      keyCols = ['u.uid', 'v.vid'];
    } else if (shape === 'tuv') {
      scope = [['t', T], ['u', U], ['v', V]];
      from = `(SELECT * FROM $T WHERE id < ${tcap}) t JOIN $U u ON t.uid = u.uid ${kind} $V v ON u.vid = v.vid${onExtra(scope)}`;
      keyCols = ['t.id', 'v.vid'];
    } else {
      scope = [['a', T], ['t', T]];
      from = `(SELECT * FROM $T WHERE id < ${tcap}) a ${kind} (SELECT * FROM $T WHERE id ${pick(['<', '>='])} ${int(300, 19000)}) t ON a.uid = t.uid${chance(0.4) ? ' AND a.g = t.g' : ''}${onExtra(scope)}`;
      keyCols = ['a.id', 't.id'];
    }
    const w = chance(0.5) ? ` WHERE ${expr(scope, 'bool', 1)}` : '';
    if (chance(0.4)) return groupBy(scope, from, w);
    const items = [...keyCols.map((k, i) => `${k} AS j${i}`), ...Array.from({ length: int(1, 3) }, (_, i) => `${expr(scope, anyType(), 1)} AS e${i}`)];
    let q = `SELECT ${items.join(', ')} FROM ${from}${w}`;
    let ordered = false;
    if (chance(0.2)) {
      q += ` ORDER BY ${keyCols.map((_, i) => `j${i} NULLS FIRST`).join(', ')}`;
      // a key pair is unique for joins on one key (t.id, u.uid); (a.id, t.id)
      // and (t.id, v.vid) are too: each row of the first table meets one row of
      // the second's unique key at most, or none for the NULL side
      ordered = true;
      // (not under a RIGHT or FULL join: DuckDB 1.5.6 pushes its top-N's
      // dynamic filter on t.id below the join, and rows that the join
      // extends with NULLs come out in the wrong places)
      if (chance(0.5) && !/RIGHT JOIN|FULL JOIN/.test(from)) q += ` LIMIT ${int(1, 50)}`;
    }
    return { sql: q, ordered };
  }

  // Semi and anti joins through EXISTS / IN and their negations.
  function semi() {
    const outer = pick([TABLES.U, TABLES.V, TABLES.T]);
    const oscope = [[outer.alias, outer]];
    const inner = outer === TABLES.V ? TABLES.U : outer === TABLES.U ? TABLES.T : TABLES.U;
    const link = outer === TABLES.V ? ['vid', 'vid'] : ['uid', 'uid'];
    const ia = outer === TABLES.T ? 'x2' : inner.alias;
    const iscope = [[ia, inner]];
    const ipred = chance(0.6) ? ` AND (${expr(iscope, 'bool', 1)})` : '';
    const ow = outer === TABLES.T ? `${outer.alias}.id < ${pick([1000, 5000])} AND ` : '';
    const items = [`${outer.alias}.${outer.key}`, ...pickN(Object.keys(outer.cols).filter(c => c !== outer.key), int(0, 2)).map(c => `${outer.alias}.${c}`)];
    const cond = pick([
      () => `${pick(['', 'NOT '])}EXISTS (SELECT 1 FROM ${inner.name} ${ia} WHERE ${ia}.${link[1]} = ${outer.alias}.${link[0]}${ipred})`,
      () => `${outer.alias}.${link[0]} ${pick(['', 'NOT '])}IN (SELECT ${link[1]} FROM ${inner.name} ${ia} WHERE ${expr(iscope, 'bool', 1)})`,
      () => (outer.cols.g && inner.cols.g
        ? `${outer.alias}.g ${pick(['', 'NOT '])}IN (SELECT g FROM ${inner.name} ${ia}${chance(0.5) ? ` WHERE ${expr(iscope, 'bool', 1)}` : ''})`
        : `EXISTS (SELECT 1 FROM ${inner.name} ${ia} WHERE ${ia}.${link[1]} = ${outer.alias}.${link[0]})`),
      () => `${outer.alias}.${link[0]} IN (SELECT ${link[1]} FROM ${inner.name} GROUP BY ${link[1]} HAVING count(*) ${pick(['>', '<'])} ${int(1, 9)})`,
      () => 'JOIN',
    ])();
    if (cond === 'JOIN') {
      const w = ow ? ` WHERE ${ow.replace(/ AND $/, '')}` : '';
      return { sql: `SELECT ${items.join(', ')} FROM ${outer.name} ${outer.alias} ${pick(['SEMI', 'ANTI'])} JOIN ${inner.name} ${ia} ON ${ia}.${link[1]} = ${outer.alias}.${link[0]}${ipred}${w}`, ordered: false };
    }
    const extra = chance(0.4) ? ` AND (${expr(oscope, 'bool', 1)})` : '';
    return { sql: `SELECT ${items.join(', ')} FROM ${outer.name} ${outer.alias} WHERE ${ow}${cond}${extra}`, ordered: false };
  }

  // Set operations over projections of the same types.
  function setOp() {
    const types = Array.from({ length: int(1, 3) }, () => pick(['int', 'str', 'date', 'bool', 'dec']));
    const side = first => {
      const tab = pick([TABLES.T, TABLES.T, TABLES.U, TABLES.V]);
      const scope = [['', tab]];
      const w = [];
      if (tab === TABLES.T) w.push(`id ${pick(['<', '>'])} ${int(200, 19800)}`);
      if (chance(0.5)) w.push(expr(scope, 'bool', 1));
      // (DECIMALs of different scales do not mix in basalt's set
      // operations: each side's are cast to one type)
      const items = types.map(t => (chance(0.6) && col(scope, t)) || expr(scope, t, 1))
        .map((e, i) => (types[i] === 'dec' ? `CAST(${e} AS DECIMAL(18,2))` : e))
        .map((e, i) => (first ? `${e} AS c${i}` : e));
      return `SELECT ${items.join(', ')} FROM ${tab.name}${w.length ? ' WHERE ' + w.join(' AND ') : ''}`;
    };
    const op = () => pick(['UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL']);
    let q = `${side(true)} ${op()} ${side()}`;
    if (chance(0.2)) q = `SELECT * FROM (${q}) q ${op()} ${side()}`;
    let ordered = false;
    if (chance(0.3)) {
      q = `SELECT * FROM (${q}) q ORDER BY ${types.map((_, i) => `${i + 1} NULLS FIRST`).join(', ')}`;
      ordered = true;
      if (chance(0.5)) q += ` LIMIT ${int(1, 30)}`;
    }
    return { sql: q, ordered };
  }

  // CTEs and subqueries in FROM.
  function cte() {
    const scope = [['', TABLES.T]];
    const kc = pick(['g', 's', 'uid % 20', 'b', 'extract(month FROM dt)', 'k']);
    const a = pick(['sum(d)', 'count(*)', 'avg(g)', 'max(x)', 'min(dt)', 'count(DISTINCT s)', 'sum(f)']);
    const inner = `SELECT ${kc} AS key, ${a} AS val, count(*) AS n FROM $T${where(scope, 0.5)} GROUP BY 1`;
    return pick([
      () => ({ sql: `WITH r AS (${inner}) SELECT key, val, n FROM r WHERE n > ${int(1, 500)}`, ordered: false }),
      () => ({ sql: `WITH r AS (${inner}) SELECT a.key, b.key AS key2, a.val FROM r a JOIN r b ON a.n ${pick(['<', '='])} b.n`, ordered: false }),
      () => ({ sql: `WITH r AS (${inner}), s2 AS (SELECT max(n) AS mx, min(n) AS mn FROM r) SELECT key, val FROM r, s2 WHERE r.n * 2 > s2.mx OR r.n = s2.mn`, ordered: false }),
      () => {
        const o = chance(0.5);
        return { sql: `SELECT q.key, q.val, q.n, rank() OVER (ORDER BY q.n DESC) AS rk FROM (${inner}) q${o ? ' ORDER BY q.key NULLS LAST' : ''}`, ordered: o };
      },
      () => ({ sql: `SELECT u.uid, u.name, q.val FROM $U u ${pick(['JOIN', 'LEFT JOIN'])} (SELECT uid AS key, ${a} AS val FROM $T GROUP BY uid) q ON q.key = u.uid WHERE u.uid < ${int(100, 3000)}`, ordered: false }),
      () => ({ sql: `SELECT id, x FROM $T WHERE ${pick(['x', 'f', 'd'])} > (SELECT avg(${pick(['x', 'f', 'd'])}) FROM $T${where(scope, 0.7)}) AND id < ${int(200, 3000)}`, ordered: false }),
      () => ({ sql: `SELECT uid, (SELECT count(*) FROM $T t WHERE t.uid = u.uid${chance(0.5) ? ` AND (${expr([['t', TABLES.T]], 'bool', 1)})` : ''}) AS n FROM $U u WHERE u.vid < ${int(10, 100)}`, ordered: false }),
    ])();
  }

  // Top-k and sorted output with LIMIT/OFFSET.
  function topk() {
    const tab = pick([TABLES.T, TABLES.T, TABLES.U]);
    const scope = [['', tab]];
    const keys = pickN(Object.keys(tab.cols).filter(c => c !== tab.key), int(1, 3));
    const o = keys.map(k => `${chance(0.2) && tab.cols[k].type === 'int' ? `${k} % 5` : k} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}`);
    const shown = [tab.key, ...keys];
    let q = `SELECT ${shown.join(', ')} FROM ${tab.name}${where(scope, 0.5)} ORDER BY ${[...o, `${tab.key}${pick(['', ' DESC'])}`].join(', ')}`;
    q += ` LIMIT ${int(1, 100)}${chance(0.5) ? ` OFFSET ${int(0, 500)}` : ''}`;
    return { sql: q, ordered: true };
  }

  // Queries over the whole of $T (20000 rows): what the spill pass's
  // memory limit makes sort, group, join and window on disk.
  function heavy() {
    const scope = [['', TABLES.T]];
    return pick([
      () => {
        const keys = pickN(['g', 's', 'x', 'd', 'dt', 'ts', 'k', 'f', 'b', 'c', 'uid'], int(1, 3));
        return { sql: `SELECT id, ${keys.join(', ')} FROM $T${where(scope, 0.3)} ORDER BY ${keys.map(k => `${k} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}`).join(', ')}, id${pick(['', ' DESC'])}`, ordered: true };
      },
      () => {
        const keys = pick([['uid'], ['uid', 'b'], ['id % 5000'], ['uid', 'g'], ['s', 'dt']]);
        const aggs = [...new Set(Array.from({ length: int(1, 4) }, () => agg(scope, keys)))];
        return { sql: `SELECT ${keys.map((k, i) => `${k} AS k${i}`).join(', ')}, ${aggs.map((a, i) => `${a} AS a${i}`).join(', ')} FROM $T${where(scope, 0.3)} GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`, ordered: false };
      },
      () => {
        const multi = chance(0.4);
        const kind = pick(['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN']);
        return { sql: `SELECT a.uid AS k0, count(*) AS n, count(t.id) AS m, sum(t.d) AS sd, min(t.s) AS ms, max(a.dt) AS md FROM $T a ${kind} (SELECT * FROM $T WHERE ${expr(scope, 'bool', 1)}) t ON a.uid = t.uid${multi ? ' AND a.g = t.g' : ''} GROUP BY 1`, ordered: false };
      },
      () => ({ sql: `SELECT t.id, u.name, u.w FROM $T t ${pick(['JOIN', 'LEFT JOIN'])} $U u ON t.uid = u.uid${chance(0.5) ? ' AND t.g = u.g' : ''}`, ordered: false }),
      () => {
        const part = pick(['', 'PARTITION BY uid', 'PARTITION BY g', 'PARTITION BY s, b', 'PARTITION BY uid % 50']);
        const ord = `ORDER BY ${pick(['x', 'dt', 'd', 'ts', 'k'])} ${pick(['ASC', 'DESC'])} NULLS ${pick(['FIRST', 'LAST'])}, id`;
        const calls = pickN([
          `row_number() OVER (${part} ${ord})`, `rank() OVER (${part} ${ord})`,
          `sum(d) OVER (${part} ${ord} ROWS BETWEEN ${int(0, 5)} PRECEDING AND CURRENT ROW)`,
          `lag(s, ${int(1, 3)}) OVER (${part} ${ord})`, `lead(x) OVER (${part} ${ord})`,
          `count(*) OVER (${part})`, `avg(g) OVER (${part} ${ord})`, `max(dt) OVER (${part} ${ord})`,
          `first_value(id) OVER (${part} ${ord})`, `ntile(${int(2, 9)}) OVER (${part} ${ord})`,
          `min(k) OVER (${part} ${ord} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)`,
        ], int(1, 3));
        return { sql: `SELECT id, ${calls.map((c, i) => `${c} AS w${i}`).join(', ')} FROM $T${where(scope, 0.3)}`, ordered: false };
      },
      () => ({ sql: `SELECT DISTINCT ${pickN(['uid', 'g', 's', 'b', 'k', 'dt'], int(1, 3)).join(', ')} FROM $T`, ordered: false }),
      () => {
        const cols = pickN(['uid', 'g', 's', 'b', 'k', 'dt', 'c'], int(1, 3)).join(', ');
        return { sql: `SELECT ${cols} FROM $T ${pick(['UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'])} SELECT ${cols} FROM $T WHERE ${expr(scope, 'bool', 1)}`, ordered: false };
      },
    ])();
  }

  const kinds = [
    [heavy, 10],
    [projection, 18], [() => groupBy([['', TABLES.T]], '$T', where([['', TABLES.T]], 0.6)), 14],
    [() => groupBy([['', TABLES.U]], '$U', where([['', TABLES.U]], 0.4)), 3],
    [() => { const s = [['', TABLES.T]]; return { sql: `SELECT ${[...new Set(Array.from({ length: int(1, 4) }, () => agg(s)))].map((a, i) => `${a} AS a${i}`).join(', ')} FROM $T${where(s, 0.6)}`, ordered: false }; }, 6],
    [windowQuery, 20], [join, 14], [semi, 6], [setOp, 8], [cte, 6], [distinct, 4], [topk, 5],
  ];
  const totalW = kinds.reduce((a, k) => a + k[1], 0);
  const out = [];
  for (let i = 0; i < n; i++) {
    let x = r() * totalW;
    let f = kinds[0][0];
    for (const [fn, wgt] of kinds) {
      if (x < wgt) { f = fn; break; }
      x -= wgt;
    }
    out.push(f());
  }
  return out;
}
