import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TurnStage } from './turn-stage.js';

test('the inputs of one turn run through the step together, in order, before any of them continues', async () => {
  const events: string[] = [];
  const stage = new TurnStage((n: number) => {
    events.push(`step ${n}`);
    return n * 10;
  });
  const requests = [1, 2, 3].map(async (n) => {
    const out = await stage.next(n);
    events.push(`continue ${n} with ${out}`);
  });
  assert.equal(stage.waiting, 3);
  // Nothing runs in the turn the inputs arrived in.
  assert.deepEqual(events, []);
  await Promise.all(requests);
  assert.deepEqual(events, [
    'step 1',
    'step 2',
    'step 3',
    'continue 1 with 10',
    'continue 2 with 20',
    'continue 3 with 30',
  ]);
  assert.equal(stage.waiting, 0);
});

test('a later turn makes a batch of its own', async () => {
  const batches: number[][] = [];
  let current: number[] | undefined;
  const stage = new TurnStage((n: number) => {
    if (!current) {
      current = [];
      batches.push(current);
      setImmediate(() => {
        current = undefined;
      });
    }
    current.push(n);
    return n;
  });
  await Promise.all([stage.next(1), stage.next(2)]);
  await Promise.all([stage.next(3), stage.next(4), stage.next(5)]);
  assert.deepEqual(batches, [
    [1, 2],
    [3, 4, 5],
  ]);
});

test('a step that throws fails its own input only', async () => {
  const stage = new TurnStage((n: number) => {
    if (n === 2) throw new Error('two');
    return n;
  });
  const results = await Promise.allSettled([stage.next(1), stage.next(2), stage.next(3)]);
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    [1, 'two', 3],
  );
  // The stage goes on serving later turns.
  assert.equal(await stage.next(4), 4);
});
