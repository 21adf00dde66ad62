// Column metrics of Parquet data files, computed by DuckDB, in the form
// scripts/iceberg_table.py --stats takes: value and null counts and lower and
// upper bounds per field id, for the flat primitive columns of an Iceberg
// schema (bounds as numbers: timestamps in microseconds, dates in days,
// decimals unscaled; strings as they are).
//
//   import { fileStats } from './iceberg_stats.mjs';
//   stats[relPath] = await fileStats(conn, absPath, schema);
export async function fileStats(conn, file, schema) {
  const f = file.replaceAll("'", "''");
  const out = { value_counts: {}, null_value_counts: {}, lower_bounds: {}, upper_bounds: {} };
  for (const field of schema.fields) {
    const col = `"${field.name.replaceAll('"', '""')}"`;
    let key = col;
    let text = false; // HUGEINT bounds come back as text, exact
    const t = field.type;
    if (t === 'timestamp' || t === 'timestamptz') key = `epoch_us(${col})`;
    else if (t === 'date') key = `(${col} - DATE '1970-01-01')`;
    else if (typeof t === 'string' && t.startsWith('decimal')) {
      const scale = Number(/,\s*(\d+)\)/.exec(t)[1]);
      key = `(${col} * ${10 ** scale})::HUGEINT`;
      text = true;
    }
    const lo = text ? `min(${key})::VARCHAR` : `min(${key})`;
    const hi = text ? `max(${key})::VARCHAR` : `max(${key})`;
    const [r] = (await conn.runAndReadAll(
      `SELECT count(*)::BIGINT AS n, (count(*) - count(${col}))::BIGINT AS nulls,
              ${lo} AS lo, ${hi} AS hi FROM read_parquet('${f}')`)).getRowObjectsJS();
    const id = String(field.id);
    out.value_counts[id] = Number(r.n);
    out.null_value_counts[id] = Number(r.nulls);
    const norm = (v) => (typeof v === 'bigint' ? v.toString() : v);
    if (r.lo !== null && r.lo !== undefined) out.lower_bounds[id] = norm(r.lo);
    if (r.hi !== null && r.hi !== undefined) out.upper_bounds[id] = norm(r.hi);
  }
  return out;
}
