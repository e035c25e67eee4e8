// The job runner against a real database, per dialect, with a small example kind ("sleeper") whose
// steps sleep and honour their AbortSignal: queue bound, stop, time limit, errors, restart
// (resume and fail), lease takeover between two replicas, exactly-once claims, reruns, subscribers.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { DIALECTS, type TestDatabase } from '../../test/support/databases.js';
import type { Database } from '../storage/db/types.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { JobRunner } from './runner.js';
import type { JobKind, TransitionEvent } from './types.js';

interface SleeperPayload {
  steps: number;
  stepMs: number;
  failAt?: number;
  maxRuntimeMs?: number;
}

/** Observations shared by every replica in a test (they run in this one process). */
class Probe {
  running = 0;
  maxRunning = 0;
  readonly runs = new Map<string, string[]>();
  /** Replicas whose runs hang until shut down (a replica that froze or died). */
  freeze = new Set<string>();
}

/** A tiny kind: Starting, Step1..StepN (each sleeps stepMs), Completed; Stopped, MaxRuntimeExceeded, Failed. */
function sleeperKind(
  probe: Probe,
  replica: string,
  o: { concurrency?: number; onRestart?: 'resume' | 'fail' } = {},
): JobKind<SleeperPayload> {
  return {
    name: 'sleeper',
    concurrency: o.concurrency ?? 4,
    onRestart: o.onRestart ?? 'resume',
    maxRuntimeMs: (p) => p.maxRuntimeMs,
    async run(ctx) {
      probe.runs.set(ctx.id, [...(probe.runs.get(ctx.id) ?? []), replica]);
      probe.running++;
      probe.maxRunning = Math.max(probe.maxRunning, probe.running);
      try {
        // A frozen replica does nothing more until it is shut down.
        if (probe.freeze.has(replica)) {
          await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
        }
        const done = (await ctx.transitions()).filter((t) => t.status.startsWith('Step')).length;
        if (done === 0) await ctx.transaction((tx) => ctx.transition(tx, 'Starting', `attempt ${ctx.attempt}`));
        for (let i = done + 1; i <= ctx.payload.steps; i++) {
          if (ctx.payload.failAt === i) throw new Error(`step ${i} broke`);
          await sleep(ctx.payload.stepMs, undefined, { signal: ctx.signal });
          await ctx.transaction((tx) => ctx.transition(tx, `Step${i}`, `on ${replica}`));
        }
        await ctx.transaction((tx) => ctx.finish(tx, 'Completed'));
      } finally {
        probe.running--;
      }
    },
    async end(_tx, _item, why) {
      if (why.cause === 'stopped') return { status: 'Stopped', message: why.message };
      if (why.cause === 'timeout') return { status: 'MaxRuntimeExceeded', message: why.message };
      return { status: 'Failed', message: why.message };
    },
  };
}

const silent = pino({ level: 'silent' });

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

