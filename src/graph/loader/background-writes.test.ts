import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BackgroundWrites } from './background-writes.js';

/** A promise and its settlers. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('BackgroundWrites', () => {
  it('counts answers as they come, and settle waits, oldest first, down to the limit', async () => {
    const w = new BackgroundWrites(1);
    const a = deferred<number>();
    const b = deferred<number>();
    const seen: number[] = [];
    w.add(a.promise, (n) => seen.push(n));
    w.add(b.promise, (n) => seen.push(n));
    assert.equal(w.size, 2);
    let settled = false;
    const s = w.settle().then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    a.resolve(1);
    await s;
    assert.deepEqual(seen, [1]);
    assert.equal(w.size, 1);
    b.resolve(2);
    await w.settle(0);
    assert.deepEqual(seen, [1, 2]);
    assert.equal(w.size, 0);
  });

  it("settle throws a write's failure, or its callback's", async () => {
    const w = new BackgroundWrites(0);
    w.add(Promise.reject(new Error('disk full')), () => {});
    await assert.rejects(w.settle(), /disk full/);
    w.add(Promise.resolve(3), (n) => {
      if (n !== 2) throw new Error(`${n} rows where 2 were expected`);
    });
    await assert.rejects(w.settle(), /3 rows/);
  });

  it('drain waits for every write and swallows failures', async () => {
    const w = new BackgroundWrites(10);
    const a = deferred<number>();
    let counted = 0;
    w.add(a.promise, () => counted++);
    w.add(Promise.reject(new Error('x')), () => {});
    const d = w.drain();
    a.resolve(1);
    await d;
    assert.equal(counted, 1);
    assert.equal(w.size, 0);
  });
});
