// Hyperparameter tuning jobs on the one job runner: the `tuning-job` kind (each run a TuningRun),
// the subscriber that records a child's objective in the transaction that ends it, and the
// internal API that creates, stops and deletes tuning jobs (CreateHyperParameterTuningJob's
// handler uses it; so can a pipeline's Tuning step).
// https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-how-it-works.html
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { type Partition, sagemakerArn } from '../domain/arn.js';
import { ResourceInUse, ResourceNotFound } from '../generated/sagemaker/errors.js';
import type { CreateHyperParameterTuningJobRequest } from '../generated/sagemaker/shapes.js';
import { failureReason, JobFailure } from '../jobs/job-failure.js';
import type { JobRunner } from '../jobs/runner.js';
import type { TableWork } from '../jobs/table-job.js';
import type { JobKind } from '../jobs/types.js';
import { recordTuningStarted } from '../lineage/tuning-recorder.js';
import { ValidationException } from '../protocol/common-errors.js';
import type { RequestContext } from '../protocol/context.js';
import type { ServiceDeps } from '../services/common/deps.js';
import { tableKind } from '../services/common/table-kind.js';
import type { JobService } from '../services/sagemaker/table-jobs.js';
import { trainingJobService, validateTrainingJob } from '../services/sagemaker/training-jobs.js';
import type { Queryable } from '../storage/db/types.js';
import type { TrainingProgress } from '../training/progress.js';
import { childEnded, childRequest, refreshSummary } from './children.js';
import { planTuning } from './plan.js';
import { TuningRun } from './run.js';
import { Suggester } from './suggester.js';
import { emptyCounters, TUNING_KIND, type TuningJobDoc, type TuningWork } from './tuning-doc.js';
import { checkWarmStart } from './warm-start.js';

export interface TuningOptions {
  readonly deps: ServiceDeps;
  readonly runner: JobRunner;
  /** The training job kind: children are its jobs. */
  readonly training: JobService;
  readonly progress: TrainingProgress;
  readonly log: Logger;
  /** How often a run looks at its children when nothing told it of a change (default 250 ms). */
  readonly pollMs?: number;
}

const ENDED = new Set(['Completed', 'Stopped', 'Failed']);
const ACTIVE = new Set(['InProgress', 'Stopping']);

const runKey = (p: Partition, nameKey: string) => `${p.accountId}|${p.region}|${nameKey}`;

export function tuningJobErrors() {
  return {
    notFound: (_p: Partition, name: string) =>
      new ResourceNotFound(`Amazon SageMaker can't find a tuning job with name ${name}`),
    taken: (_p: Partition, arn: string) =>
      new ResourceInUse(
        `Hyperparameter tuning job names must be unique within an AWS account and region, and a tuning job with this name already exists (${arn})`,
      ),
  };
}

export class Tuning {
  readonly kind: JobKind<TuningWork>;
  readonly jobs;
  readonly #o: TuningOptions;
  readonly #runs = new Map<string, TuningRun>();
  readonly #training;
  readonly #suggester: Suggester;

