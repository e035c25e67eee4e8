import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WalkCache } from './walk-cache.js';

test('a walk is found by its id and scope until it expires', () => {
  let t = 1000;
  const c = new WalkCache<string>(100, 10, () => t);
  const id = c.remember('scope-a', 'walk');
  assert.equal(c.recall('scope-a', id), 'walk');
  assert.equal(c.recall('scope-b', id), undefined, 'another query never reads it');
  assert.equal(c.recall('scope-a', 'nope'), undefined);
  t += 99;
  assert.equal(c.recall('scope-a', id), 'walk');
  t += 1;
  assert.equal(c.recall('scope-a', id), undefined);
  assert.equal(c.size, 0);
});

test('past its capacity the oldest walk goes first; ids are never reused', () => {
  let t = 0;
  const c = new WalkCache<number>(1000, 2, () => t);
  const a = c.remember('s', 1);
  const b = c.remember('s', 2);
  const d = c.remember('s', 3);
  assert.equal(c.recall('s', a), undefined);
  assert.equal(c.recall('s', b), 2);
  assert.equal(c.recall('s', d), 3);
  assert.equal(new Set([a, b, d]).size, 3);
  t = 5000;
  c.remember('s', 4);
  assert.equal(c.size, 1, 'expired walks are swept when a new one is kept');
});
