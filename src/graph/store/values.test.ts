import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, parseDate, parseValue } from './values.js';

describe('typed values', () => {
  it('parses the Gremlin CSV types and rejects what does not fit', () => {
    assert.deepEqual(parseValue('int', ' 42 '), { type: 'int', value: '42', num: 42 });
    assert.equal(parseValue('byte', '200'), undefined);
    assert.equal(parseValue('int', '2147483648'), undefined);
    assert.equal(parseValue('long', '9223372036854775807')?.value, '9223372036854775807');
    assert.equal(parseValue('bool', 'TRUE')?.value, 'true');
    assert.equal(parseValue('bool', 'yes'), undefined);
    assert.equal(parseValue('double', '1.5e3')?.num, 1500);
    assert.equal(parseValue('float', 'abc'), undefined);
  });

  it('accepts the loader date formats and normalises them to UTC', () => {
    assert.equal(parseValue('date', '2024-03-01')?.value, '2024-03-01T00:00:00.000Z');
    assert.equal(parseValue('date', '2024-03-01T10:20')?.value, '2024-03-01T10:20:00.000Z');
    assert.equal(parseValue('date', '2024-03-01T10:20:30+02:00')?.value, '2024-03-01T08:20:30.000Z');
    assert.equal(parseValue('date', '2024-02-30'), undefined);
    assert.equal(parseValue('date', 'yesterday'), undefined);
  });

  it('reads yyyy-MM-ddTHH:mm:ssZ by position exactly as the general date parser does', () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const two = (n: number) => String(n).padStart(2, '0');
    const texts = ['2024-02-29T23:59:59Z', '2023-02-29T00:00:00Z', '1900-02-29T12:00:00Z', '2000-02-29T12:00:00Z'];
    texts.push('0099-05-05T05:05:05Z', '0100-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2024-1a-01T00:00:00Z');
    texts.push('2024-01-01 00:00:00Z', '2024-01-01T00:00:00z', '2024-01-01T00-00:00Z', '+024-01-01T00:00:00Z');
    for (let i = 0; i < 20_000; i++) {
      const y = String(random(3) === 0 ? random(10_000) : 1900 + random(200)).padStart(4, '0');
      texts.push(
        `${y}-${two(random(14))}-${two(random(33))}T${two(random(26))}:${two(random(62))}:${two(random(62))}Z`,
      );
    }
    let valid = 0;
    for (const t of texts) {
      const got = parseValue('date', t);
      assert.deepEqual(got, parseDate(t), t);
      if (got) valid++;
    }
    assert.ok(valid > 5_000 && valid < texts.length - 5_000, `${valid} of ${texts.length} valid`);
  });

  it('decodes stored values to JS values', () => {
    assert.equal(decodeValue('long', '9223372036854775807'), 9223372036854775807n);
    assert.equal(decodeValue('bool', 'false'), false);
    assert.deepEqual(decodeValue('date', '2024-03-01T00:00:00.000Z'), new Date('2024-03-01T00:00:00Z'));
  });
});
