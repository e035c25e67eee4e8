// How a serverless pool hands requests to its workers: more workers than CPUs only take turns on
// them, so while as many workers as CPUs are busy (in any of the server's pools) with a model that
// answers fast a request waits for the first of its pool's; a slower (or stuck) model still gets a
// worker a request, up to MaxConcurrency, and a worker that dies or never starts leaves no request
// waiting.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { CoreBudget } from './core-budget.js';
import { ContainerFailure, type FailureKind } from './failure.js';
import { MetricsRegistry } from './metrics.js';
import { ServerlessPool } from './pool.js';
import type { Instance, Runtime } from './runtime.js';

/** A runtime whose workers answer each request after `delayMs(n)` ms (n: the request's number). */
class FakeRuntime implements Runtime {
  readonly kind = 'fake';
  readonly resolvedImage = 'fake';
  starts = 0;
  busy = 0;
  mostBusy = 0;
  served = 0;
  readonly deaths: ((kind: FailureKind, message: string) => void)[] = [];
  /** Kills the worker instead of answering when it returns true for a request's number. */
  crash: (n: number) => boolean = () => false;
  /** Workers that fail to start, after this long (ms), while set. */
  failStartsAfter: number | undefined;

  constructor(private readonly delayMs: (n: number) => number) {}

  async start(): Promise<Instance> {
    this.starts++;
    if (this.failStartsAfter !== undefined) {
      await new Promise((r) => setTimeout(r, this.failStartsAfter));
      throw new ContainerFailure('startup', 500, 'the worker did not start');
    }
    const rt = this;
    let onDeath: (kind: FailureKind, message: string) => void = () => {};
    return {
      invoke() {
        const n = rt.served++;
        rt.mostBusy = Math.max(rt.mostBusy, ++rt.busy);
        return new Promise((resolve, reject) => {
          const answer = () => {
            rt.busy--;
            if (rt.crash(n)) {
              onDeath('crash', 'the worker crashed');
              reject(new ContainerFailure('crash', 500, 'the worker crashed'));
            } else resolve({ body: Buffer.from(String(n)), contentType: 'text/csv' });
          };
          const d = rt.delayMs(n);
          if (d === 0) setImmediate(answer);
          else setTimeout(answer, d);
        });
      },
      kill() {},
      release: async () => {},
      onDeath(listener) {
        onDeath = listener;
      },
    };
  }
}

/** Fast: answers within 25 ms here (1 ms by default), so that a busy test machine does not turn it slow. */
function pool(runtime: Runtime, maxConcurrency: number, cores: number | CoreBudget): ServerlessPool {
  return new ServerlessPool({
    spec: {
      endpointName: 'ep',
      variantName: 'AllTraffic',
      containers: [{ image: 'fake', environment: {} }],
      serverless: { memorySizeInMB: 1024, maxConcurrency },
    },
    runtime,
    metrics: new MetricsRegistry(),
    idleMs: 60_000,
    invocationTimeoutMs: 60_000,
    log: pino({ level: 'silent' }),
    cores: typeof cores === 'number' ? new CoreBudget(cores) : cores,
    fastAnswerMs: 25,
  });
}

/** One request of a one-byte body. */
const ask = (p: ServerlessPool) => p.invoke({ body: Buffer.from('1') });
const burst = (p: ServerlessPool, n: number) => Promise.allSettled(Array.from({ length: n }, () => ask(p)));

