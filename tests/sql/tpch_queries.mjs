// The 22 TPC-H queries of tests/sql/queries/tpch over Parquet files, in a
// text both `basalt sql` and DuckDB run: every table named in a FROM list
// or JOIN becomes the quoted path of its file, keeping the table's name as
// the alias ("lineitem" -> "'DIR/lineitem.parquet' AS lineitem", "lineitem
// l1" -> "'DIR/lineitem.parquet' l1"). Nothing else in the query changes.
//
// As a module: tpchQuery(n, dir), tpchQueryNames(), isOrdered(text).
// As a program: node tpch_queries.mjs DATA_DIR OUT_DIR writes OUT_DIR/qNN.sql.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const queryDir = path.join(here, 'queries', 'tpch');
export const tables = ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'];

// Words that may follow a table reference but are not an alias.
const notAlias = new Set(['where', 'on', 'using', 'left', 'right', 'full', 'inner', 'outer', 'cross',
  'join', 'semi', 'anti', 'group', 'order', 'having', 'limit', 'union', 'except', 'intersect', 'window',
  'qualify', 'natural', 'as']);

export function tpchQueryNames() {
  return fs.readdirSync(queryDir).filter(f => /^q\d\d\.sql$/.test(f)).map(f => f.slice(0, 3)).sort();
}

// `names`: the tables to substitute (the TPC-H ones unless given).
export function substituteTables(text, dir, names = tables) {
  const re = new RegExp(`\\b(${names.join('|')})\\b`, 'g');
  let out = '', last = 0, m;
  while ((m = re.exec(text)) !== null) {
    const before = text.slice(0, m.index).replace(/--[^\n]*$/gm, '');
    const prev = before.match(/(\w+|,|\()\s*$/);
    // A table reference follows FROM, JOIN, or a comma of a FROM list (the
    // nearest clause keyword before it is FROM).
    let isTable = false;
    if (prev && /^(from|join)$/i.test(prev[1])) isTable = true;
    else if (prev && prev[1] === ',') {
      const clause = before.match(/\b(select|from|where|group|order|having|on|by)\b(?![\s\S]*\b(select|from|where|group|order|having|on|by)\b)/i);
      isTable = clause !== null && /^from$/i.test(clause[1]);
    }
    if (!isTable) continue;
    const after = text.slice(m.index + m[0].length).match(/^\s+([A-Za-z_]\w*)/);
    const hasAlias = after !== null && !notAlias.has(after[1].toLowerCase());
    const file = `'${path.join(dir, m[1] + '.parquet')}'`;
    out += text.slice(last, m.index) + (hasAlias ? file : `${file} AS ${m[1]}`);
    last = m.index + m[0].length;
  }
  return out + text.slice(last);
}

export function tpchQuery(name, dir) {
  return substituteTables(fs.readFileSync(path.join(queryDir, `${name}.sql`), 'utf8'), dir);
}

// True when the outermost query has an ORDER BY (its rows then compare in
// order): an ORDER BY at parenthesis depth 0.
export function isOrdered(text) {
  let depth = 0;
  const s = text.replace(/'[^']*'/g, "''").replace(/--[^\n]*/g, '');
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (depth === 0 && /^order\s+by\b/i.test(s.slice(i, i + 20)) && /\W/.test(s[i - 1] ?? ' ')) return true;
  }
  return false;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, outDir] = process.argv.slice(2);
  if (!dir || !outDir) {
    console.error('usage: node tpch_queries.mjs DATA_DIR OUT_DIR');
    process.exit(2);
  }
  fs.mkdirSync(outDir, { recursive: true });
  for (const q of tpchQueryNames()) fs.writeFileSync(path.join(outDir, `${q}.sql`), tpchQuery(q, path.resolve(dir)));
}
