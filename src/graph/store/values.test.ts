import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeValue, parseValue } from './values.js';

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

  it('decodes stored values to JS values', () => {
    assert.equal(decodeValue('long', '9223372036854775807'), 9223372036854775807n);
    assert.equal(decodeValue('bool', 'false'), false);
    assert.deepEqual(decodeValue('date', '2024-03-01T00:00:00.000Z'), new Date('2024-03-01T00:00:00Z'));
  });
});
