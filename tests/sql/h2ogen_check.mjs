// The shapes of groupby-datagen.R and join-datagen.R checked by DuckDB over
// the files of basalt-h2ogen: column types, row counts, the id formats and
// domains, the NA shares (NAS% of each id column's distinct values, NAS% of
// each v column's rows), value ranges and rounding, the sort order, and for
// the join tables the key ranges that make ~90% of x's rows match. Each
// check is a query whose answer must equal the value written here from the
// R scripts' rules, not from the generator.
//   node h2ogen_check.mjs groupby DIR ROWS K NAS [SORTED_DIR]
//   node h2ogen_check.mjs join DIR ROWS
// Prints one line per failed check and exits 1 if any failed.
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';

const [mode, dir, rowsArg, kArg, nasArg, sortedDir] = process.argv.slice(2);
const rows = Number(rowsArg);
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
const file = t => `read_parquet('${path.join(dir, t + '.parquet')}')`;
const checks = [];

if (mode === 'groupby') {
  const k = Number(kArg), nas = Number(nasArg), groups = Math.floor(rows / k);
  const left = d => d - Math.floor(d * nas / 100);
  await conn.run(`CREATE VIEW x AS SELECT * FROM ${file('x')}`);
  checks.push(
    ['column types', `SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE x)`,
      'id1 VARCHAR, id2 VARCHAR, id3 VARCHAR, id4 INTEGER, id5 INTEGER, id6 INTEGER, v1 INTEGER, v2 INTEGER, v3 DOUBLE'],
    ['rows', `SELECT count(*) FROM x`, rows],
    ['id formats', `SELECT count(*) FROM x WHERE NOT regexp_full_match(id1, 'id\\d{3,}') OR NOT regexp_full_match(id2, 'id\\d{3,}')
       OR NOT regexp_full_match(id3, 'id\\d{10}')`, 0],
    ['id domains', `SELECT count(*) FROM x WHERE id1[3:]::INT NOT BETWEEN 1 AND ${k} OR id2[3:]::INT NOT BETWEEN 1 AND ${k}
       OR id3[3:]::BIGINT NOT BETWEEN 1 AND ${groups} OR id4 NOT BETWEEN 1 AND ${k} OR id5 NOT BETWEEN 1 AND ${k}
       OR id6 NOT BETWEEN 1 AND ${groups}`, 0],
    // NAs by value: the ids left are the domain less NAS% of it (every
    // value turns up at rows/K or K rows per value).
    ['distinct ids left after NAs', `SELECT [count(DISTINCT id1), count(DISTINCT id2), count(DISTINCT id3), count(DISTINCT id4),
       count(DISTINCT id5), count(DISTINCT id6)]::VARCHAR FROM x`,
      `[${left(k)}, ${left(k)}, ${left(groups)}, ${left(k)}, ${left(k)}, ${left(groups)}]`],
    ['an NA id value has no row left', `SELECT count(*) FROM (SELECT id1 FROM x WHERE id1 IS NOT NULL GROUP BY id1 HAVING count(*) = 0)`, 0],
    ['v NAs: NAS% of the rows exactly', `SELECT [count(*) - count(v1), count(*) - count(v2), count(*) - count(v3)]::VARCHAR FROM x`,
      `[${Math.floor(rows * nas / 100)}, ${Math.floor(rows * nas / 100)}, ${Math.floor(rows * nas / 100)}]`],
    ['v ranges, v3 to 6 places', `SELECT count(*) FROM x WHERE v1 NOT BETWEEN 1 AND 5 OR v2 NOT BETWEEN 1 AND 15
       OR v3 NOT BETWEEN 0 AND 100 OR v3 <> round(v3, 6)`, 0],
    ['v1 uniform over 1..5 (within 2 points)', `SELECT max(abs(c / (SELECT count(v1) FROM x) - 0.2)) < 0.02 FROM (SELECT count(*) c FROM x WHERE v1 IS NOT NULL GROUP BY v1)`, true],
    ['v2 uniform over 1..15 (15 values, none far off)', `SELECT count(*) = 15 AND max(c) < 1.3 * min(c) FROM (SELECT count(*) c FROM x WHERE v2 IS NOT NULL GROUP BY v2)`, true],
    ['v3 mean near 50', `SELECT abs(avg(v3) - 50) < 0.5 FROM x`, true],
    ['columns independent', `SELECT abs(corr(v1, v2)) < 0.02 AND abs(corr(id4, id5)) < 0.02 AND abs(corr(v3, id6)) < 0.02 FROM x`, true],
  );
  if (sortedDir) {
    const sorted = `read_parquet('${path.join(sortedDir, 'x.parquet')}', file_row_number = true)`;
    checks.push(
      ['--sort 1: the same rows', `SELECT count(*) FROM (SELECT * EXCLUDE (file_row_number) FROM ${sorted} EXCEPT ALL SELECT * FROM x)`, 0],
      ['--sort 1: ordered by id1..id6, NAs first', `SELECT count(*) FROM (SELECT file_row_number f, row_number() OVER (ORDER BY
         id1 NULLS FIRST, id2 NULLS FIRST, id3 NULLS FIRST, id4 NULLS FIRST, id5 NULLS FIRST, id6 NULLS FIRST, file_row_number) - 1 r
         FROM ${sorted}) WHERE f <> r`, 0],
    );
  }
} else if (mode === 'join') {
  const n1 = Math.max(10, Math.floor(rows / 1e6)), n2 = Math.max(10, Math.floor(rows / 1e3));
  for (const t of ['x', 'small', 'medium', 'big']) await conn.run(`CREATE VIEW ${t} AS SELECT * FROM ${file(t)}`);
  // 0.9n keys on both sides, 0.1n on one side only.
  const common = n => n - Math.round(n / 10);
  checks.push(
    ...Object.entries({
      x: 'id1 INTEGER, id2 INTEGER, id3 INTEGER, id4 VARCHAR, id5 VARCHAR, id6 VARCHAR, v1 DOUBLE',
      small: 'id1 INTEGER, id4 VARCHAR, v2 DOUBLE',
      medium: 'id1 INTEGER, id2 INTEGER, id4 VARCHAR, id5 VARCHAR, v2 DOUBLE',
      big: 'id1 INTEGER, id2 INTEGER, id3 INTEGER, id4 VARCHAR, id5 VARCHAR, id6 VARCHAR, v2 DOUBLE',
    }).map(([t, want]) => [`${t} column types`, `SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE ${t})`, want]),
    ['rows', `SELECT [(SELECT count(*) FROM x), (SELECT count(*) FROM small), (SELECT count(*) FROM medium), (SELECT count(*) FROM big)]::VARCHAR`,
      `[${rows}, ${n1}, ${n2}, ${rows}]`],
    ['no NULLs', `SELECT (SELECT count(*) FROM x WHERE (x IS NULL) OR id1 IS NULL OR id2 IS NULL OR id3 IS NULL OR v1 IS NULL)
       + (SELECT count(*) FROM big WHERE id1 IS NULL OR id2 IS NULL OR id3 IS NULL OR v2 IS NULL)`, 0],
    ['id4..id6 are "id" and id1..id3', `SELECT (SELECT count(*) FROM x WHERE id4 <> 'id' || id1 OR id5 <> 'id' || id2 OR id6 <> 'id' || id3)
       + (SELECT count(*) FROM small WHERE id4 <> 'id' || id1) + (SELECT count(*) FROM medium WHERE id4 <> 'id' || id1 OR id5 <> 'id' || id2)
       + (SELECT count(*) FROM big WHERE id4 <> 'id' || id1 OR id5 <> 'id' || id2 OR id6 <> 'id' || id3)`, 0],
    // Each side holds n keys of its domain, every one of them.
    ['distinct keys per side', `SELECT [(SELECT count(DISTINCT id1) FROM x), (SELECT count(DISTINCT id2) FROM x), (SELECT count(DISTINCT id3) FROM x),
       (SELECT count(DISTINCT id1) FROM small), (SELECT count(DISTINCT id1) FROM medium), (SELECT count(DISTINCT id2) FROM medium),
       (SELECT count(DISTINCT id1) FROM big), (SELECT count(DISTINCT id2) FROM big), (SELECT count(DISTINCT id3) FROM big)]::VARCHAR`,
      `[${n1}, ${n2}, ${rows}, ${n1}, ${n1}, ${n2}, ${n1}, ${n2}, ${rows}]`],
    ['keys shared by both sides', `SELECT [(SELECT count(*) FROM (SELECT id1 FROM x INTERSECT SELECT id1 FROM small)),
       (SELECT count(*) FROM (SELECT id1 FROM medium INTERSECT SELECT id1 FROM small)),
       (SELECT count(*) FROM (SELECT id2 FROM x INTERSECT SELECT id2 FROM medium)),
       (SELECT count(*) FROM (SELECT id3 FROM x INTERSECT SELECT id3 FROM big))]::VARCHAR`,
      `[${common(n1)}, ${n1}, ${common(n2)}, ${common(rows)}]`],
    ['key ranges 1..1.1n', `SELECT (SELECT max(id1) FROM (SELECT id1 FROM x UNION SELECT id1 FROM small)) = ${n1 + Math.round(n1 / 10)}
       AND (SELECT max(id2) FROM (SELECT id2 FROM x UNION SELECT id2 FROM medium)) = ${n2 + Math.round(n2 / 10)}
       AND (SELECT max(id3) FROM (SELECT id3 FROM x UNION SELECT id3 FROM big)) = ${rows + Math.round(rows / 10)}`, true],
    ['joins match about 90% of x', `SELECT [(SELECT count(*) FROM x JOIN small USING (id1)), (SELECT count(*) FROM x JOIN medium USING (id2))]
       ::DOUBLE[] <-> [${0.9 * rows}, ${0.9 * rows}]::DOUBLE[] < ${0.05 * rows}`, true],
    ['v ranges, to 6 places', `SELECT (SELECT count(*) FROM x WHERE v1 NOT BETWEEN 0 AND 100 OR v1 <> round(v1, 6))
       + (SELECT count(*) FROM big WHERE v2 NOT BETWEEN 0 AND 100 OR v2 <> round(v2, 6))`, 0],
  );
} else {
  console.error('usage: node h2ogen_check.mjs groupby DIR ROWS K NAS [SORTED_DIR] | join DIR ROWS');
  process.exit(2);
}

let failed = 0;
for (const [name, sql, want] of checks) {
  let got;
  try {
    const r = await conn.runAndReadAll(sql);
    got = r.getRowsJson()[0][0];
  } catch (e) {
    got = `error: ${String(e.message).split('\n')[0]}`;
  }
  if (String(got) !== String(want)) {
    failed++;
    console.log(`SHAPE ${mode} ${name}: got ${got}, want ${want}`);
  }
}
console.log(`${checks.length} ${mode} generator checks, ${failed} failed`);
process.exit(failed ? 1 : 0);