describe('ServerlessPool: workers for concurrent requests', () => {
  it('a fast model is served by as many workers as CPUs, the other requests waiting for them', async () => {
    const rt = new FakeRuntime(() => 0);
    const p = pool(rt, 8, 2);
    await ask(p); // learns that the model answers fast
    for (let round = 0; round < 20; round++) {
      const results = await burst(p, 8);
      assert.ok(
        results.every((r) => r.status === 'fulfilled'),
        'no throttle, no error under MaxConcurrency',
      );
    }
    assert.equal(rt.starts, 2, 'two workers for two CPUs');
    assert.equal(rt.mostBusy, 2);
    assert.equal(p.inFlight, 0);
    await p.stop();
  });

  it('a slow model gets a worker for each concurrent request, up to MaxConcurrency', async () => {
    const rt = new FakeRuntime(() => 60);
    const p = pool(rt, 4, 2);
    await ask(p);
    const results = await burst(p, 4);
    assert.ok(results.every((r) => r.status === 'fulfilled'));
    assert.equal(rt.starts, 4);
    assert.equal(rt.mostBusy, 4);
    await p.stop();
  });

  it('a request does not wait for a fast model’s worker that is stuck', async () => {
    // Request 1 takes 300 ms; the others answer at once.
    const rt = new FakeRuntime((n) => (n === 1 ? 300 : 0));
    const p = pool(rt, 4, 1);
    await ask(p);
    const stuck = ask(p);
    await new Promise((r) => setTimeout(r, 60)); // busy past what a fast model takes
    const t0 = performance.now();
    await ask(p);
    assert.ok(performance.now() - t0 < 150, 'answered by a second worker, not after the stuck one');
    assert.equal(rt.starts, 2);
    await stuck;
    await p.stop();
  });

  it('requests waiting for a worker that stalls choose again, and take another', async () => {
    // Request 1 takes 400 ms; requests 2 and 3 come just after it, while it still looks fast.
    const rt = new FakeRuntime((n) => (n === 1 ? 400 : 0));
    const p = pool(rt, 4, 1);
    await ask(p);
    const stalled = ask(p);
    const t0 = performance.now();
    await Promise.all([ask(p), ask(p)]);
    assert.ok(performance.now() - t0 < 250, 'answered by other workers, not after the stalled one');
    assert.equal(rt.starts, 3, 'while a worker stalls, a worker a request, as for a slow model');
    await stalled;
    await p.stop();
  });

  it('the CPUs are shared: another endpoint’s busy workers count, and never hold back a pool with none busy', async () => {
    const cores = new CoreBudget(2);
    const slow = new FakeRuntime(() => 150);
    const other = pool(slow, 4, cores);
    const fast = new FakeRuntime(() => 0);
    const p = pool(fast, 8, cores);
    await ask(p);
    await ask(other);
    // The other endpoint holds both CPUs: a request here still gets this pool's idle worker at once.
    const held = burst(other, 2);
    const t0 = performance.now();
    await ask(p);
    assert.ok(performance.now() - t0 < 100, 'not kept waiting for the other endpoint');
    await held;
    // One CPU is the other endpoint's: this pool's burst is served by one worker, not two.
    const one = ask(other);
    const results = await burst(p, 8);
    assert.ok(results.every((r) => r.status === 'fulfilled'));
    assert.equal(fast.starts, 1, 'one worker for the one CPU left');
    assert.equal(fast.mostBusy, 1);
    await one;
    assert.equal(cores.busy, 0, 'every busy worker given back');
    await Promise.all([p.stop(), other.stop()]);
  });

  it('requests waiting for workers that fail to start fail with them, and none hangs', { timeout: 5000 }, async () => {
    const rt = new FakeRuntime(() => 0);
    rt.crash = (n) => n === 1;
    const p = pool(rt, 8, 1);
    await ask(p); // learns that the model answers fast
    await assert.rejects(ask(p)); // its only worker dies
    rt.failStartsAfter = 30;
    const results = await burst(p, 3); // the first starts a worker, the others wait for it
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.equal(p.inFlight, 0);
    await p.stop();
  });

  it('a worker that dies hands its waiting requests to another', async () => {
    const rt = new FakeRuntime(() => 0);
    rt.crash = (n) => n === 3;
    const p = pool(rt, 8, 1);
    await ask(p);
    await ask(p);
    const results = await burst(p, 6); // request 3 is the first of these: the others wait behind it
    assert.equal(results.filter((r) => r.status === 'rejected').length, 1, 'only the crashed request fails');
    assert.equal(rt.starts, 2, 'a new worker replaced the dead one');
    assert.equal(p.inFlight, 0);
    await p.stop();
  });
});
