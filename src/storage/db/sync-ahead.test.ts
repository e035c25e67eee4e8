import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { syncAhead } from './sync-ahead.js';

describe('syncAhead', () => {
  it('syncs repeatedly, one at a time, until stopped; stop waits for the sync under way', async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    const s = syncAhead(async () => {
      running++;
      most = Math.max(most, running);
      await sleep(5);
      running--;
      done++;
    }, 2);
    await sleep(60);
    await s.stop();
    assert.equal(running, 0);
    assert.equal(most, 1);
    assert.ok(done >= 3, `${done} syncs`);
    const after = done;
    await sleep(20);
    assert.equal(done, after, 'no sync after stop');
  });

  it('stops at once when stopped before the first sync', async () => {
    let calls = 0;
    const s = syncAhead(async () => {
      calls++;
    }, 1000);
    const t = performance.now();
    await s.stop();
    assert.ok(performance.now() - t < 500);
    assert.equal(calls, 0);
  });

  it("stop rejects with a background sync's failure, and no sync runs after it", async () => {
    let calls = 0;
    const s = syncAhead(async () => {
      calls++;
      throw new Error('EIO');
    }, 1);
    await sleep(30);
    await assert.rejects(s.stop(), /EIO/);
    assert.equal(calls, 1);
  });
});
