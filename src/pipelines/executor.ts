// The pipeline executor: a kind of the one job runner whose item is an execution. Its run is a
// state machine over the execution's durable step records (src/pipelines/store.ts): each tick reads
// them, sees the jobs that ended, starts the steps whose dependencies succeeded (within
// ParallelismConfiguration), stops what a StopPipelineExecution asked to stop, and ends the
// execution when nothing is left to run. Nothing lives only in memory: a restarted or surviving
// replica resumes the execution (onRestart 'resume') from its records, under the item's lease.
// https://docs.aws.amazon.com/sagemaker/latest/dg/pipelines-overview.html
import type { Logger } from 'pino';
import type { SageMakerHandlers } from '../generated/sagemaker/handlers.js';
import type { JobKind, RunContext } from '../jobs/types.js';
import { LeaseLostError } from '../jobs/types.js';
import type { RequestContext } from '../protocol/context.js';
import { ServiceError } from '../protocol/service-error.js';
import type { ServiceDeps } from '../services/common/deps.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { type CompiledPipeline, compileDefinition, type PipelineStep } from './definition.js';
import { type ExecutionDoc, executionScope, type PipelineWork } from './execution.js';
import { jobAdapterOf, StepActions } from './step-actions.js';
import { asRole, type PipelineRoleAccess } from './role-access.js';
import { listSteps, type StepDoc, type StepRow } from './store.js';
import type { Wakeups } from './wakeups.js';

export const PIPELINE_EXECUTION_KIND = 'pipeline-execution';

/** Statuses of a step still running. */
const ACTIVE = new Set(['Starting', 'Executing', 'Stopping']);

export interface ExecutorOptions {
  readonly deps: ServiceDeps;
  readonly blobs: BlobStore;
  /** The SageMaker handlers: steps create their jobs through them, as a client would. */
  readonly handlers: () => SageMakerHandlers;
  readonly wakeups: Wakeups;
  readonly log: Logger;
  /** How often a run looks at its records without being woken (what happens on other replicas). */
  readonly pollMs: number;
  /** With a credentials file: what the pipeline's role may do (its steps act as that role). */
  readonly access?: PipelineRoleAccess;
}

/** The final FailureReason of an execution whose steps failed (SageMaker's words, then which and why). */
export function failureReasonOf(failed: ReadonlyArray<{ name: string; reason?: string }>): string {
  const detail = failed.map((f) => (f.reason ? `${f.name}: ${f.reason}` : f.name)).join('; ');
  const text = `Step failure: One or multiple steps failed. ${detail}`;
  return text.length > 1300 ? `${text.slice(0, 1297)}...` : text;
}

