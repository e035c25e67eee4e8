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
