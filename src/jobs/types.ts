// What a background kind declares to the job runner, and what its run sees (see README.md here).
import type { Queryable } from '../storage/db/types.js';

/** Why a run was asked to stop early: the AbortSignal's reason is a JobAbort carrying one of these. */
export type AbortCause = 'stop' | 'timeout' | 'shutdown' | 'lease-lost';

/** The reason an aborted run's signal carries. */
export class JobAbort extends Error {
  override readonly name = 'JobAbort';
  constructor(
    override readonly cause: AbortCause,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by RunContext.transaction when another replica took the item over (its lease expired). */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/**
 * How a run ended without finishing by itself, handed to JobKind.end so the kind writes its own
 * final status (e.g. Stopped, Failed with FailureReason):
 * - stopped: requestStop() was called;
 * - timeout: the run passed maxRuntimeMs;
 * - error: run() threw;
 * - restarted: the server (or replica) running it died and onRestart is 'fail';
 * - shutdown: the server is stopping while it runs and onRestart is 'fail'.
 */
export interface EndReason {
  readonly cause: 'stopped' | 'timeout' | 'error' | 'restarted' | 'shutdown';
  readonly message: string;
  readonly error?: unknown;
}

/** One recorded status change of an item. */
export interface Transition {
  readonly seq: number;
  readonly status: string;
  readonly message: string | null;
  /** Epoch ms. */
  readonly at: number;
}

/** A transition as subscribers see it, inside the transaction that records it. */
export interface TransitionEvent<P = unknown> extends Transition {
  readonly kind: string;
  readonly id: string;
  readonly payload: P;
}

export type TransitionListener = (tx: Queryable, event: TransitionEvent) => Promise<void>;

/** A durable work item as a kind sees it. */
export interface WorkItem<P> {
  readonly kind: string;
  readonly id: string;
  readonly payload: P;
  /** 1 on the first run, more after a restart or takeover resumed it. */
  readonly attempt: number;
  readonly stopRequested: boolean;
  readonly submittedAt: number;
  /** When the first run started (epoch ms). */
  readonly startedAt: number | null;
  /** When the run is stopped for exceeding maxRuntimeMs (epoch ms), if it has a limit. */
  readonly deadline: number | null;
}

export interface RunContext<P> extends WorkItem<P> {
  /** Aborted on stop, timeout, shutdown or loss of the lease; reason is a JobAbort. */
  readonly signal: AbortSignal;
  /**
   * A transaction that commits only while this replica still holds the item: it throws
   * LeaseLostError (and rolls back) if another replica took it over meanwhile.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Records a status transition (and tells subscribers) inside tx. */
  transition(tx: Queryable, status: string, message?: string): Promise<void>;
  /**
   * Ends the item inside tx, optionally recording a last transition. Call it in the transaction
   * that writes the kind's final state, so both commit together. Returns false when a rerun was
   * submitted meanwhile: the runner then runs the item again after this run returns.
   */
  finish(tx: Queryable, status?: string, message?: string): Promise<boolean>;
  /** Every transition recorded so far, oldest first. */
  transitions(): Promise<Transition[]>;
}

export interface JobKind<P> {
  /** Unique name; stored with every item. */
  readonly name: string;
  /** Items of this kind run at once on one replica (default: the number of cores). Infinity: no bound. */
  readonly concurrency?: number;
  /**
   * What happens to an item whose replica died (or stopped) while running it: run it again from
   * the start ('resume'; the run reads transitions() to know how far it got), or end it with
   * end({ cause: 'restarted' | 'shutdown' }) ('fail').
   */
  readonly onRestart: 'resume' | 'fail';
  /** The run's time limit, counted from its first start (e.g. MaxRuntimeInSeconds). */
  maxRuntimeMs?(payload: P): number | undefined;
  /**
   * Does the work. Resolving ends the item (call ctx.finish in the last transaction, or the runner
   * ends it after); throwing ends it through end({ cause: 'error' }). Watch ctx.signal: when it
   * aborts, return or throw soon; the runner then calls end() with the cause.
   */
  run(ctx: RunContext<P>): Promise<void>;
  /**
   * Writes the kind's final state for a run that did not finish by itself, inside tx (the runner
   * records the returned transition and ends the item in the same transaction).
   */
  end(tx: Queryable, item: WorkItem<P>, why: EndReason): Promise<{ status: string; message?: string }>;
}

export interface SubmitOptions {
  /** The first transition to record (e.g. 'Creating', 'InProgress'). */
  readonly status?: string;
  readonly message?: string;
  /**
   * When an item with this id is still queued or running: 'error' (default) throws
   * JobExistsError, 'rerun' runs it once more after the current run (the run reads the state it
   * needs from the database), 'ignore' leaves it alone. A finished item is always replaced.
   */
  readonly whenActive?: 'error' | 'rerun' | 'ignore';
}

export class JobExistsError extends Error {
  override readonly name = 'JobExistsError';
}

/** Told about each run on this replica (metrics, traces): when it starts and how it ends. */
export interface JobObserver {
  /**
   * A run started, `claimLagMs` after its item was submitted (first attempts only: a takeover's lag
   * is the lease, not the queue). The returned function is called when the run ends, with the
   * item's final status, or 'requeued' / 'lost' when it was given back or taken over.
   */
  started(kind: string, id: string, attempt: number, claimLagMs: number | undefined): (status: string) => void;
}