export function pipelineExecutionKind(o: ExecutorOptions): JobKind<PipelineWork> {
  const executions = o.deps.repos.pipelineExecutions;
  /** Compiled definitions of the executions running here (a definition never changes for an execution). */
  const compiled = new Map<string, CompiledPipeline>();

  const requestContext = (w: PipelineWork, id: string): RequestContext => ({
    requestId: `pipeline-execution-${id}`,
    accountId: w.accountId,
    region: w.region,
    log: o.log,
    receivedAt: Date.now(),
  });

  /** The execution's experiment and trial (PipelineExperimentConfig), created when missing. */
  async function ensureExperiment(doc: ExecutionDoc, rc: RequestContext, h: SageMakerHandlers): Promise<void> {
    const e = doc.PipelineExperimentConfig;
    if (!e) return;
    const ignoreTaken = (err: unknown) => {
      if (!(err instanceof ServiceError && /already exists/i.test(err.message))) throw err;
    };
    await h
      .createExperiment(
        { ExperimentName: e.ExperimentName, Description: `Experiment of pipeline ${doc.PipelineName}` },
        rc,
      )
      .catch(ignoreTaken);
    await h.createTrial({ TrialName: e.TrialName, ExperimentName: e.ExperimentName }, rc).catch(ignoreTaken);
  }

  /** One look at the execution: true when it ended, else when to look again at the latest. */
  async function tick(ctx: RunContext<PipelineWork>, state: { experiment: boolean }): Promise<true | number> {
    const w = ctx.payload;
    const { db } = o.deps;
    const exRow = await executions.getByArn(db, w, w.executionArn);
    if (!exRow || !['Executing', 'Stopping'].includes(exRow.status ?? '')) {
      // Deleted with its pipeline, or already ended: nothing to run.
      await ctx.transaction((tx) => ctx.finish(tx));
      return true;
    }
    const doc = JSON.parse(exRow.doc) as ExecutionDoc;
    let pipeline = compiled.get(w.executionArn);
    if (!pipeline) {
      pipeline = compileDefinition(doc.PipelineDefinition);
      compiled.set(w.executionArn, pipeline);
    }
    const rc = requestContext(w, doc.PipelineExecutionId);
    const access = o.access;
    const handlers = access ? asRole(o.handlers(), access, doc.RoleArn, w) : o.handlers();
    const mayRead = access ? (uri: string) => access.mayRead(doc.RoleArn, uri, w.region) : undefined;
    if (!state.experiment) {
      try {
        await ensureExperiment(doc, rc, handlers);
      } catch (e) {
        // The trial the steps' jobs join cannot be made (the role may not, a name taken by a trial
        // of another experiment): nothing can run; say why.
        if (!(e instanceof ServiceError)) throw e;
        await end(ctx, 'Failed', `The execution's experiment and trial could not be created: ${e.code}: ${e.message}`);
        return true;
      }
      state.experiment = true;
    }
    let rows = await listSteps(db, w.executionArn);
    const load = async () => {
      rows = await listSteps(db, w.executionArn);
      return new Map(rows.map((r) => [r.step_name, r]));
    };
    let byName = new Map(rows.map((r) => [r.step_name, r]));
    let seq = rows.reduce((m, r) => Math.max(m, r.seq), 0);
    const actions = (): StepActions =>
      new StepActions({
        run: ctx,
        doc,
        scope: executionScope(w.executionArn, doc, pipeline!, byName, o.blobs, mayRead),
        request: rc,
        handlers,
        wakeups: o.wakeups,
        db,
        pipelineKey: doc.PipelineName.toLowerCase(),
        nextSeq: () => ++seq,
      });
    const stopping = exRow.status === 'Stopping';

    // 1. Steps whose job ended.
    for (const row of rows) {
      if ((row.status !== 'Executing' && row.status !== 'Stopping') || !row.job_arn || !jobAdapterOf(row.step_type))
        continue;
      const a = actions();
      o.wakeups.watchJob(row.job_arn, w.executionArn);
      const job = await a.jobState(row);
      if (job && job.status !== 'InProgress' && job.status !== 'Stopping') {
        await a.jobEnded(pipeline.byName.get(row.step_name)!, row, job, stopping);
      }
    }
    byName = await load();

    // 2. A stop: every running step is stopped; the execution ends Stopped once none runs.
    if (stopping) {
      for (const row of rows) {
        if (ACTIVE.has(row.status) || row.status === 'Pending')
          await actions().stop(pipeline.byName.get(row.step_name)!, row);
      }
      byName = await load();
      if (rows.some((r) => ACTIVE.has(r.status))) return Date.now() + o.pollMs;
      await end(ctx, 'Stopped');
      return true;
    }

    // 3. Start what is ready, within the parallelism; retries wait for their time.
    const limit = doc.ParallelismConfiguration?.MaxParallelExecutionSteps ?? Number.POSITIVE_INFINITY;
    let next = Date.now() + o.pollMs;
    const tried = new Set<string>();
    for (;;) {
      const plan = planSteps(pipeline, byName);
      if (plan.failed.length > 0 && plan.active === 0) {
        await end(ctx, 'Failed', failureReasonOf(plan.failed));
        return true;
      }
      if (plan.active === 0 && plan.ready.length === 0) {
        await end(ctx, 'Succeeded');
        return true;
      }
      const now = Date.now();
      let room = limit - plan.active;
      const starting: typeof plan.ready = [];
      for (const r of plan.ready) {
        if (tried.has(r.step.name)) continue;
        if ((r.row?.not_before ?? 0) > now) {
          next = Math.min(next, r.row!.not_before!);
          continue;
        }
        // An attempt already under way (a retry, a start a previous run committed) goes on; a new
        // step starts only while no step failed and the parallelism allows.
        if (r.row?.status === 'Starting') starting.push(r);
        else if (plan.failed.length === 0 && room > 0) {
          room--;
          starting.push(r);
        }
      }
      if (starting.length === 0) return next;
      for (const r of starting) {
        tried.add(r.step.name);
        await actions().start(r.step, r.row);
      }
      byName = await load();
    }
  }

  async function end(ctx: RunContext<PipelineWork>, status: string, reason?: string) {
    const w = ctx.payload;
    await ctx.transaction(async (tx) => {
      const row = await executions.getByArn(tx, w, w.executionArn);
      if (!row) return ctx.finish(tx);
      const current = JSON.parse(row.doc) as ExecutionDoc;
      const at = Date.now();
      current.EndTime = at;
      if (reason) current.FailureReason = reason;
      await executions.update(tx, w, row.name_key, { status, doc: JSON.stringify(current), last_modified_at: at });
      return ctx.finish(tx, status, reason);
    });
  }

  return {
    name: PIPELINE_EXECUTION_KIND,
    // Executions mostly wait on their jobs, which have their own bounds.
    concurrency: Number.POSITIVE_INFINITY,
    onRestart: 'resume',
    async run(ctx) {
      const w = ctx.payload;
      o.wakeups.enter(w.executionArn);
      const state = { experiment: false };
      let failures = 0;
      try {
        for (;;) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          let next: true | number;
          try {
            next = await tick(ctx, state);
            failures = 0;
          } catch (e) {
            if (ctx.signal.aborted || e instanceof LeaseLostError) throw e;
            // A passing fault (the database busy, a replica switching over) is looked at again.
            if (++failures >= 5) throw e;
            o.log.warn({ err: e, execution: w.executionArn }, 'pipeline execution tick failed; retrying');
            next = Date.now() + 500 * failures;
          }
          if (next === true) return;
          await o.wakeups.wait(w.executionArn, next - Date.now(), ctx.signal);
        }
      } finally {
        o.wakeups.forget(w.executionArn);
        compiled.delete(w.executionArn);
      }
    },
    async end(tx, item, why) {
      // The run failed for a reason of Slipway's own (not a step's): the execution fails saying so.
      const w = item.payload;
      const row = await executions.getByArn(tx, w, w.executionArn);
      const reason = `InternalServerError: the pipeline executor failed (${why.message}).`;
      if (row && ['Executing', 'Stopping'].includes(row.status ?? '')) {
        const doc = JSON.parse(row.doc) as ExecutionDoc;
        const at = Date.now();
        doc.EndTime = at;
        doc.FailureReason = reason;
        const status = why.cause === 'stopped' ? 'Stopped' : 'Failed';
        await executions.update(tx, w, row.name_key, { status, doc: JSON.stringify(doc), last_modified_at: at });
        return { status, message: reason };
      }
      return { status: row?.status ?? 'Failed', message: reason };
    },
  };
}

