// The serverless pool of one deployed variant: no workers while idle, a cold start when a request
// finds none warm, scale-in after the idle period, ProvisionedConcurrency kept warm, MaxConcurrency
// enforced exactly (over it → ThrottlingException; requests never queue), a 60 s invocation timeout,
// and a worker that crashes, hangs or overruns its memory replaced while the endpoint stays InService.
// https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-how-it-works.html

import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { InternalFailure } from '../generated/sagemaker-runtime/errors.js';
import { ServiceError } from '../protocol/service-error.js';
import type { DeployedImage, DeployedVariant, InvocationRequest, InvocationResult, VariantSpec } from './engine.js';
import { DeploymentError } from './engine.js';
import { failureStatus, modelError, stoppedError, throttlingError, timeoutError } from './errors.js';
import type { MetricsRegistry, PoolGauges, VariantMetrics } from './metrics.js';
import type { InlineModel, Instance, Runtime } from './runtime.js';
import { ContainerFailure, type FailureKind } from './failure.js';
import { CoreBudget } from './core-budget.js';
import { type ConcurrencyLimiter, ownHandle, type SlotHandle, type WarmShare } from './concurrency/limiter.js';

export interface PoolOptions {
  readonly spec: VariantSpec;
  readonly runtime: Runtime;
  readonly metrics: MetricsRegistry;
  readonly idleMs: number;
  readonly invocationTimeoutMs: number;
  readonly log: Logger;
  /** Called once the pool has stopped (the engine forgets it). */
  readonly onStopped?: (pool: ServerlessPool) => void;
  /**
   * Counts invocations against the endpoint's limits across replicas (spec.scope); a pool without a
   * scope (a transform job's) counts its own.
   */
  readonly limiter?: ConcurrencyLimiter;
  /**
   * The workers busy across the server's pools, against its CPUs: while it is full, a request for
   * a fast model waits for the first of this pool's busy workers to answer instead of taking
   * another (see takeSlot). Default: a budget of this pool's own for the machine's CPUs.
   */
  readonly cores?: CoreBudget;
  /** What a fast model is (ms); default FAST_ANSWER_MS. */
  readonly fastAnswerMs?: number;
}

/**
 * A model whose answers come within this time (ms) is fast: a request waits for a busy worker
 * rather than handing more workers than CPUs to the kernel.
 */
export const FAST_ANSWER_MS = 1;

interface Slot {
  readonly inst: Instance;
  lastUsed: number;
  /** When its current request went out (while busy). */
  since: number;
  dead: boolean;
  retiring: boolean;
}

const now = (): number => performance.now();

export class ServerlessPool implements DeployedVariant, PoolGauges {
  readonly deployedImages: readonly DeployedImage[];
  readonly maxConcurrency: number;
  inFlight = 0;
  /** Warm workers to keep: this replica's share of ProvisionedConcurrency. */
  private provisioned: number;
  private readonly slots: SlotHandle;
  private warmShare: WarmShare | undefined;
  private readonly runtime: Runtime;
  private readonly m: VariantMetrics;
  private idle: Slot[] = []; // most recently used last: reuse it, let the others expire
  private readonly busy = new Set<Slot>();
  /** Requests waiting for a busy worker of a fast model: handed the first one that answers. */
  private waiting: ((slot: Slot | undefined) => void)[] = [];
  /** Checks, while requests wait, that the busy workers still answer soon (see recheck). */
  private recheckTimer: NodeJS.Timeout | undefined;
  private readonly cores: CoreBudget;
  private readonly fastMs: number;
  /** How long answers take (ms, a moving average: one slow answer does not make a slow model). */
  private answerMs = Number.POSITIVE_INFINITY;
  private starting = 0;
  private inline: InlineModel | undefined;
  private inlineLoading: Promise<InlineModel> | undefined;
  private inlineLastUsed = 0;
  private timer: NodeJS.Timeout | undefined;
  private state: 'running' | 'stopping' | 'stopped' = 'running';
  private stopping: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  constructor(private readonly o: PoolOptions) {
    const s = o.spec.serverless;
    this.maxConcurrency = s.maxConcurrency;
    this.provisioned = Math.min(s.provisionedConcurrency ?? 0, s.maxConcurrency);
    const scope = o.spec.scope;
    this.slots =
      o.limiter && scope
        ? o.limiter.handle({ key: scope.key, max: s.maxConcurrency, account: scope.account })
        : ownHandle(s.maxConcurrency);
    this.runtime = o.runtime;
    this.cores = o.cores ?? new CoreBudget();
    this.fastMs = o.fastAnswerMs ?? FAST_ANSWER_MS;
    const at = new Date();
    this.deployedImages = o.spec.containers.slice(0, 1).map((c) => ({
      specifiedImage: c.image,
      resolvedImage: o.runtime.resolvedImage,
      resolutionTime: at,
    }));
    this.m = o.metrics.attach(o.spec.endpointName, o.spec.variantName, this, o.spec.partition);
  }

