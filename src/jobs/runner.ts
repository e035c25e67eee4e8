// One durable background runner for every lifecycle kind (endpoint deployments, jobs): a bounded
// queue per kind and replica, leases so exactly one replica runs an item, stop requests, time
// limits, resume-or-fail after a restart, and a transition history with subscribers. See README.md.
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { forUpdate } from '../storage/db/dialect.js';
import type { Database, Queryable } from '../storage/db/types.js';
import { JobFailure } from './job-failure.js';
import * as store from './store.js';
import type { ItemRow } from './store.js';
import {
  type EndReason,
  JobAbort,
  JobExistsError,
  type JobKind,
  type JobObserver,
  LeaseLostError,
  type RunContext,
  type SubmitOptions,
  type Transition,
  type TransitionEvent,
  type TransitionListener,
  type WorkItem,
} from './types.js';

export interface JobRunnerOptions {
  readonly db: Database;
  readonly log: Logger;
  /** Names this replica in claims; stable across restarts so a restarted replica takes its own work back at once. */
  readonly replicaId: string;
  /** How long a claim lasts without a heartbeat before another replica may take the item over (default 30 s). */
  readonly leaseMs?: number;
  /** How often to look for queued work, expired leases and stop requests (default min(1 s, lease / 4)). */
  readonly pollMs?: number;
  /** Told when runs start and end (metrics, traces). */
  readonly observer?: JobObserver;
}

// biome-ignore lint/suspicious/noExplicitAny: kinds of different payload types share one registry.
type AnyKind = JobKind<any>;

interface LocalRun {
  readonly kind: AnyKind;
  readonly id: string;
  readonly token: string;
  readonly controller: AbortController;
  /** ctx.finish ended the item (or asked for a rerun). */
  finished: boolean;
  rerun: boolean;
  lost: boolean;
  done?: Promise<void>;
  /** The status the item ended with here (for the observer). */
  status?: string;
}

const key = (kind: string, id: string) => `${kind}\u0000${id}`;

export class JobRunner {
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly #db: Database;
  readonly #log: Logger;
  readonly #pollMs: number;
  readonly #kinds = new Map<string, AnyKind>();
  readonly #running = new Map<string, LocalRun>();
  /** Items this replica claimed in a caller's transaction, started once that transaction is seen committed. */
  readonly #pending = new Map<string, { kind: AnyKind; id: string; token: string; at: number }>();
  readonly #listeners: TransitionListener[] = [];
  readonly #observer: JobObserver | undefined;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;
  #orphansTaken = false;
  /** Slots taken by the claim transaction in flight, per kind (not yet in #running). */
  readonly #claiming = new Map<AnyKind, number>();
  #polling: Promise<void> | undefined;
  #pollAgain = false;

  constructor(o: JobRunnerOptions) {
    this.#db = o.db;
    this.#log = o.log;
    this.replicaId = o.replicaId;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.#pollMs = o.pollMs ?? Math.min(1000, Math.max(20, this.leaseMs / 4));
    this.#observer = o.observer;
  }

