// parseDmlcFloat reads decimal text into the same float32 as xgboost 1.7.4's CSV reader, recorded
// for 3 000+ random and edge-case strings by scripts/fixtures/xgboost-train/generate_floats.py.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { parseDmlcFloat } from './dmlc-float.js';

const enc = new TextEncoder();
const parse = (s: string): number | undefined => {
  const b = enc.encode(s);
  return parseDmlcFloat(b, 0, b.length);
};

const fixture = JSON.parse(
  readFileSync(resolve(process.cwd(), 'test', 'fixtures', 'xgboost-train', 'io', 'floats.json'), 'utf8'),
) as { xgboostVersion: string; cases: [string, number | 'inf'][] };

describe('parseDmlcFloat', () => {
  test(`every recorded string reads as xgboost ${fixture.xgboostVersion} read it, bit for bit`, () => {
    let roundedDifferently = 0;
    for (const [text, want] of fixture.cases) {
      const got = parse(text);
      if (want === 'inf') {
        assert.ok(got === Infinity || got === -Infinity, `${JSON.stringify(text)}: xgboost overflowed, we read ${got}`);
        continue;
      }
      // === : the fixture cannot tell -0 from 0 (scipy's CSR view), the value is what matters
      assert.ok(got === want, `${JSON.stringify(text)}: xgboost read ${want}, we read ${got}`);
      if (Math.fround(Number(text)) !== want) roundedDifferently++;
    }
    // The reason for the exact emulation: a correctly rounded parse disagrees with xgboost on some.
    assert.ok(roundedDifferently > 0, 'some fixture strings read differently from a correctly rounded strtof');
  });

  test('dmlc quirks: fraction digits after the 19th are ignored, exponents clip at 38', () => {
    assert.equal(parse('1.00000005960464477539062501'), 1); // strtof: 1.0000001192092896
    assert.equal(parse('0e-38'), Math.fround(1.1754942106924411e-38));
    assert.equal(parse('1e-46'), Math.fround(1.1754942106924411e-38));
    assert.equal(parse('1.5e39'), Math.fround(1.5000001041609259e38));
    assert.equal(parse('-2.5'), -2.5);
    assert.equal(parse('+.5'), 0.5);
  });

  test('nan and inf are recognised case-insensitively; the reader decides what they mean', () => {
    for (const s of ['nan', 'NaN', '-nan', 'NAN']) assert.ok(Number.isNaN(parse(s)), s);
    assert.equal(parse('inf'), Infinity);
    assert.equal(parse('-Infinity'), -Infinity);
  });

  test('anything that is not entirely a number is refused (dmlc would read a prefix or a zero)', () => {
    for (const s of [
      '',
      '  ',
      'abc',
      'label',
      '1abc',
      '2x',
      '"9"',
      '0x10',
      '1e',
      '.',
      '-',
      '1.2.3',
      '1,5',
      'infin',
      '3f',
    ]) {
      assert.equal(parse(s), undefined, JSON.stringify(s));
    }
  });
});
