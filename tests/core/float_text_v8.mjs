// V8's shortest round-trip digits for doubles, the oracle of
// tests/unit/core/float_text_test.c's float_text_v8_differential.
//
//   node tests/core/float_text_v8.mjs IN OUT
//
// IN has one double a line as 16 hex digits (its bit pattern); OUT gets, for
// each, its digits and the decimal exponent of the first digit, as
// Number.prototype.toExponential() without an argument prints them (the
// fewest digits that read back, nearest the value: ECMAScript's
// Number::toString rule).
import fs from 'node:fs';

const [inPath, outPath] = process.argv.slice(2);
if (!inPath || !outPath) {
  console.error('usage: node tests/core/float_text_v8.mjs IN OUT');
  process.exit(2);
}
const bits = new BigUint64Array(1);
const value = new Float64Array(bits.buffer);
const out = [];
for (const line of fs.readFileSync(inPath, 'utf8').split('\n')) {
  if (!line)
    continue;
  bits[0] = BigInt('0x' + line);
  const text = Math.abs(value[0]).toExponential(); // d[.ddd]e[+-]x
  const e = text.indexOf('e');
  out.push(`${text.slice(0, e).replace('.', '')} ${Number(text.slice(e + 1))}`);
}
fs.writeFileSync(outPath, out.join('\n') + '\n');