  /** Declares a kind; do it before start(). */
  register<P>(kind: JobKind<P>): JobKind<P> {
    if (this.#kinds.has(kind.name)) throw new Error(`job kind ${kind.name} is already registered`);
    this.#kinds.set(kind.name, kind);
    return kind;
  }

  /**
   * Subscribes to the transitions of one kind (typed payload), or of every kind; the listener runs
   * inside the transaction that records the transition. Returns an unsubscribe function.
   */
  subscribe<P>(kind: JobKind<P>, listener: (tx: Queryable, event: TransitionEvent<P>) => Promise<void>): () => void;
  subscribe(listener: TransitionListener): () => void;
  subscribe<P>(
    a: JobKind<P> | TransitionListener,
    b?: (tx: Queryable, event: TransitionEvent<P>) => Promise<void>,
  ): () => void {
    const listener: TransitionListener =
      typeof a === 'function' ? a : async (tx, e) => (e.kind === a.name ? b!(tx, e as TransitionEvent<P>) : undefined);
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /** Starts claiming: first what a previous run of this replica left running, then whatever is queued. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#timer = setInterval(() => this.wake(), this.#pollMs);
    this.#timer.unref();
    this.wake();
  }

  /**
   * Enqueues an item, inside `tx` when given (so the resource and its work commit together; call
   * wake() after that transaction commits to start it at once, else the next poll does).
   * With a free slot on this replica the item is claimed here directly, without a second write.
   */
  async submit<P>(
    kind: JobKind<P>,
    id: string,
    payload: P,
    opts: SubmitOptions & { tx?: Queryable } = {},
  ): Promise<'submitted' | 'rerun' | 'ignored'> {
    this.#kindOf(kind.name);
    const { tx } = opts;
    if (!tx) {
      const result = await this.#db.transaction((t) => this.submit(kind, id, payload, { ...opts, tx: t }));
      this.wake();
      return result;
    }
    const now = Date.now();
    const k = key(kind.name, id);
    // Claimed here when there is room, unless this replica already holds the id (an earlier
    // submission not yet started, or a run still finishing): then the queue takes it.
    const claim =
      this.#started && !this.#closed && this.#free(kind) > 0 && !this.#pending.has(k) && !this.#running.has(k)
        ? {
            by: this.replicaId,
            token: randomUUID(),
            leaseUntil: now + this.leaseMs,
            deadline: this.#deadline(kind, payload, now),
          }
        : undefined;
    // The slot is taken before the first await, so concurrent submits and polls see it.
    if (claim) this.#pending.set(k, { kind, id, token: claim.token, at: now });
    const unreserve = () => {
      if (claim && this.#pending.get(k)?.token === claim.token) this.#pending.delete(k);
    };
    let res: Awaited<ReturnType<typeof store.insertItem>>;
    try {
      res = await store.insertItem(tx, kind.name, id, JSON.stringify(payload), now, claim);
    } catch (err) {
      unreserve();
      throw err;
    }
    if (!res.inserted) {
      unreserve();
      const whenActive = opts.whenActive ?? 'error';
      if (whenActive === 'ignore') return 'ignored';
      if (whenActive === 'error') throw new JobExistsError(`${kind.name} ${id} is already ${res.active.state}`);
      await store.bumpGeneration(tx, kind.name, id);
      if (opts.status) await this.#record(tx, kind.name, id, res.active.payload, opts.status, opts.message, now);
      return 'rerun';
    }
    if (opts.status) await this.#record(tx, kind.name, id, JSON.stringify(payload), opts.status, opts.message, now);
    return 'submitted';
  }

  /**
   * Asks an item to stop, inside `tx` when given (call wake() after it commits). A queued item ends
   * at once through its kind's end({ cause: 'stopped' }); a running one sees its signal abort, on
   * whichever replica runs it. Returns false when the item is unknown or already finished.
   */
  async requestStop(kindName: string, id: string, tx?: Queryable): Promise<boolean> {
    if (!tx) {
      const r = await this.#db.transaction((t) => this.requestStop(kindName, id, t));
      this.wake();
      return r;
    }
    const kind = this.#kindOf(kindName);
    const row = await store.getItem(tx, kindName, id, true);
    if (!row || row.state === 'done') return false;
    await store.markStopRequested(tx, kindName, id);
    if (row.state === 'queued')
      await this.#end(tx, kind, { ...row, stop_requested: 1 }, { cause: 'stopped', message: 'Stop requested.' });
    return true;
  }

  /** Records a transition from outside a run (e.g. a Stop call recording Stopping), inside tx. */
  async recordTransition(tx: Queryable, kindName: string, id: string, status: string, message?: string): Promise<void> {
    const row = await store.getItem(tx, kindName, id, true);
    if (!row) throw new Error(`no ${kindName} item ${id}`);
    await this.#record(tx, kindName, id, row.payload, status, message, Date.now());
  }

  /** The item's transitions, oldest first (e.g. for SecondaryStatusTransitions). */
  transitions(kindName: string, id: string, q: Queryable = this.#db): Promise<Transition[]> {
    return store.listTransitions(q, kindName, id);
  }

  /** Looks for work now (after a transaction that submitted or stopped something committed). */
  wake(): void {
    if (!this.#started || this.#closed) return;
    if (this.#polling) {
      this.#pollAgain = true;
      return;
    }
    this.#polling = this.#poll()
      .catch((err) => this.#log.error({ err }, 'job runner poll failed'))
      .finally(() => {
        this.#polling = undefined;
        if (this.#pollAgain) {
          this.#pollAgain = false;
          this.wake();
        }
      });
  }

  /**
   * Resolves when this replica runs nothing (tests): polls once more so committed submissions
   * start, then waits for every local run, until none is left.
   */
  async idle(): Promise<void> {
    for (;;) {
      this.wake();
      while (this.#polling) await this.#polling;
      const runs = [...this.#running.values()].map((r) => r.done);
      if (runs.length === 0) return;
      await Promise.all(runs);
    }
  }

  /**
   * Stops claiming and aborts local runs with cause 'shutdown', waiting for them: a kind that
   * resumes gives its items back to the queue, one that fails ends them with a reason.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#polling;
    for (const r of this.#running.values())
      r.controller.abort(new JobAbort('shutdown', 'The server stopped while the job ran.'));
    await Promise.all([...this.#running.values()].map((r) => r.done));
    for (const p of this.#pending.values()) {
      await store.releaseItem(this.#db, p.kind.name, p.id, p.token).catch(() => undefined);
    }
    this.#pending.clear();
  }

  #kindOf(name: string): AnyKind {
    const k = this.#kinds.get(name);
    if (!k) throw new Error(`job kind ${name} is not registered`);
    return k;
  }

  #free(kind: AnyKind): number {
    const bound = kind.concurrency ?? availableParallelism();
    let used = 0;
    for (const r of this.#running.values()) if (r.kind === kind) used++;
    for (const p of this.#pending.values()) if (p.kind === kind) used++;
    return bound - used - (this.#claiming.get(kind) ?? 0);
  }

  #deadline(kind: AnyKind, payload: unknown, startedAt: number): number | null {
    const ms = kind.maxRuntimeMs?.(payload);
    return ms === undefined ? null : startedAt + ms;
  }

  async #record(
    tx: Queryable,
    kind: string,
    id: string,
    payload: string,
    status: string,
    message: string | undefined,
    at: number,
  ) {
    const seq = await store.insertTransition(tx, kind, id, status, message ?? null, at);
    if (this.#listeners.length === 0) return;
    const event = { kind, id, payload: JSON.parse(payload) as unknown, seq, status, message: message ?? null, at };
    for (const l of this.#listeners) await l(tx, event);
  }

  /** Ends an item through its kind's end(), in tx: the kind's final state, its transition, done. */
  async #end(tx: Queryable, kind: AnyKind, row: ItemRow, why: EndReason): Promise<string> {
    const final = await kind.end(tx, toItem(row), why);
    const now = Date.now();
    await this.#record(tx, kind.name, row.item_id, row.payload, final.status, final.message, now);
    await store.markDone(tx, kind.name, row.item_id, now);
    return final.status;
  }

  async #poll(): Promise<void> {
    const now = Date.now();
    // Submissions claimed here: start those whose transaction is visible (committed).
    for (const [k, p] of this.#pending) {
      const row = await store.getItem(this.#db, p.kind.name, p.id);
      if (row && row.claim_token === p.token && row.state === 'running') {
        this.#pending.delete(k);
        this.#launch(p.kind, row, p.token);
      } else if ((row?.claim_token && row.claim_token !== p.token) || now - p.at > this.leaseMs) {
        // Claimed by someone else, or never seen committed (rolled back, or its lease has run out
        // and the queue takes it back). A row without a claim may be the one this submission is
        // replacing, its transaction not yet committed: keep waiting.
        this.#pending.delete(k);
      }
    }
    if (this.#closed) return;
    // Stops requested through any replica reach the runs here.
    if (this.#running.size > 0) {
      for (const s of await store.stopRequestedAmong(this.#db, this.replicaId)) {
        this.#running.get(key(s.kind, s.item_id))?.controller.abort(new JobAbort('stop', 'Stop requested.'));
      }
    }
    const kinds = [...this.#kinds.values()].filter((k) => this.#free(k) > 0);
    // At start-up, what this replica's previous process left running is orphaned: take it back now.
    const orphans = this.#orphansTaken ? undefined : { by: this.replicaId };
    if (
      !orphans &&
      !(await store.hasClaimable(
        this.#db,
        kinds.map((k) => k.name),
        now,
      ))
    )
      return;
    this.#orphansTaken = true;
    this.#claiming.clear();
    const claimed = await this.#db
      .transaction(async (tx) => {
        const out: Array<{ kind: AnyKind; row: ItemRow; token: string }> = [];
        for (const kind of kinds) {
          const limit = Math.min(this.#free(kind), 100);
          if (limit <= 0) continue; // a submission took the last slot meanwhile
          const rows = await store.lockClaimable(tx, kind.name, now, limit, orphans);
          let taken = 0;
          let handled = 0;
          for (const row of rows) {
            if (this.#running.has(key(kind.name, row.item_id)) || this.#pending.has(key(kind.name, row.item_id)))
              continue;
            handled++;
            const orphaned = row.state === 'running';
            if (row.stop_requested === 1) {
              await this.#end(tx, kind, row, { cause: 'stopped', message: 'Stop requested.' });
            } else if (orphaned && kind.onRestart === 'fail') {
              const message =
                row.claimed_by === this.replicaId
                  ? 'The server restarted while the job ran.'
                  : 'The server running the job stopped answering; another server ended it.';
              await this.#end(tx, kind, row, { cause: 'restarted', message });
            } else {
              const token = randomUUID();
              const deadline = row.deadline ?? this.#deadline(kind, JSON.parse(row.payload), now);
              await store.takeItem(
                tx,
                row,
                { by: this.replicaId, token, leaseUntil: now + this.leaseMs },
                now,
                deadline,
              );
              taken++;
              this.#claiming.set(kind, (this.#claiming.get(kind) ?? 0) + 1);
              out.push({
                kind,
                row: {
                  ...row,
                  state: 'running',
                  attempts: row.attempts + 1,
                  started_at: row.started_at ?? now,
                  deadline,
                  run_generation: row.generation,
                },
                token,
              });
            }
          }
          // A full page may hide more (items ended here take no slot): look again right after.
          if (handled === limit && taken < limit) this.#pollAgain = true;
        }
        return out;
      })
      .finally(() => this.#claiming.clear());
    for (const c of claimed) this.#launch(c.kind, c.row, c.token);
  }

  #launch(kind: AnyKind, row: ItemRow, token: string): void {
    const run: LocalRun = {
      kind,
      id: row.item_id,
      token,
      controller: new AbortController(),
      finished: false,
      rerun: false,
      lost: false,
    };
    const k = key(kind.name, row.item_id);
    this.#running.set(k, run);
    const heartbeat = setInterval(() => void this.#renew(run), Math.max(10, this.leaseMs / 3));
    heartbeat.unref();
    let timeout: NodeJS.Timeout | undefined;
    if (row.deadline !== null) {
      const abort = () => run.controller.abort(new JobAbort('timeout', 'The job exceeded its maximum runtime.'));
      timeout = setTimeout(abort, Math.max(0, row.deadline - Date.now()));
      timeout.unref();
    }
    if (row.stop_requested === 1) run.controller.abort(new JobAbort('stop', 'Stop requested.'));
    const observed = this.#observer?.started(
      kind.name,
      row.item_id,
      row.attempts,
      row.attempts <= 1 ? Math.max(0, Date.now() - row.submitted_at) : undefined,
    );
    run.done = this.#execute(run, row)
      .catch((err) => this.#log.error({ err, kind: kind.name, id: row.item_id }, 'job runner could not end a run'))
      .finally(() => {
        clearInterval(heartbeat);
        clearTimeout(timeout);
        observed?.(run.lost ? 'lost' : (run.status ?? 'requeued'));
        if (this.#running.get(k) === run) this.#running.delete(k);
        // A slot is free: take the next queued item.
        this.wake();
      });
  }

  async #renew(run: LocalRun): Promise<void> {
    try {
      const r = await store.renewLease(this.#db, run.kind.name, run.id, run.token, Date.now() + this.leaseMs);
      if (!r) this.#lose(run);
      else if (r.stopRequested) run.controller.abort(new JobAbort('stop', 'Stop requested.'));
    } catch (err) {
      this.#log.warn({ err, kind: run.kind.name, id: run.id }, 'could not renew a job lease');
    }
  }

  #lose(run: LocalRun): void {
    run.lost = true;
    run.controller.abort(new JobAbort('lease-lost', 'Another replica took the item over.'));
  }

  /** A transaction that commits only while `run` still holds its claim. */
  #fenced<T>(run: LocalRun, fn: (tx: Queryable, row: ItemRow) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (tx) => {
      const row = await tx.get<ItemRow & Record<string, unknown>>(
        `SELECT * FROM job_items WHERE kind = ? AND item_id = ?${forUpdate(tx)}`,
        [run.kind.name, run.id],
      );
      if (!row || row.claim_token !== run.token) {
        this.#lose(run);
        throw new LeaseLostError(`${run.kind.name} ${run.id} is no longer held by this replica`);
      }
      return fn(tx, row);
    });
  }

  /** Ends the item, or, when a rerun was submitted during the run, keeps it and says so. */
  async #finishIn(tx: Queryable, run: LocalRun, row: ItemRow): Promise<boolean> {
    if (row.generation > row.run_generation) {
      await store.startRerun(tx, run.kind.name, run.id, row.generation);
      run.rerun = true;
      return false;
    }
    await store.markDone(tx, run.kind.name, run.id, Date.now());
    run.finished = true;
    return true;
  }

  async #execute(run: LocalRun, first: ItemRow): Promise<void> {
    const { kind } = run;
    let row = first;
    for (;;) {
      run.finished = false;
      run.rerun = false;
      const ctx = this.#context(run, row);
      let error: unknown;
      let threw = false;
      try {
        await kind.run(ctx);
      } catch (err) {
        threw = true;
        error = err;
      }
      if (run.lost || error instanceof LeaseLostError) return;
      const reason = run.controller.signal.aborted ? (run.controller.signal.reason as JobAbort) : undefined;
      if (run.finished) return;
      if (!run.rerun && reason?.cause === 'shutdown' && kind.onRestart === 'resume') {
        await store.releaseItem(this.#db, kind.name, run.id, run.token);
        return;
      }
      if (!run.rerun && (reason || threw)) {
        const why: EndReason = reason
          ? {
              cause: reason.cause === 'stop' ? 'stopped' : reason.cause === 'timeout' ? 'timeout' : 'shutdown',
              message: reason.message,
            }
          : { cause: 'error', message: error instanceof Error ? error.message : String(error), error };
        // A failure the job's user can act on (JobFailure: a bad hyperparameter, a missing input) is
        // the job's outcome, not the server's fault: info, without a stack. Anything else is a fault.
        if (threw && !reason) {
          if (error instanceof JobFailure)
            this.#log.info({ kind: kind.name, id: run.id, reason: error.message }, 'job failed');
          else this.#log.error({ err: error, kind: kind.name, id: run.id }, 'job run failed unexpectedly');
        }
        run.status = await this.#fenced(run, (tx, current) => this.#end(tx, kind, current, why));
        return;
      }
      // Resolved without finishing (or finished with a rerun pending): end it, or run again.
      if (!run.rerun && (await this.#fenced(run, (tx, current) => this.#finishIn(tx, run, current)))) return;
      row = (await store.getItem(this.#db, kind.name, run.id))!;
      if (!row || row.claim_token !== run.token) return;
    }
  }

  #context(run: LocalRun, row: ItemRow): RunContext<unknown> {
    const item = toItem(row);
    return {
      ...item,
      signal: run.controller.signal,
      transaction: (fn) => this.#fenced(run, (tx) => fn(tx)),
      transition: (tx, status, message) =>
        this.#record(tx, run.kind.name, run.id, row.payload, status, message, Date.now()),
      finish: async (tx, status, message) => {
        if (status) await this.#record(tx, run.kind.name, run.id, row.payload, status, message, Date.now());
        run.status = status ?? run.status ?? 'done';
        const current = (await store.getItem(tx, run.kind.name, run.id, true))!;
        return this.#finishIn(tx, run, current);
      },
      transitions: () => store.listTransitions(this.#db, run.kind.name, run.id),
    };
  }
}

function toItem<P>(row: ItemRow): WorkItem<P> {
  return {
    kind: row.kind,
    id: row.item_id,
    payload: JSON.parse(row.payload) as P,
    attempt: row.attempts,
    stopRequested: row.stop_requested === 1,
    submittedAt: row.submitted_at,
    startedAt: row.started_at,
    deadline: row.deadline,
  };
}
