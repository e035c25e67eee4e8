// One tuning job's run on the job runner: launch children as the strategy suggests them, at most
// MaxParallelTrainingJobs at a time, watch each child's objective as it trains (stopping it early
// when the stopping rule says so), and end the tuning job when its budget, its completion criteria
// or a stop say so. Everything it decides from is in the database (children, their statuses and
// objectives), so a run resumed after a restart, on any replica, goes on where the last one was.
import type { Logger } from 'pino';
import type { Partition } from '../domain/arn.js';
import { JobFailure } from '../jobs/job-failure.js';
import type { RunContext } from '../jobs/types.js';
import type { RequestContext } from '../protocol/context.js';
import type { ServiceDeps } from '../services/common/deps.js';
import type { TrainingJobService } from '../services/sagemaker/training-jobs.js';
import type { TuningChildJob } from '../storage/repositories/tuning-children.js';
import type { TrainingProgress } from '../training/progress.js';
import type { TrainingJobDoc } from '../training/training-doc.js';
import { launchChild, refreshSummary } from './children.js';
import { type PlannedDefinition, planTuning, type TuningPlan } from './plan.js';
import type { Curve, Stopper } from './stopping.js';
import { medianStopper } from './stopping.js';
import { hyperbandStopper } from './strategies/hyperband.js';
import { strategyFor } from './strategies/index.js';
import type { Strategy, Trial } from './strategy.js';
import type { TuningJobDoc, TuningWork } from './tuning-doc.js';
import type { Suggester } from './suggester.js';
import { priorTrials } from './warm-start.js';

export interface RunServices {
  readonly deps: ServiceDeps;
  readonly training: TrainingJobService;
  readonly progress: TrainingProgress;
  readonly log: Logger;
  /** How often the run looks at its children when nothing told it of a change (ms). */
  readonly pollMs: number;
  /** Computes Bayesian suggestions off the event loop. */
  readonly suggester: Suggester;
}

/** Training jobs that must end before a tuning job whose jobs all failed is failed ("after 5 attempts"). */
export const FAILED_ATTEMPTS = 5;

const RUNNING = new Set(['InProgress', 'Stopping']);

/** A request context for writes the run makes on the tuning job's behalf. */
function backgroundContext(p: Partition, log: Logger): RequestContext {
  return { requestId: 'tuning', accountId: p.accountId, region: p.region, log, receivedAt: Date.now() };
}

interface Watch {
  readonly curve: Curve & { values: Map<number, number>; ended: boolean };
  readonly read: (line: string) => [number, number] | undefined;
  /** Rounds the job will train at most (num_round of the built-in algorithm), when known. */
  readonly planned?: number;
  unwatch?: () => void;
  /** Lines have come in-process: no need to read the job's log. */
  local: boolean;
  /** The last log event read from the job's log stream (a child running on another replica). */
  logSeq?: number;
  stopping: boolean;
}

export class TuningRun {
  readonly #s: RunServices;
  readonly #ctx: RunContext<TuningWork>;
  readonly #p: Partition;
  #plan!: TuningPlan;
  #doc!: TuningJobDoc;
  #stopper?: Stopper;
  readonly #watches = new Map<number, Watch>();
  #wake?: () => void;
  #hotUntil = 0;
  #gridDone = false;
  #stopLaunching = false;
  #converged = false;
  readonly #reading = new Set<number>();

  constructor(s: RunServices, ctx: RunContext<TuningWork>) {
    this.#s = s;
    this.#ctx = ctx;
    this.#p = ctx.payload;
  }

  /** Something changed for this tuning job (a child ended): look again at once. */
  nudge(): void {
    this.#hotUntil = Date.now() + 200;
    this.#wake?.();
  }

