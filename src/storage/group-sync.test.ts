import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupSync } from './group-sync.js';

test('callers share a sync that started after they asked; a failure reaches only its group', async () => {
  const started: number[] = [];
  let release: () => void = () => {};
  let fail = false;
  const sync = new GroupSync(async () => {
    started.push(started.length);
    await new Promise<void>((r) => {
      release = r;
    });
    if (fail) throw new Error('EIO');
  });
  const first = sync.request();
  // Asked while the first sync runs: both wait for one more sync, which they share.
  const second = sync.request();
  const third = sync.request();
  assert.equal(started.length, 1);
  release();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.equal(started.length, 2);
  fail = true;
  release();
  await assert.rejects(second, /EIO/);
  await assert.rejects(third, /EIO/);
  fail = false;
  const fourth = sync.request();
  await new Promise((r) => setImmediate(r));
  release();
  await fourth;
  await sync.idle();
  assert.equal(started.length, 3);
});
