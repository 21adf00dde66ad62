// Results compared as Parquet files inside DuckDB, for results too large to
// hold in node (the H2O queries at 1e7 rows return 1e7 rows of 8-12
// columns). The rules are tests/sql/result_compare.mjs': columns by
// position, numbers of any type as numbers (DuckDB's DECIMAL meets a
// DOUBLE), equal to 1e-9 relative or absTol absolute, NULL only equal to
// NULL, other values as text; rows as multisets unless `ordered`.
//
//   await compareParquet(conn, expected, actual, { ordered, exact, absTol, names })
//     -> null when the files agree, else a one-line description of the
//        first difference (names: [expectedName, actualName] for it;
//        exact: numbers equal only when equal as DOUBLEs)
//   await parquetRows(conn, file) -> { rows, allNull } (allNull: every value
//     of every row is NULL)
//
// Unordered files are put in one order first: each file is copied into a
// table sorted by its columns, those that compare exactly (integers, text)
// before the floating ones, so that rows differing in rounding only still
// meet. Rows then pair up by their place in those tables.

const numericTypes = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/;
const floatTypes = /^(FLOAT|DOUBLE)/;
const quote = s => `'${s.replaceAll("'", "''")}'`;

async function columnTypes(conn, file) {
  const reader = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${quote(file)})`);
  return reader.getRowObjectsJson().map(r => String(r.column_type));
}

async function scalar(conn, sql) {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowsJson()[0];
}

export async function parquetRows(conn, file) {
  const types = await columnTypes(conn, file);
  const cols = types.map((_, k) => `c${k}`);
  const [rows, nonNull] = await scalar(conn, `SELECT count(*), count(*) FILTER (WHERE NOT (${cols.map(c => `${c} IS NULL`).join(' AND ')}))
    FROM read_parquet(${quote(file)}) AS f(${cols.join(', ')})`);
  return { rows: Number(rows), allNull: Number(nonNull) === 0 };
}

let tableSerial = 0;

export async function compareParquet(conn, expected, actual, { ordered = false, exact = false, absTol = 0, names = ['duckdb', 'basalt'] } = {}) {
  const [te, ta] = [await columnTypes(conn, expected), await columnTypes(conn, actual)];
  if (te.length !== ta.length) return `${te.length} columns in ${names[0]}, ${ta.length} in ${names[1]}`;
  const cols = te.map((_, k) => `c${k}`);
  const numeric = te.map((t, k) => numericTypes.test(t) && numericTypes.test(ta[k]));
  for (let k = 0; k < te.length; k++)
    if (numericTypes.test(te[k]) !== numericTypes.test(ta[k])) return `column ${k}: ${te[k]} in ${names[0]}, ${ta[k]} in ${names[1]}`;
  // Both sides' values in a comparable form: numbers as DOUBLE, the rest as text.
  const value = k => (numeric[k] ? `${cols[k]}::DOUBLE` : `${cols[k]}::VARCHAR`);
  const exactFirst = [...cols.keys()].sort((a, b) => {
    const fa = floatTypes.test(te[a]) || floatTypes.test(ta[a]), fb = floatTypes.test(te[b]) || floatTypes.test(ta[b]);
    return fa === fb ? a - b : fa ? 1 : -1;
  });
  // In order: the row's place in the file; else its place among the sorted rows.
  const order = ordered ? 'ORDER BY file_row_number' : `ORDER BY ${exactFirst.map(k => `${value(k)} NULLS FIRST`).join(', ')}`;
  const serial = tableSerial++;
  const [a, b] = [`cmp_e${serial}`, `cmp_a${serial}`];
  const load = (name, file) => conn.run(`CREATE TEMP TABLE ${name} AS
    SELECT row_number() OVER (${order}) AS rn, ${cols.map((c, k) => `${value(k)} AS ${c}`).join(', ')}
    FROM read_parquet(${quote(file)}, file_row_number = true) AS f(${cols.join(', ')})`);
  try {
    await load(a, expected);
    await load(b, actual);
    const [na, nb] = await scalar(conn, `SELECT (SELECT count(*) FROM ${a}), (SELECT count(*) FROM ${b})`);
    if (Number(na) !== Number(nb)) return `${na} rows in ${names[0]}, ${nb} in ${names[1]}`;
    const same = k => {
      const [x, y] = [`e.${cols[k]}`, `o.${cols[k]}`];
      if (!numeric[k] || exact) return `${x} IS NOT DISTINCT FROM ${y}`;
      return `(${x} IS NOT DISTINCT FROM ${y} OR (isnan(${x}) AND isnan(${y}))
        OR abs(${x} - ${y}) <= ${absTol} OR abs(${x} - ${y}) <= 1e-9 * greatest(abs(${x}), abs(${y})))`;
    };
    const differs = cols.map((_, k) => `NOT coalesce(${same(k)}, false)`);
    const reader = await conn.runAndReadAll(`SELECT e.rn,
        CASE ${differs.map((d, k) => `WHEN ${d} THEN ${k}`).join(' ')} END AS col,
        ${cols.map(c => `e.${c}, o.${c}`).join(', ')}
      FROM ${a} e JOIN ${b} o USING (rn)
      WHERE ${differs.join(' OR ')}
      ORDER BY e.rn LIMIT 1`);
    const bad = reader.getRowsJson()[0];
    if (!bad) return null;
    const k = Number(bad[1]);
    return `row ${Number(bad[0]) - 1} col ${k}: ${names[0]} ${JSON.stringify(bad[2 + 2 * k])} ${names[1]} ${JSON.stringify(bad[3 + 2 * k])}`;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS ${a}`);
    await conn.run(`DROP TABLE IF EXISTS ${b}`);
  }
}
