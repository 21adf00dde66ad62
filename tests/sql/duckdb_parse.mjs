// DuckDB's side of the parser differential (tests/unit/sql/differential_test.c).
//
//   node duckdb_parse.mjs SEED COUNT OUT.txt
//
// Generates COUNT random expressions (seeded) over columns a..e with every
// operator the precedence table has, written with as few parentheses as
// possible (DuckDB's generic operators ** ^ & | << >> ^@ ~ !~ ~~ !~~ ~~* !~~*
// and SIMILAR TO included), and asks DuckDB's own parser (json_serialize_sql) for each
// one's tree. OUT.txt gets `expr<TAB>tree` per expression, the tree in a
// neutral prefix form (`+(a, *(b, c))`), or `expr<TAB>ERROR` where DuckDB
// reports a syntax error. The neutral form keeps what DuckDB's transformer
// does: AND/OR lists flattened, NOT over a comparison flipped, NOT over IN
// as NOT IN.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [seedArg, countArg, out] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();

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
const r = rng(Number(seedArg));
const pick = a => a[Math.floor(r() * a.length)];

const binops = ['+', '-', '*', '/', '//', '%', '||', '=', '==', '<>', '!=', '<', '<=', '>', '>=',
                'AND', 'OR', 'and', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM',
                '**', '^', '&', '|', '<<', '>>', '^@', '~', '!~', '~~', '!~~', '~~*', '!~~*'];
function gen(depth) {
  if (depth <= 0 || r() < 0.15)
    return pick(['a', 'b', 'c', 'd', 'e', 't.a', 'B']);
  const x = () => gen(depth - 1);
  switch (Math.floor(r() * 12)) {
    case 0: case 1: case 2: case 3: return `${x()} ${pick(binops)} ${x()}`;
    case 4: return `${pick(['NOT', 'not', '-', '+', '- -', '~', '- ~'])} ${x()}`;
    case 5: return `${x()} ${pick(['IS NULL', 'IS NOT NULL', 'ISNULL', 'NOTNULL'])}`;
    case 6: return `${x()}::${pick(['int', 'varchar', 'double'])}`;
    case 7: return `${x()} ${pick(['', 'NOT '])}BETWEEN ${x()} AND ${x()}`;
    case 8: return `${x()} ${pick(['', 'NOT '])}IN (${x()}, ${x()})`;
    case 9: return `${x()} ${pick(['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE', 'SIMILAR TO', 'NOT SIMILAR TO'])} ${x()}`;
    default: return `(${x()})`;
  }
}

const cmp = {
  COMPARE_EQUAL: '=', COMPARE_NOTEQUAL: '<>', COMPARE_LESSTHAN: '<', COMPARE_GREATERTHAN: '>',
  COMPARE_LESSTHANOREQUALTO: '<=', COMPARE_GREATERTHANOREQUALTO: '>=',
  COMPARE_DISTINCT_FROM: 'distinct', COMPARE_NOT_DISTINCT_FROM: 'notdistinct',
};
const fn = { '~~': 'like', '!~~': 'notlike', '~~*': 'ilike', '!~~*': 'notilike' };
const ops = {
  CONJUNCTION_AND: 'and', CONJUNCTION_OR: 'or', OPERATOR_NOT: 'not', OPERATOR_IS_NULL: 'isnull',
  OPERATOR_IS_NOT_NULL: 'isnotnull', COMPARE_IN: 'in', COMPARE_NOT_IN: 'notin',
};
function tree(e) {
  const list = a => a.map(tree).join(', ');
  switch (e.class) {
    case 'COLUMN_REF': return e.column_names.join('.').toLowerCase(); // unquoted: case-insensitive
    case 'FUNCTION': return `${fn[e.function_name] ?? e.function_name}(${list(e.children)})`;
    case 'COMPARISON': return `${cmp[e.type] ?? e.type}(${tree(e.left)}, ${tree(e.right)})`;
    case 'CONJUNCTION': case 'OPERATOR': return `${ops[e.type] ?? e.type}(${list(e.children)})`;
    case 'BETWEEN': return `between(${list([e.input, e.lower, e.upper])})`;
    case 'CAST': return `cast(${tree(e.child)})`;
    default: return `?${e.class}`;
  }
}

const lines = [];
for (let i = 0; i < Number(countArg); i++) {
  const sql = gen(1 + Math.floor(r() * 5));
  const quoted = `SELECT ${sql}`.replace(/'/g, "''");
  const res = await conn.runAndReadAll(`SELECT json_serialize_sql('${quoted}')`);
  const j = JSON.parse(res.getRows()[0][0]);
  lines.push(`${sql}\t${j.error ? 'ERROR' : tree(j.statements[0].node.select_list[0])}`);
}
fs.writeFileSync(out, lines.join('\n') + '\n');