for (const dialect of DIALECTS) {
  describe(`job runner (${dialect.name})`, () => {
    let t: TestDatabase;
    let probe: Probe;
    const runners: JobRunner[] = [];
    const replica = (
      db: Database,
      id: string,
      o: { leaseMs?: number; concurrency?: number; onRestart?: 'resume' | 'fail' } = {},
    ) => {
      const r = new JobRunner({ db, log: silent, replicaId: id, leaseMs: o.leaseMs ?? 30_000, pollMs: 20 });
      const kind = r.register(sleeperKind(probe, id, o));
      runners.push(r);
      return { r, kind };
    };
    const statuses = async (r: JobRunner, id: string) => (await r.transitions('sleeper', id)).map((x) => x.status);
    const lastStatus = (r: JobRunner, id: string, want: string) =>
      waitFor(`${id} ${want}`, async () => {
        const all = await r.transitions('sleeper', id);
        const last = all[all.length - 1];
        return last?.status === want ? last : undefined;
      });

    beforeEach(async () => {
      t = await dialect.open(MIGRATIONS);
      probe = new Probe();
    });
    afterEach(async () => {
      probe.freeze.clear();
      await Promise.all(runners.splice(0).map((r) => r.close().catch(() => undefined)));
      await t.cleanup();
    });

    it('runs steps in order, records each transition with its time, and tells subscribers inside the transaction', async () => {
      const { r, kind } = replica(t.db, 'a');
      const seen: TransitionEvent<SleeperPayload>[] = [];
      let all = 0;
      r.subscribe(async () => {
        all++;
      });
      const unsubscribe = r.subscribe(kind, async (tx, e) => {
        // Inside the recording transaction: the transition row is already visible to it.
        const row = await tx.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM job_transitions WHERE item_id = ? AND seq = ?',
          [e.id, e.seq],
        );
        assert.equal(Number(row?.n), 1);
        seen.push(e);
      });
      r.start();
      const before = Date.now();
      await r.submit(kind, 'j1', { steps: 2, stepMs: 5 }, { status: 'InProgress' });
      await lastStatus(r, 'j1', 'Completed');
      const history = await r.transitions('sleeper', 'j1');
      assert.deepEqual(
        history.map((h) => h.status),
        ['InProgress', 'Starting', 'Step1', 'Step2', 'Completed'],
      );
      assert.deepEqual(
        history.map((h) => h.seq),
        [1, 2, 3, 4, 5],
      );
      assert.ok(history.every((h, i) => h.at >= before && (i === 0 || h.at >= history[i - 1]!.at)));
      assert.equal(history[1]!.message, 'attempt 1');
      assert.deepEqual(
        seen.map((e) => [e.kind, e.id, e.status]),
        history.map((h) => ['sleeper', 'j1', h.status]),
      );
      assert.deepEqual(seen[0]!.payload, { steps: 2, stepMs: 5 });
      assert.equal(seen[0]!.payload.steps, 2, 'typed payload');
      assert.equal(all, 5);
      unsubscribe();
      await r.submit(kind, 'j2', { steps: 0, stepMs: 0 });
      await lastStatus(r, 'j2', 'Completed');
      assert.equal(seen.length, 5, 'no events after unsubscribing');
      assert.equal(all, 7);
    });

    it('bounds how many items of a kind run at once on a replica; the rest wait in submission order', async () => {
      const { r, kind } = replica(t.db, 'a', { concurrency: 2 });
      r.start();
      for (let i = 0; i < 6; i++) await r.submit(kind, `q${i}`, { steps: 1, stepMs: 60 });
      for (let i = 0; i < 6; i++) await lastStatus(r, `q${i}`, 'Completed');
      assert.equal(probe.maxRunning, 2);
      const started = await Promise.all(
        [0, 1, 2, 3, 4, 5].map(
          async (i) => (await r.transitions('sleeper', `q${i}`)).find((x) => x.status === 'Starting')!.at,
        ),
      );
      // q2 waited for a free slot: it started after one of the first two finished.
      assert.ok(started[2]! >= started[0]! + 50, `q2 started ${started[2]! - started[0]!} ms after q0`);
    });

    it('a stop request aborts the running step; a queued item stops without running', async () => {
      const { r, kind } = replica(t.db, 'a', { concurrency: 1 });
      r.start();
      await r.submit(kind, 'long', { steps: 3, stepMs: 10_000 });
      await r.submit(kind, 'waiting', { steps: 1, stepMs: 10 });
      await lastStatus(r, 'long', 'Starting');
      const asked = Date.now();
      assert.equal(await r.requestStop('sleeper', 'waiting'), true);
      assert.deepEqual(await statuses(r, 'waiting'), ['Stopped']);
      assert.equal(await r.requestStop('sleeper', 'long'), true);
      await lastStatus(r, 'long', 'Stopped');
      assert.ok(Date.now() - asked < 2000, 'the sleeping step was aborted, not waited for');
      assert.deepEqual(await statuses(r, 'long'), ['Starting', 'Stopped']);
      assert.equal(probe.runs.get('waiting'), undefined, 'the queued item never ran');
      assert.equal(await r.requestStop('sleeper', 'long'), false, 'a finished item cannot be stopped again');
    });

    it('stops a run that exceeds its maximum runtime, and ends a run that throws through the kind', async () => {
      const { r, kind } = replica(t.db, 'a');
      r.start();
      const t0 = Date.now();
      await r.submit(kind, 'slow', { steps: 10, stepMs: 100, maxRuntimeMs: 150 });
      await r.submit(kind, 'broken', { steps: 3, stepMs: 1, failAt: 2 });
      const timedOut = await lastStatus(r, 'slow', 'MaxRuntimeExceeded');
      assert.ok(timedOut.at - t0 >= 150 && timedOut.at - t0 < 2000, `ended after ${timedOut.at - t0} ms`);
      const history = await statuses(r, 'slow');
      assert.equal(history[0], 'Starting');
      assert.ok(history.length < 5, `stopped after ${history.length - 2} of 10 steps`);
      const failed = await lastStatus(r, 'broken', 'Failed');
      assert.equal(failed.message, 'step 2 broke');
    });

    it('a submission inside a transaction that rolls back leaves nothing; one that commits runs', async () => {
      const { r, kind } = replica(t.db, 'a');
      r.start();
      await assert.rejects(
        t.db.transaction(async (tx) => {
          await r.submit(kind, 'rolled-back', { steps: 1, stepMs: 1 }, { tx, status: 'InProgress' });
          throw new Error('the create failed');
        }),
      );
      await t.db.transaction((tx) =>
        r.submit(kind, 'committed', { steps: 1, stepMs: 1 }, { tx, status: 'InProgress' }),
      );
      r.wake();
      await lastStatus(r, 'committed', 'Completed');
      await r.idle();
      assert.deepEqual(await r.transitions('sleeper', 'rolled-back'), []);
      assert.equal(probe.runs.get('rolled-back'), undefined);
    });

    it('a rerun submitted while an item runs runs it once more; an active id is refused by default', async () => {
      const { r, kind } = replica(t.db, 'a');
      r.start();
      await r.submit(kind, 'again', { steps: 1, stepMs: 1000 });
      await lastStatus(r, 'again', 'Starting');
      await assert.rejects(r.submit(kind, 'again', { steps: 1, stepMs: 1 }), { name: 'JobExistsError' });
      assert.equal(await r.submit(kind, 'again', { steps: 1, stepMs: 1 }, { whenActive: 'rerun' }), 'rerun');
      await r.idle();
      assert.equal(probe.runs.get('again')?.length, 2);
      // Finished: the same id can be submitted afresh (its old history goes).
      assert.equal(await r.submit(kind, 'again', { steps: 1, stepMs: 1 }, { status: 'InProgress' }), 'submitted');
      await lastStatus(r, 'again', 'Completed');
      assert.deepEqual(await statuses(r, 'again'), ['InProgress', 'Starting', 'Step1', 'Completed']);

      // Submitted, then resubmitted before this replica started it (CreateEndpoint then DeleteEndpoint
      // at once): it still starts now, not after the lease of a claim nobody runs.
      await t.db.transaction((tx) => r.submit(kind, 'twice', { steps: 1, stepMs: 1 }, { tx }));
      assert.equal(await r.submit(kind, 'twice', { steps: 1, stepMs: 1 }, { whenActive: 'rerun' }), 'rerun');
      await waitFor('twice to run twice', async () => (probe.runs.get('twice')?.length === 2 ? true : undefined), 5000);
    });

    it('after a crash, the restarted replica resumes its items at once where they were', async () => {
      const crashed = await t.reopen(MIGRATIONS);
      const { r: a, kind } = replica(crashed, 'node-1');
      a.start();
      await a.submit(kind, 'resumable', { steps: 3, stepMs: 150 });
      await lastStatus(a, 'resumable', 'Step1');
      await crashed.close(); // the process "dies": no heartbeat, no further writes
      const { r: b } = replica(t.db, 'node-1'); // same replica, restarted; the lease (30 s) has not expired
      const t0 = Date.now();
      b.start();
      await lastStatus(b, 'resumable', 'Completed');
      assert.ok(Date.now() - t0 < 5000, 'did not wait for the lease');
      const steps = (await b.transitions('sleeper', 'resumable')).filter((x) => x.status.startsWith('Step'));
      assert.deepEqual(
        steps.map((s) => s.status),
        ['Step1', 'Step2', 'Step3'],
        'resumed after Step1, nothing repeated',
      );
    });

    it('after a crash, a kind that fails at restart ends its running items with a reason', async () => {
      const crashed = await t.reopen(MIGRATIONS);
      const { r: a, kind } = replica(crashed, 'node-1', { onRestart: 'fail' });
      a.start();
      await a.submit(kind, 'doomed', { steps: 3, stepMs: 5_000 });
      await lastStatus(a, 'doomed', 'Starting');
      await crashed.close();
      const { r: b } = replica(t.db, 'node-1', { onRestart: 'fail' });
      b.start();
      const failed = await lastStatus(b, 'doomed', 'Failed');
      assert.equal(failed.message, 'The server restarted while the job ran.');
      assert.deepEqual(probe.runs.get('doomed'), ['node-1'], 'not run again');
    });

    it('a graceful shutdown hands resumable items back to the queue and fails the others', async () => {
      const { r: a, kind } = replica(t.db, 'a', { onRestart: 'resume' });
      a.start();
      await a.submit(kind, 'handed-back', { steps: 2, stepMs: 5_000 });
      await lastStatus(a, 'handed-back', 'Starting');
      await a.close();
      const row = await t.db.get<{ state: string }>("SELECT state FROM job_items WHERE item_id = 'handed-back'");
      assert.equal(row?.state, 'queued');

      const failing = new JobRunner({ db: t.db, log: silent, replicaId: 'c', pollMs: 20 });
      runners.push(failing);
      const fk = failing.register(sleeperKind(probe, 'c', { onRestart: 'fail' }));
      failing.start();
      // (the queued 'handed-back' item is of the same kind name: this runner takes it too, with fail semantics)
      await failing.submit(fk, 'cut-short', { steps: 2, stepMs: 5_000 });
      await lastStatus(failing, 'cut-short', 'Starting');
      await failing.close();
      const cut = await lastStatus(failing, 'cut-short', 'Failed');
      assert.equal(cut.message, 'The server stopped while the job ran.');
    });

    it('two replicas claim every queued item exactly once', async () => {
      const other = await t.reopen(MIGRATIONS);
      const submitter = new JobRunner({ db: t.db, log: silent, replicaId: 'submitter' });
      const sk = submitter.register(sleeperKind(probe, 'submitter'));
      // Not started: everything it submits is queued for whoever claims it.
      for (let i = 0; i < 16; i++) await submitter.submit(sk, `w${i}`, { steps: 1, stepMs: 30 });
      const { r: a } = replica(t.db, 'a', { concurrency: 3 });
      const { r: b } = replica(other, 'b', { concurrency: 3 });
      a.start();
      b.start();
      for (let i = 0; i < 16; i++) await lastStatus(a, `w${i}`, 'Completed');
      for (let i = 0; i < 16; i++)
        assert.equal(probe.runs.get(`w${i}`)?.length, 1, `w${i} ran ${probe.runs.get(`w${i}`)?.length} times`);
      const by = [...probe.runs.values()].flat();
      assert.ok(by.includes('a') && by.includes('b'), `both replicas worked (${by.join(',')})`);
    });

    it('work held by a replica that stopped answering is taken over by another once its lease expires', async () => {
      const frozenDb = await t.reopen(MIGRATIONS);
      probe.freeze.add('frozen');
      const { r: frozen, kind } = replica(frozenDb, 'frozen', { leaseMs: 400 });
      frozen.start();
      await frozen.submit(kind, 'orphan', { steps: 2, stepMs: 10 }, { status: 'InProgress' });
      await waitFor('the frozen replica to claim it', async () => (probe.runs.get('orphan') ? true : undefined));
      await frozenDb.close(); // its heartbeats now fail: the lease runs out
      const claimedAt = Date.now();
      const { r: rescuer } = replica(t.db, 'rescuer', { leaseMs: 400 });
      rescuer.start();
      const done = await lastStatus(rescuer, 'orphan', 'Completed');
      assert.ok(
        done.at - claimedAt >= 200,
        `taken over ${done.at - claimedAt} ms later, before the lease could expire`,
      );
      assert.deepEqual(probe.runs.get('orphan'), ['frozen', 'rescuer']);
      const steps = (await rescuer.transitions('sleeper', 'orphan')).map((x) => x.message);
      assert.deepEqual(steps.slice(-3), ['on rescuer', 'on rescuer', null]);
    });
  });
}