  async run(): Promise<void> {
    const { deps } = this.#s;
    const key = this.#ctx.payload.nameKey;
    const row = await deps.repos.tuningJobs.get(deps.db, this.#p, key);
    if (!row) return;
    this.#doc = JSON.parse(row.doc) as TuningJobDoc;
    this.#plan = planTuning(this.#doc);
    const strategy = strategyFor(this.#plan, this.#doc.Seed);
    this.#stopper = this.#stopperFor();
    const prior = await priorTrials(deps, this.#p, this.#doc, this.#plan);
    try {
      for (;;) {
        const children = await deps.repos.tuningChildren.all(deps.db, this.#p, key);
        this.#sync(children);
        if (this.#ctx.signal.aborted) return await this.#abort(children);
        const running = children.filter((c) => RUNNING.has(c.status));
        const ended = children.filter((c) => !RUNNING.has(c.status));
        const succeeded = children.filter((c) => c.objective_status === 'Succeeded');
        const attempts = Math.min(FAILED_ATTEMPTS, this.#plan.maxJobs);
        if (succeeded.length === 0 && ended.length >= attempts && ended.every((c) => c.objective_status === 'Failed')) {
          throw new JobFailure(
            `No training job succeeded after ${ended.length} attempts. Please take a look at the training job failures to get more details.`,
          );
        }
        this.#checkCriteria(children);
        const done = this.#stopLaunching || this.#gridDone || children.length >= this.#plan.maxJobs;
        if (done && running.length === 0) return await this.#finish();
        if (!done) await this.#launch(strategy, children, prior, running.length);
        await this.#idle();
      }
    } finally {
      for (const w of this.#watches.values()) w.unwatch?.();
      this.#s.suggester.forget(this.#arn);
    }
  }

  #stopperFor(): Stopper | undefined {
    const plan = this.#plan;
    if (plan.hyperband) return hyperbandStopper(plan.hyperband, this.#doc.Seed, plan.definitions[0]!.maximize);
    if (!plan.earlyStopping) return undefined;
    const byDef = new Map(plan.definitions.map((d) => [d.name, medianStopper(d.maximize)]));
    return { shouldStop: (job, round, value, all) => byDef.get(job.definition)!.shouldStop(job, round, value, all) };
  }

  /** Launches children until MaxParallelTrainingJobs run, the budget is spent or the strategy has nothing more. */
  async #launch(
    strategy: Strategy,
    children: TuningChildJob[],
    prior: readonly Trial[],
    running: number,
  ): Promise<void> {
    const trials: Trial[] = [...prior, ...children.map((c) => this.#trial(c))].filter(
      (t): t is Trial => t !== undefined,
    );
    let inFlight = running;
    let seq = children.length;
    while (inFlight < this.#plan.maxParallel && seq < this.#plan.maxJobs && !this.#ctx.signal.aborted) {
      // Bayesian suggestions fit a model: off the event loop. The others are cheap draws.
      const s =
        this.#plan.strategy === 'Bayesian'
          ? await this.#s.suggester.suggest({
              key: this.#arn,
              request: this.#request(),
              seed: this.#doc.Seed,
              seq: seq + 1,
              trials,
            })
          : strategy.suggest(seq + 1, trials);
      if (!s) {
        this.#gridDone = true;
        break;
      }
      const def = this.#plan.definitions.find((d) => d.name === s.definition)!;
      const tuned = def.space.format(s.config);
      const launched = await launchChild(
        this.#s.deps,
        this.#s.training,
        backgroundContext(this.#p, this.#s.log),
        {
          row: (await this.#s.deps.repos.tuningJobs.get(this.#s.deps.db, this.#p, this.#ctx.payload.nameKey))!,
          doc: this.#doc,
          experiment: this.#doc.ExperimentName,
        },
        seq + 1,
        def.definition,
        def.name,
        tuned,
      );
      seq++;
      inFlight++;
      trials.push({ seq, definition: def.name, config: s.config, pending: true });
      this.#watch(seq, launched.arn, def, tuned);
    }
  }

  /** The stored request, as planTuning reads it. */
  #request(): TuningJobDoc {
    return this.#doc;
  }

  get #arn(): string {
    return `${this.#p.accountId}|${this.#p.region}|${this.#ctx.payload.nameKey}`;
  }

  /** A child as a trial for the strategy (undefined if its hyperparameters no longer parse). */
  #trial(c: TuningChildJob): Trial | undefined {
    const def = this.#plan.definitions.find((d) => d.name === (c.definition_name ?? ''));
    const config = def?.space.parse(JSON.parse(c.tuned) as Record<string, string>);
    if (!def || !config) return undefined;
    return {
      seq: c.seq,
      definition: def.name,
      config,
      pending: RUNNING.has(c.status),
      objective: c.objective ?? undefined,
    };
  }

  /** Watches a child's output for its objective's intermediate values (only when a rule may stop it). */
  #watch(seq: number, arn: string, def: PlannedDefinition, tuned: Readonly<Record<string, string>>): Watch | undefined {
    if (!this.#stopper || this.#watches.has(seq)) return this.#watches.get(seq);
    const statics = def.definition.StaticHyperParameters ?? {};
    const rounds = Number(tuned.num_round ?? statics.num_round);
    const w: Watch = {
      curve: { seq, definition: def.name, values: new Map(), ended: false },
      read: def.algorithm.reader(def.objective.MetricName),
      planned: def.algorithm.builtin && Number.isInteger(rounds) ? rounds : undefined,
      local: false,
      stopping: false,
    };
    w.unwatch = this.#s.progress.watch(arn, (line) => {
      w.local = true;
      this.#observe(w, arn, line);
    });
    this.#watches.set(seq, w);
    return w;
  }

  #observe(w: Watch, arn: string, line: string): void {
    const r = w.read(line);
    if (!r || w.stopping || !this.#stopper) return;
    const [round, value] = r;
    w.curve.values.set(round, value);
    // A job about to finish by itself is left to finish (Hyperband's MaxResource when num_round is it).
    if (w.planned !== undefined && round >= w.planned) return;
    const all = [...this.#watches.values()].map((x) => x.curve);
    if (this.#stopper.shouldStop(w.curve, round, value, all)) {
      w.stopping = true;
      void this.#stopChild(arn);
    }
  }

  /** StopTrainingJob on a child (it ends Stopped); a child that ended meanwhile is left alone. */
  async #stopChild(arn: string): Promise<void> {
    const name = arn.slice(arn.indexOf('/') + 1);
    try {
      await this.#s.training.table.stop(backgroundContext(this.#p, this.#s.log), name);
    } catch (e) {
      this.#s.log.debug({ err: e, job: name }, 'tuning: a child to stop had already ended');
    }
  }

  /** Keeps the watches in step with the children: watch running ones, mark ended ones, read remote logs. */
  #sync(children: readonly TuningChildJob[]): void {
    if (!this.#stopper) return;
    for (const c of children) {
      const def = this.#plan.definitions.find((d) => d.name === (c.definition_name ?? ''));
      if (!def) continue;
      const w = this.#watch(c.seq, c.arn, def, JSON.parse(c.tuned) as Record<string, string>);
      if (!w) continue;
      if (!RUNNING.has(c.status)) {
        w.unwatch?.();
        w.unwatch = undefined;
      }
      // Lines not seen in-process (the child runs on another replica, or ran before a restart): its log.
      if (!w.local && !w.curve.ended) void this.#readLog(w, c);
      if (!RUNNING.has(c.status)) w.curve.ended = true;
    }
  }

  async #readLog(w: Watch, c: TuningChildJob): Promise<void> {
    const stream = (JSON.parse(c.doc) as TrainingJobDoc).LogStreamName;
    if (!stream || this.#reading.has(c.seq)) return;
    this.#reading.add(c.seq);
    try {
      const events = await this.#s.deps.repos.logs.streamEvents(
        this.#s.deps.db,
        this.#p,
        '/aws/sagemaker/TrainingJobs',
        stream,
        { afterSeq: w.logSeq, backwards: false },
        10_000,
      );
      if (w.local) return;
      for (const e of events) {
        w.logSeq = e.seq;
        if (RUNNING.has(c.status)) this.#observe(w, c.arn, e.message);
        else {
          const r = w.read(e.message);
          if (r) w.curve.values.set(r[0], r[1]);
        }
      }
    } catch (e) {
      this.#s.log.warn({ err: e }, 'tuning: could not read a child log');
    } finally {
      this.#reading.delete(c.seq);
    }
  }

  /** TargetObjectiveMetricValue, BestObjectiveNotImproving, ConvergenceDetected: no more launches. */
  #checkCriteria(children: readonly TuningChildJob[]): void {
    if (this.#stopLaunching) return;
    const plan = this.#plan;
    const best = children
      .filter((c) => c.objective_status === 'Succeeded' && c.objective !== null)
      .map((c) => ({
        c,
        maximize: plan.definitions.find((d) => d.name === (c.definition_name ?? ''))?.maximize ?? false,
      }));
    if (plan.targetObjective !== undefined) {
      const t = plan.targetObjective;
      if (best.some(({ c, maximize }) => (maximize ? c.objective! >= t : c.objective! <= t)))
        this.#stopLaunching = true;
    }
    const notImproving = this.#doc.NumberOfTrainingJobsObjectiveNotImproving ?? 0;
    if (plan.maxJobsNotImproving !== undefined && notImproving >= plan.maxJobsNotImproving) this.#stopLaunching = true;
    // Convergence (our rule; SageMaker does not publish its own): the best has not improved by 1%
    // over the last quarter of the budget, and at least ten jobs.
    const window = Math.max(10, Math.ceil(plan.maxJobs / 4));
    if (plan.completeOnConvergence && notImproving >= window) {
      this.#stopLaunching = true;
      this.#converged = true;
    }
  }

  /** Waits for a child to end (nudge), a child's line, or the poll interval, whichever is first. */
  async #idle(): Promise<void> {
    const hot = Date.now() < this.#hotUntil;
    await new Promise<void>((resolve) => {
      const signal = this.#ctx.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, hot ? 5 : this.#s.pollMs);
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
    this.#wake = undefined;
    await this.#reloadDoc();
  }

  async #reloadDoc(): Promise<void> {
    const row = await this.#s.deps.repos.tuningJobs.get(this.#s.deps.db, this.#p, this.#ctx.payload.nameKey);
    if (!row) return;
    this.#doc = JSON.parse(row.doc) as TuningJobDoc;
  }

  /** Stopped or out of time: stop the children still training, wait for them to end, then let end() record it. */
  async #abort(children: readonly TuningChildJob[]): Promise<never> {
    const reason = this.#ctx.signal.reason;
    const cause = (reason as { cause?: string } | undefined)?.cause;
    if (cause === 'stop' || cause === 'timeout') {
      for (const c of children) if (c.status === 'InProgress') await this.#stopChild(c.arn);
      const { deps } = this.#s;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const now = await deps.repos.tuningChildren.all(deps.db, this.#p, this.#ctx.payload.nameKey);
        if (!now.some((c) => RUNNING.has(c.status))) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    throw reason;
  }

  /** Every child has ended and nothing more will launch: Completed. */
  async #finish(): Promise<void> {
    const { deps } = this.#s;
    const key = this.#ctx.payload.nameKey;
    await this.#ctx.transaction(async (tx) => {
      const at = Date.now();
      await refreshSummary(deps, tx, this.#p, key, at);
      const row = (await deps.repos.tuningJobs.get(tx, this.#p, key, true))!;
      const doc = JSON.parse(row.doc) as TuningJobDoc;
      doc.EndTime = at;
      if (this.#converged) doc.ConvergenceDetectedTime = at;
      await deps.repos.tuningJobs.update(tx, this.#p, key, {
        doc: JSON.stringify(doc),
        status: 'Completed',
        last_modified_at: at,
      });
      await this.#ctx.finish(tx, 'Completed', 'Hyperparameter tuning job completed');
    });
  }
}