interface Planned {
  readonly step: PipelineStep;
  readonly row: StepRow | undefined;
}

/** Where an execution stands: the steps ready to start, how many run, which failed. */
export function planSteps(
  pipeline: CompiledPipeline,
  rows: ReadonlyMap<string, StepRow>,
): { ready: Planned[]; active: number; failed: Array<{ name: string; reason?: string }> } {
  type State = 'succeeded' | 'failed' | 'active' | 'skipped' | 'blocked' | 'waiting' | 'ready';
  const states = new Map<string, State>();
  const ready: Planned[] = [];
  const failed: Array<{ name: string; reason?: string }> = [];
  let active = 0;
  for (const step of pipeline.steps) {
    const row = rows.get(step.name);
    let s: State;
    if (row && row.status === 'Succeeded') s = 'succeeded';
    else if (row && (row.status === 'Failed' || row.status === 'Stopped')) {
      s = 'failed';
      failed.push({ name: step.name, reason: (JSON.parse(row.doc) as StepDoc).FailureReason });
    } else if (row && row.status === 'Starting' && row.not_before !== null) {
      s = 'ready'; // a retry waiting for its time
      active++;
    } else if (row && ACTIVE.has(row.status)) {
      s = row.status === 'Starting' ? 'ready' : 'active';
      active++;
    } else {
      s = 'ready';
      if (step.branch) {
        const c = states.get(step.branch.condition);
        const outcome = rows.get(step.branch.condition);
        const taken =
          c === 'succeeded' &&
          ((JSON.parse(outcome!.doc) as StepDoc).Metadata?.Condition as { Outcome?: string } | undefined)?.Outcome ===
            (step.branch.outcome ? 'True' : 'False');
        if (c === 'skipped' || (c === 'succeeded' && !taken)) s = 'skipped';
      }
      for (const d of step.dependsOn) {
        if (s === 'skipped') break;
        const ds = states.get(d);
        if (ds === 'skipped') s = 'skipped';
        else if (ds === 'failed' || ds === 'blocked') s = 'blocked';
        else if (ds !== 'succeeded' && s === 'ready') s = 'waiting';
      }
    }
    states.set(step.name, s);
    if (s === 'ready') ready.push({ step, row });
  }
  return { ready, active, failed };
}
