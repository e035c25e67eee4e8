import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdFingerprints } from './id-fingerprints.js';

const one = (f: IdFingerprints, id: string) => f.addAllNew([id], 0, 1);

test('a million distinct ids are new once, then seen; growing keeps them all', () => {
  const f = new IdFingerprints(4);
  const id = (i: number) => `edge-${i.toString(36)}-${(i * 7919) % 1000}`;
  const rows: unknown[] = [];
  for (let i = 0; i < 1_000_000; i++) {
    rows.push(id(i), 'label', i, i + 1);
    if (rows.length === 4 * 2000) {
      // A 64-bit fingerprint collision among a million ids is about a one-in-ten-million event.
      assert.equal(f.addAllNew(rows, 0, 4), true, `the batch ending at ${i}`);
      rows.length = 0;
    }
  }
  assert.equal(f.size, 1_000_000);
  for (let i = 0; i < 1_000_000; i += 997) assert.equal(one(f, id(i)), false);
  assert.equal(f.size, 1_000_000);
  assert.equal(one(f, ''), true);
  assert.equal(one(f, ''), false);
  assert.equal(one(f, 'é\u0000x'), true);
  assert.equal(one(f, 'é\u0000y'), true);
});

test('in batches: false exactly for a batch with an id seen before or twice in it', () => {
  const f = new IdFingerprints(4);
  const seen = new Set<string>();
  const rows: unknown[] = [];
  let repeated = false;
  for (let i = 0; i < 300_000; i++) {
    // In the second half, every 1000th id repeats one from a few rows back (in the same batch or
    // the one before).
    const id = `e${i >= 150_000 && i % 1000 === 3 ? i - 7 : i}`;
    if (seen.has(id)) repeated = true;
    seen.add(id);
    rows.push(id, 'label', i, i + 1);
    if (rows.length === 4 * 2000) {
      assert.equal(f.addAllNew(rows, 0, 4), !repeated, `the batch ending at row ${i}`);
      rows.length = 0;
      repeated = false;
    }
  }
  assert.equal(f.size, seen.size);
  assert.equal(f.addAllNew(['x', 'y', 'x'], 0, 1), false);
  assert.equal(f.addAllNew(['z'], 0, 1), true);
  assert.equal(one(f, 'z'), false);
  assert.equal(f.addAllNew([], 0, 4), true);
});