  get idleWorkers(): number {
    return this.idle.length + (this.inline ? 1 : 0);
  }

  get busyWorkers(): number {
    return this.busy.size;
  }

  get startingWorkers(): number {
    return this.starting + (this.inlineLoading ? 1 : 0);
  }

  /**
   * Proves the model loads (once), then keeps ProvisionedConcurrency warm. Throws DeploymentError.
   */
  async warmUp(): Promise<void> {
    const image = this.o.spec.containers[0]?.image;
    const scope = this.o.spec.scope;
    if (this.o.limiter && scope && this.provisioned > 0) {
      // ProvisionedConcurrency is the endpoint's: this replica keeps warm the share the others leave.
      this.warmShare = await this.o.limiter.warm(scope.key, this.provisioned, (n) => this.setProvisioned(n));
      this.provisioned = Math.min(this.warmShare.granted, this.provisioned);
    }
    try {
      if (this.runtime.loadInline) {
        const inline = await this.runtime.loadInline();
        if (this.provisioned > 0) this.inline = inline;
        return;
      }
      const first = await this.startSlot(false);
      const rest = await Promise.all(
        Array.from({ length: Math.max(0, this.provisioned - 1) }, () => this.startSlot(false)),
      );
      if (this.provisioned > 0) {
        for (const s of [first, ...rest]) this.idle.push(s);
      } else {
        await this.retire(first);
      }
    } catch (e) {
      await this.stop();
      if (e instanceof DeploymentError) throw e;
      const detail = e instanceof Error ? e.message : String(e);
      throw new DeploymentError(
        `The model of container primary (image "${image}") could not be loaded: ${detail}`.slice(0, 1024),
      );
    }
  }

  invoke(req: InvocationRequest): Promise<InvocationResult> {
    if (this.state === 'stopped') return Promise.reject(stoppedError(this.o.spec.endpointName));
    // A slot held here: no waiting. Otherwise the other replicas are asked (or, alone, refused).
    if (!this.slots.tryTake()) return this.slots.take().then((ok) => this.invokeWithSlot(req, ok));
    return this.invokeWithSlot(req, true);
  }

  private invokeWithSlot(req: InvocationRequest, ok: boolean): Promise<InvocationResult> {
    if (!ok) {
      this.m.throttles++;
      return Promise.reject(throttlingError(this.maxConcurrency));
    }
    if (this.state === 'stopped') {
      this.slots.give();
      return Promise.reject(stoppedError(this.o.spec.endpointName));
    }
    this.inFlight++;
    this.m.invocations++;
    const t0 = now();
    const inline = this.inline;
    if (inline) {
      // Warm fast path: small work answered on the event loop (see runtimes/xgboost-runtime.ts).
      let r: InvocationResult | undefined;
      try {
        r = inline.tryInvoke(req);
      } catch (e) {
        this.requestDone();
        return Promise.reject(this.failed(e));
      }
      if (r) {
        const t1 = now();
        this.m.modelLatency.observe((t1 - t0) / 1000);
        this.m.overheadLatency.observe(0);
        this.inlineLastUsed = t1;
        this.requestDone();
        return Promise.resolve(r);
      }
    }
    return this.invokeSlow(req, t0).finally(() => this.requestDone());
  }

  private requestDone(): void {
    this.inFlight--;
    this.slots.give();
    if (this.inFlight === 0 && this.drained) this.drained();
    if (!this.timer && this.state === 'running') this.schedule();
  }

  private async invokeSlow(req: InvocationRequest, t0: number): Promise<InvocationResult> {
    try {
      if (this.runtime.loadInline && !this.inline) {
        const inline = await this.loadInline();
        const t1 = now();
        const r = inline.tryInvoke(req);
        if (r) {
          const t2 = now();
          this.m.modelLatency.observe((t2 - t1) / 1000);
          this.m.overheadLatency.observe((t1 - t0) / 1000);
          this.inlineLastUsed = t2;
          return r;
        }
      }
      const slot = await this.takeSlot();
      const t1 = now();
      try {
        const r = await this.withTimeout(slot, req);
        const t2 = now();
        this.answerMs = Number.isFinite(this.answerMs) ? 0.75 * this.answerMs + 0.25 * (t2 - t1) : t2 - t1;
        this.m.modelLatency.observe((t2 - t1) / 1000);
        this.m.overheadLatency.observe((t1 - t0) / 1000);
        return r;
      } catch (e) {
        if (e instanceof ContainerFailure && e.fatal && !slot.dead) {
          // e.g. a container that dropped the connection but still runs: never reuse it
          slot.dead = true;
          this.countFailure(slot, e.kind);
          slot.inst.kill(e.kind);
        }
        throw e;
      } finally {
        this.putBack(slot);
      }
    } catch (e) {
      throw this.failed(e);
    }
  }

