import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdFingerprints } from './id-fingerprints.js';

test('a million distinct ids are new once, then seen; growing keeps them all', () => {
  const f = new IdFingerprints(4);
  const id = (i: number) => `edge-${i.toString(36)}-${(i * 7919) % 1000}`;
  let maybeSeen = 0;
  for (let i = 0; i < 1_000_000; i++) if (!f.addNew(id(i))) maybeSeen++;
  // A 64-bit fingerprint collision among a million ids is about a one-in-ten-million event.
  assert.equal(maybeSeen, 0);
  assert.equal(f.size, 1_000_000);
  for (let i = 0; i < 1_000_000; i += 997) assert.equal(f.addNew(id(i)), false);
  assert.equal(f.size, 1_000_000);
  assert.equal(f.addNew(''), true);
  assert.equal(f.addNew(''), false);
  assert.equal(f.addNew('é\u0000x'), true);
  assert.equal(f.addNew('é\u0000y'), true);
});

test('in batches: the same answers as one at a time, repeats within a batch included', () => {
  const one = new IdFingerprints(4);
  const many = new IdFingerprints(4);
  const rows: unknown[] = [];
  for (let i = 0; i < 300_000; i++) {
    // In the second half, every 1000th id repeats one from a few rows back (in the same batch or
    // the one before).
    const id = `e${i >= 150_000 && i % 1000 === 3 ? i - 7 : i}`;
    rows.push(id, 'label', i, i + 1);
    assert.equal(one.addNew(id), id === `e${i}`);
    if (rows.length === 4 * 2000) {
      assert.equal(many.addAllNew(rows, 0, 4), i < 150_000, `the batch ending at row ${i}`);
      rows.length = 0;
    }
  }
  assert.equal(many.size, one.size);
  assert.equal(many.addAllNew(['x', 'y', 'x'], 0, 1), false);
  assert.equal(many.addAllNew(['z'], 0, 1), true);
  assert.equal(many.addNew('z'), false);
  assert.equal(many.addAllNew([], 0, 4), true);
});
