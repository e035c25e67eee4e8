import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readArg } from './bytecode.js';
import { readBinaryRequest } from './graphbinary.js';
import { checkQuerySize, MAX_STEPS } from './limits.js';
import { parseGremlin } from './parser.js';

const limited = { code: 'QueryLimitException' };

describe('query size limits', () => {
  it('counts the steps of nested traversals too', () => {
    checkQuerySize(parseGremlin(`g.V()${'.out()'.repeat(MAX_STEPS - 1)}`));
    assert.throws(() => checkQuerySize(parseGremlin(`g.V()${'.out()'.repeat(MAX_STEPS)}`)), limited);
    const half = '.out()'.repeat(MAX_STEPS / 2);
    assert.throws(() => checkQuerySize(parseGremlin(`g.V()${half}.where(__${half})`)), limited);
  });

  it('refuses GraphSON nested deeper than the parser allows, without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.throws(() => readArg(deep as never), limited);
    // The reader is usable again afterwards.
    assert.deepEqual(readArg(['a'] as never), ['a']);
  });

  it('refuses GraphBinary nested too deep, and BulkSets that expand without bound', () => {
    const header = Buffer.concat([
      Buffer.from([0x81]),
      Buffer.alloc(16),
      str('bytecode'),
      str('traversal'),
      int(1),
      typed(0x03, str('gremlin')),
    ]);
    const list = Buffer.concat([Buffer.from([0x09, 0x00]), int(1)]);
    // The args map's value: a list of a list of ... 50,000 deep (the depth check comes before the end).
    assert.throws(
      () => readBinaryRequest(Buffer.concat([header, Buffer.alloc(list.length * 50_000).fill(list)])),
      limited,
    );
    const bulk = Buffer.concat([header, Buffer.from([0x2a, 0x00]), int(1), typed(0x01, int(7)), long(2n ** 40n)]);
    assert.throws(() => readBinaryRequest(bulk), limited);
  });
});

function int(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}
function long(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
}
function str(s: string): Buffer {
  return Buffer.concat([int(Buffer.byteLength(s)), Buffer.from(s)]);
}
function typed(code: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([code, 0x00]), value]);
}