  /**
   * A worker for one request: an idle one (the most recently used), or a cold start. But while as
   * many workers as the machine has CPUs are busy (in any pool: see CoreBudget) and this pool's
   * model answers within fastMs, the request waits for the first of this pool's busy workers to
   * answer: more workers than CPUs would only take turns on them, each woken cold, and on 2 vCPUs
   * served a scikit-learn model at 4 connections a quarter fewer requests a second than 2 workers
   * did (docs/benchmarks.md, issue 30). MaxConcurrency is unchanged: it still bounds the requests
   * in flight; a pool with no busy worker of its own never waits; and a slower model, or one
   * whose busy workers stall (see recheck), still gets a worker per request.
   */
  private async takeSlot(): Promise<Slot> {
    for (;;) {
      // A worker starting now is busy with its request once it is up.
      if (this.cores.full && this.busy.size + this.starting > 0 && this.answersSoon()) {
        this.recheckTimer ??= this.armRecheck();
        const handed = await new Promise<Slot | undefined>((r) => this.waiting.push(r));
        if (handed) {
          handed.since = now();
          return handed;
        }
        continue; // a worker died instead of answering: choose again
      }
      let slot = this.idle.pop();
      if (!slot) {
        try {
          slot = await this.startSlot(true);
        } catch (e) {
          // No worker will answer for this start: a request waiting for one chooses again.
          this.waiting.shift()?.(undefined);
          throw e;
        }
      }
      slot.since = now();
      this.busy.add(slot);
      this.cores.busy++;
      return slot;
    }
  }

  /** Whether the busy workers' answers are due soon: a fast model, and none of them stuck. */
  private answersSoon(): boolean {
    if (this.answerMs > this.fastMs) return false;
    const t = now();
    for (const s of this.busy) if (t - s.since > this.fastMs) return false;
    return true;
  }

  /**
   * Requests wait only for answers due soon: when every busy worker has been busy longer than a
   * fast answer takes (a stall), the waiting requests choose again, and take other workers.
   */
  private readonly recheck = (): void => {
    this.recheckTimer = undefined;
    if (this.waiting.length === 0) return;
    if (this.answersSoon()) {
      this.recheckTimer = this.armRecheck();
      return;
    }
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w(undefined);
  };

  /** The next recheck, four fast answers from now. */
  private armRecheck(): NodeJS.Timeout {
    return setTimeout(this.recheck, 4 * this.fastMs).unref();
  }

  /** A worker's request ended: hand it to a waiting request, or back to the idle ones. */
  private putBack(slot: Slot): void {
    const next = this.waiting.shift();
    if (next && !slot.dead && this.state !== 'stopped') {
      slot.since = now();
      next(slot); // stays busy
      return;
    }
    if (this.busy.delete(slot)) this.cores.busy--;
    slot.lastUsed = now();
    if (!slot.dead) {
      if (this.state === 'stopped') void this.retire(slot);
      else this.idle.push(slot);
    }
    next?.(undefined);
  }