  constructor(o: TuningOptions) {
    this.#o = o;
    this.#suggester = new Suggester(o.log);
    const { deps } = o;
    this.#training = trainingJobService(deps, o.training);
    this.jobs = tableKind<TuningJobDoc>(deps, deps.repos.tuningJobs, tuningJobErrors());
    const services = {
      deps,
      training: this.#training,
      progress: o.progress,
      log: o.log,
      pollMs: o.pollMs ?? 250,
      suggester: this.#suggester,
    };
    this.kind = o.runner.register<TuningWork>({
      name: TUNING_KIND,
      // A tuning job mostly waits for its children; its children are bounded by the training kind.
      concurrency: 64,
      onRestart: 'resume',
      maxRuntimeMs: (w) => (w.maxRuntimeSeconds === undefined ? undefined : w.maxRuntimeSeconds * 1000),
      run: async (ctx) => {
        const run = new TuningRun(services, ctx);
        const key = runKey(ctx.payload, ctx.payload.nameKey);
        this.#runs.set(key, run);
        try {
          await run.run();
        } finally {
          if (this.#runs.get(key) === run) this.#runs.delete(key);
        }
      },
      end: (tx, item, why) => this.#end(tx, item.payload, why),
    });
    // A child's end: its objective and the tuning job's counters commit with it; the run looks again.
    o.runner.subscribe(o.training.kind, async (tx, e) => {
      if (!ENDED.has(e.status)) return;
      const tuningKey = await childEnded(deps, tx, e.payload, e.payload.nameKey, e.at);
      if (tuningKey) setImmediate(() => this.#runs.get(runKey(e.payload, tuningKey))?.nudge());
    });
  }

  /**
   * Creates a tuning job from a CreateHyperParameterTuningJob request: checks it (ValidationException
   * with what to fix), stores it with its tags and experiment, and queues its run. Returns its ARN.
   */
  async create(ctx: RequestContext, input: CreateHyperParameterTuningJobRequest): Promise<string> {
    const { HyperParameterTuningJobName: name, Tags, ...request } = input;
    const plan = planTuning(request);
    // The children's requests pass CreateTrainingJob's own checks before anything is stored.
    for (const d of plan.definitions) validateTrainingJob(childRequest(d.definition, `${name}-001-00000000`, {}, []));
    const arn = sagemakerArn(ctx, 'hyper-parameter-tuning-job', name);
    const cfg = request.HyperParameterTuningJobConfig;
    const doc: TuningJobDoc = {
      ...request,
      ...(request.TrainingJobDefinition ? { TrainingJobDefinition: plan.definitions[0]!.definition } : {}),
      ...(request.TrainingJobDefinitions ? { TrainingJobDefinitions: plan.definitions.map((d) => d.definition) } : {}),
      Seed: cfg.RandomSeed ?? randomInt(2 ** 31),
      ...emptyCounters(),
    };
    const work: TableWork = {
      accountId: ctx.accountId,
      region: ctx.region,
      nameKey: name.toLowerCase(),
      maxRuntimeSeconds: cfg.ResourceLimits.MaxRuntimeInSeconds,
    };
    await this.jobs.create(ctx, { arn, name, status: 'InProgress' }, doc, Tags, async (tx) => {
      const parentsBest = await checkWarmStart(this.#o.deps, tx, ctx, input, plan);
      const experiment = await recordTuningStarted(tx, ctx, { tuningName: name, tuningArn: arn, at: ctx.receivedAt });
      const row = (await this.jobs.get(tx, ctx, name, true))!;
      const stored = this.jobs.doc(row);
      stored.ExperimentName = experiment;
      if (parentsBest) {
        stored.ParentsBest = parentsBest;
        stored.OverallBestTrainingJob = parentsBest;
      }
      await this.#o.deps.repos.tuningJobs.update(tx, ctx, row.name_key, { doc: JSON.stringify(stored) });
      await this.#o.runner.submit(this.kind, arn, work, { tx, status: 'InProgress', message: 'Starting' });
    });
    this.#o.runner.wake();
    return arn;
  }

  /** StopHyperParameterTuningJob: Stopping now; the run stops its children and ends Stopped. */
  async stop(ctx: RequestContext, name: string): Promise<void> {
    await this.#o.deps.db.transaction(async (tx) => {
      const row = await this.jobs.get(tx, ctx, name, true);
      if (row.status !== 'InProgress') {
        throw new ValidationException(
          `The request was rejected because the hyperparameter tuning job is in status ${row.status}.`,
        );
      }
      await this.jobs.store.save(tx, ctx, row, { status: 'Stopping', last_modified_at: ctx.receivedAt });
      await this.#o.runner.recordTransition(tx, TUNING_KIND, row.arn, 'Stopping');
      await this.#o.runner.requestStop(TUNING_KIND, row.arn, tx);
    });
    this.#o.runner.wake();
  }

  /** DeleteHyperParameterTuningJob: the tuning job's own record only (its training jobs stay). */
  async delete(ctx: RequestContext, name: string): Promise<void> {
    await this.jobs.delete(ctx, name, async (tx, row) => {
      if (ACTIVE.has(row.status ?? '')) {
        throw new ValidationException(
          `The hyperparameter tuning job ${row.name} is ${row.status}; stop it and wait for it to end before deleting it.`,
        );
      }
      await this.#o.deps.repos.tuningChildren.removeAll(tx, ctx, row.name_key);
    });
  }

  /** Ends the suggestion worker (after the runner has closed). */
  close(): Promise<void> {
    return this.#suggester.close();
  }

  /** How a run that did not finish by itself ends: stopped or out of time (Stopped), failed (Failed). */
  async #end(tx: Queryable, w: TuningWork, why: { cause: string; message: string; error?: unknown }) {
    const { deps } = this.#o;
    const at = Date.now();
    const status = why.cause === 'stopped' || why.cause === 'timeout' ? 'Stopped' : 'Failed';
    const reason =
      status === 'Stopped'
        ? undefined
        : why.error instanceof JobFailure || why.error instanceof ValidationException
          ? (why.error as Error).message
          : `InternalServerError: ${why.message}`;
    // Children still training (a failed tuning job's) are stopped with it.
    const ctx = { requestId: 'tuning', accountId: w.accountId, region: w.region, log: this.#o.log, receivedAt: at };
    for (const c of await deps.repos.tuningChildren.all(tx, w, w.nameKey)) {
      if (c.status === 'InProgress') await this.#training.table.stopIn(tx, ctx, c.name).catch(() => {});
    }
    setImmediate(() => this.#o.runner.wake());
    await refreshSummary(deps, tx, w, w.nameKey, at);
    const row = await deps.repos.tuningJobs.get(tx, w, w.nameKey, true);
    if (row) {
      const doc = JSON.parse(row.doc) as TuningJobDoc;
      doc.EndTime = at;
      if (reason) doc.FailureReason = failureReason(reason);
      await deps.repos.tuningJobs.update(tx, w, w.nameKey, { doc: JSON.stringify(doc), status, last_modified_at: at });
    }
    return { status, message: reason ?? (why.cause === 'timeout' ? 'MaxRuntimeInSeconds reached' : 'Stopped') };
  }
}
