// Writes src/query/exec/unicode_tables.h, the tables that
// src/query/exec/unicode.c maps case and finds grapheme clusters with, from
// the Unicode Character Database (Debian's unicode-data package):
//
//   node scripts/gen_unicode_tables.mjs [UCD_DIR] > src/query/exec/unicode_tables.h
//
// UCD_DIR defaults to /usr/share/unicode. The tables follow utf8proc, which
// DuckDB's upper/lower and reverse use:
// - case: UnicodeData.txt's simple mappings, plus utf8proc's one addition,
//   ß uppercasing to ẞ; as runs of code points that map by the same offset,
//   every one or every other code point (the alternating Latin pairs).
// - grapheme clusters: GraphemeBreakProperty.txt's classes, emoji-data.txt's
//   Extended_Pictographic, and Indic_Conjunct_Break (rule GB9c of Unicode
//   15.1), derived here as 15.1 defines it because 15.0 files do not list it:
//   Consonant and Linker are the consonants and viramas of six scripts,
//   Extend the Extend and ZWJ characters that combine (ccc != 0) or join,
//   other scripts' viramas not among them (checked against DuckDB's
//   reverse for every code point between Devanagari consonants).
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? '/usr/share/unicode';
const read = (f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n');

// "0041..005A ; Prop # comment" lines: [first, last, prop].
function ranges(file) {
  const out = [];
  for (const line of read(file)) {
    const m = /^([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*([\w]+)/.exec(line);
    if (m) out.push([parseInt(m[1], 16), parseInt(m[2] ?? m[1], 16), m[3]]);
  }
  return out;
}

const upper = new Map(), lower = new Map(), ccc = new Map();
const N = 0x110000;
const assigned = new Uint8Array(N);
let first = -1; // of a <..., First> .. <..., Last> range
for (const line of read('UnicodeData.txt')) {
  const f = line.split(';');
  if (f.length < 14) continue;
  const cp = parseInt(f[0], 16);
  assigned[cp] = 1;
  if (f[1].endsWith(', First>')) first = cp;
  if (f[1].endsWith(', Last>')) assigned.fill(1, first, cp);
  if (f[3] !== '0') ccc.set(cp, +f[3]);
  if (f[12]) upper.set(cp, parseInt(f[12], 16));
  if (f[13]) lower.set(cp, parseInt(f[13], 16));
}
upper.set(0xdf, 0x1e9e); // utf8proc's special case: ß -> ẞ
// unicode.c sizes a result at 1.5 times the input: ASCII maps to ASCII and
// no character grows by more than half its bytes.
const u8len = (c) => (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
for (const m of [upper, lower])
  for (const [c, t] of m)
    if (2 * u8len(t) > 3 * u8len(c) || (c < 0x80 && t >= 0x80))
      throw new Error(`case mapping ${c.toString(16)} -> ${t.toString(16)} grows too much`);

// Runs {first, last, delta, step}: cp in [first, last] at multiples of step
// from first maps to cp + delta.
function caseRuns(map) {
  const cps = [...map.keys()].sort((a, b) => a - b);
  const runs = [];
  for (let i = 0; i < cps.length;) {
    const first = cps[i], delta = map.get(first);
    let step = 1, j = i + 1;
    if (j < cps.length && cps[j] - first <= 2 && map.get(cps[j]) - cps[j] === delta - first)
      step = cps[j] - first;
    while (j < cps.length && cps[j] - cps[j - 1] === step && map.get(cps[j]) - cps[j] === delta - first)
      j++;
    runs.push([first, cps[j - 1], delta - first, step]);
    i = j;
  }
  return runs;
}

const CLASSES = ['Other', 'CR', 'LF', 'Control', 'Extend', 'ZWJ', 'Regional_Indicator', 'Prepend',
                 'SpacingMark', 'L', 'V', 'T', 'LV', 'LVT', 'Extended_Pictographic'];
const INCB = { None: 0, Consonant: 1, Linker: 2, Extend: 3 };
const cls = new Uint8Array(N);
for (const [a, b, p] of ranges('auxiliary/GraphemeBreakProperty.txt')) {
  const k = CLASSES.indexOf(p);
  if (k < 0) throw new Error(`unknown grapheme class ${p}`);
  cls.fill(k, a, b + 1);
}
for (const [a, b, p] of ranges('emoji/emoji-data.txt')) {
  if (p !== 'Extended_Pictographic') continue;
  for (let c = a; c <= b; c++) {
    if (cls[c] !== 0) throw new Error(`Extended_Pictographic ${c.toString(16)} has a class`);
    cls[c] = CLASSES.indexOf(p);
  }
}
const scripts = new Uint8Array(N);
const INDIC = ['Bengali', 'Devanagari', 'Gujarati', 'Malayalam', 'Oriya', 'Telugu'];
for (const [a, b, p] of ranges('Scripts.txt'))
  if (INDIC.includes(p)) scripts.fill(1, a, b + 1);
const incb = new Uint8Array(N);
const virama = new Uint8Array(N);
for (const [a, b, p] of ranges('IndicSyllabicCategory.txt'))
  for (let c = a; c <= b; c++) {
    virama[c] = p === 'Virama';
    if (scripts[c] && (p === 'Consonant' || p === 'Virama'))
      incb[c] = p === 'Consonant' ? INCB.Consonant : INCB.Linker;
  }
for (let c = 0; c < N; c++) {
  const k = CLASSES[cls[c]];
  if (incb[c] === 0 && !virama[c] && ((k === 'Extend' && ccc.has(c)) || k === 'ZWJ'))
    incb[c] = INCB.Extend;
  // utf8proc has properties for assigned characters only: the others,
  // Control or Extended_Pictographic in these files, are Other there.
  if (!assigned[c]) cls[c] = incb[c] = 0;
}

// Boundaries: (first << 8) | class | incb << 4, each range running to the
// next one's first.
const bounds = [];
for (let c = 0, prev = -1; c < N; c++) {
  const v = cls[c] | (incb[c] << 4);
  if (v !== prev) bounds.push((c << 8 | v) >>> 0);
  prev = v;
}

const hex = (v) => '0x' + v.toString(16).toUpperCase();
const lines = (items, per) => {
  const out = [];
  for (let i = 0; i < items.length; i += per) out.push('    ' + items.slice(i, i + per).join(', ') + ',');
  return out.join('\n');
};
const runTable = (name, runs) =>
  `static const struct case_run ${name}[${runs.length}] = {\n` +
  lines(runs.map(([a, b, d, s]) => `{${hex(a)}, ${hex(b)}, ${d}, ${s}}`), 3) + '\n};\n';

process.stdout.write(`/* Generated by scripts/gen_unicode_tables.mjs from the Unicode Character
 * Database ${fs.readFileSync(path.join(dir, 'ReadMe.txt'), 'utf8').match(/Version (\S+)/)?.[1] ?? ''}: do not edit. */

/* Simple case mappings: code points first..last, every step-th from first,
 * map to cp + delta. */
${runTable('upper_runs', caseRuns(upper))}
${runTable('lower_runs', caseRuns(lower))}
/* Grapheme cluster properties from each (first << 8 | class | incb << 4) to
 * the next entry's first. */
static const uint32_t grapheme_ranges[${bounds.length}] = {
${lines(bounds.map(hex), 6)}
};
`);