  private withTimeout(slot: Slot, req: InvocationRequest): Promise<InvocationResult> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        slot.dead = true; // no longer usable, whatever it answers later
        this.countFailure(slot, 'timeout');
        slot.inst.kill('timeout');
        reject(new ContainerFailure('timeout', 0, 'timeout'));
      }, this.o.invocationTimeoutMs);
      slot.inst.invoke(req).then(
        (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** Maps any failure to what InvokeEndpoint answers, and counts it. */
  private failed(e: unknown): ServiceError {
    if (e instanceof ContainerFailure) {
      const status = failureStatus(e.kind, e.status);
      if (status > 0 && status < 500) this.m.errors4xx++;
      else this.m.errors5xx++;
      return e.kind === 'timeout' ? timeoutError() : modelError(status, e.message);
    }
    if (e instanceof ServiceError) return e;
    this.o.log.error({ err: e, endpoint: this.o.spec.endpointName }, 'unexpected inference failure');
    this.m.errors5xx++;
    return new InternalFailure('An internal error occurred while invoking the model.');
  }

  private loadInline(): Promise<InlineModel> {
    if (!this.inlineLoading) {
      const ts = now();
      this.inlineLoading = this.runtime.loadInline!().then(
        (inline) => {
          this.m.modelSetupTime.observe((now() - ts) / 1000);
          this.inlineLoading = undefined;
          if (this.state !== 'stopped') this.inline = inline;
          this.inlineLastUsed = now();
          return inline;
        },
        (e: unknown) => {
          this.inlineLoading = undefined;
          this.m.workerFailures.startup++;
          throw new ContainerFailure('startup', 500, `The model could not be loaded: ${(e as Error).message}`);
        },
      );
    }
    return this.inlineLoading;
  }

  /** A cold start: one more instance. */
  private async startSlot(measured: boolean): Promise<Slot> {
    this.starting++;
    this.cores.busy++;
    const ts = now();
    try {
      const inst = await this.runtime.start();
      if (measured) this.m.modelSetupTime.observe((now() - ts) / 1000);
      const slot: Slot = { inst, lastUsed: now(), since: 0, dead: false, retiring: false };
      inst.onDeath((kind, message) => this.onDeath(slot, kind, message));
      return slot;
    } catch (e) {
      if (measured) this.m.workerFailures.startup++;
      throw e;
    } finally {
      this.starting--;
      this.cores.busy--;
    }
  }

  private countFailure(slot: Slot, kind: FailureKind): void {
    if (slot.retiring) return;
    slot.retiring = true; // counted once
    if (kind !== 'response') this.m.workerFailures[kind]++;
  }

  private onDeath(slot: Slot, kind: FailureKind, message: string): void {
    if (slot.retiring) return;
    slot.dead = true;
    this.countFailure(slot, kind);
    this.o.log.warn(
      { endpoint: this.o.spec.endpointName, variant: this.o.spec.variantName, kind, message },
      'model worker died',
    );
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
    this.replenish();
  }

  /** Keeps ProvisionedConcurrency warm after a worker died (or this replica's share grew). */
  private replenish(): void {
    if (this.state !== 'running') return;
    if (this.runtime.loadInline) {
      if (this.provisioned > 0 && !this.inline && !this.inlineLoading)
        void this.loadInline().catch((e: unknown) =>
          this.o.log.warn({ err: e, endpoint: this.o.spec.endpointName }, 'could not restore provisioned concurrency'),
        );
      return;
    }
    for (let warm = this.idle.length + this.busy.size + this.starting; warm < this.provisioned; warm++) {
      this.startSlot(true).then(
        (s) => {
          if (this.state === 'running') this.idle.push(s);
          else void this.retire(s);
        },
        (e: unknown) =>
          this.o.log.warn({ err: e, endpoint: this.o.spec.endpointName }, 'could not restore provisioned concurrency'),
      );
    }
  }

  /** This replica's share of ProvisionedConcurrency changed: warm up to it, or let the extra go. */
  private setProvisioned(n: number): void {
    const target = Math.min(n, this.maxConcurrency);
    if (target === this.provisioned || this.state !== 'running') return;
    const grew = target > this.provisioned;
    this.provisioned = target;
    if (grew) this.replenish();
    else {
      while (this.idle.length > 0 && this.idle.length + this.busy.size > this.provisioned)
        void this.retire(this.idle.shift()!);
      if (!this.timer) this.schedule();
    }
  }

  private async retire(slot: Slot): Promise<void> {
    slot.retiring = true;
    slot.dead = true;
    await slot.inst.release().catch(() => slot.inst.kill('crash'));
  }

  /** Arms the scale-in timer for the earliest moment something warm may expire. */
  private schedule(): void {
    let next = Number.POSITIVE_INFINITY;
    if (this.idle.length + this.busy.size > this.provisioned && this.idle.length > 0) next = this.idle[0]!.lastUsed;
    if (this.inline && this.provisioned === 0) next = Math.min(next, this.inlineLastUsed);
    if (next === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, next + this.o.idleMs - now()) + 1);
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    if (this.state !== 'running') return;
    const t = now();
    while (
      this.idle.length > 0 &&
      this.idle.length + this.busy.size > this.provisioned &&
      this.idle[0]!.lastUsed + this.o.idleMs <= t
    ) {
      void this.retire(this.idle.shift()!);
    }
    if (this.inline && this.provisioned === 0 && this.inlineLastUsed + this.o.idleMs <= t) this.inline = undefined;
    this.schedule();
  }

  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.state = 'stopping';
    if (this.inFlight > 0) await new Promise<void>((r) => (this.drained = r));
    this.state = 'stopped';
    this.slots.close();
    this.warmShare?.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inline = undefined;
    const idle = this.idle;
    this.idle = [];
    await Promise.all(idle.map((s) => this.retire(s)));
    this.o.metrics.detach(this.m, this);
    this.o.onStopped?.(this);
  }
}
