// The transitions of one step of an execution, each committed in the execution's fenced
// transaction (a replica that lost the execution's lease cannot write): start (with the cache,
// and the job created between two commits so a resumed run adopts it instead of creating another),
// the end of its job, retries by the step's RetryPolicies, and stop.
// https://docs.aws.amazon.com/sagemaker/latest/dg/pipelines-retry-policy.html
// https://docs.aws.amazon.com/sagemaker/latest/dg/pipelines-caching.html
import { createHash, randomBytes } from 'node:crypto';
import type { SageMakerHandlers } from '../generated/sagemaker/handlers.js';
import { getItem } from '../jobs/store.js';
import { LeaseLostError, type RunContext } from '../jobs/types.js';
import type { RequestContext } from '../protocol/context.js';
import { ServiceError } from '../protocol/service-error.js';
import type { Queryable, SqlValue } from '../storage/db/types.js';
import { evaluateConditions } from './conditions.js';
import type { PipelineStep, RetryPolicy } from './definition.js';
import type { ExecutionDoc, PipelineWork } from './execution.js';
import { evaluate, ExpressionError, type Json, render, type Scope, toJson } from './expressions.js';
import { findCached, getStep, insertStep, type StepDoc, type StepRow, type StepStatus, updateStep } from './store.js';
import {
  attemptToken,
  createModelStep,
  isNotFound,
  JOB_ADAPTERS,
  type JobAdapter,
  type JobState,
  type JobStepType,
  registerModelStep,
  resourceName,
  type Tag,
} from './step-work.js';
import type { Wakeups } from './wakeups.js';

/** Step.SERVICE_FAULT and Step.THROTTLING are retried without a policy, as SageMaker does. */
const DEFAULT_SERVICE_RETRY: RetryPolicy = {
  exceptionTypes: ['Step.SERVICE_FAULT', 'Step.THROTTLING'],
  intervalSeconds: 1,
  backoffRate: 2,
  maxAttempts: 3,
};

export const jobAdapterOf = (type: string): JobAdapter | undefined => JOB_ADAPTERS[type as JobStepType];

/** What a step's transitions need: the execution's run and what it read this tick. */
export interface StepContext {
  readonly run: RunContext<PipelineWork>;
  readonly doc: ExecutionDoc;
  readonly scope: Scope;
  readonly request: RequestContext;
  readonly handlers: SageMakerHandlers;
  readonly wakeups: Wakeups;
  /** Reads outside the execution's transactions (the cache, a step's current row). */
  readonly db: Queryable;
  /** The pipeline's name key (caching is per pipeline). */
  readonly pipelineKey: string;
  /** The next start order number. */
  nextSeq(): number;
}

/** A callback token as SageMaker's: 10 letters and digits. */
function callbackToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('');
}

const parseDoc = (row: StepRow | undefined): StepDoc => (row ? (JSON.parse(row.doc) as StepDoc) : {});

/** Canonical JSON (sorted keys): equal requests hash equally whatever their key order. */
function canonical(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k]!)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** The cache key of a job step's request: its type and the attributes SageMaker compares. */
export function cacheKey(type: string, request: Json, attributes: readonly string[]): string {
  const r = request as Record<string, Json>;
  const picked: Record<string, Json> = {};
  for (const a of attributes) if (r[a] !== undefined) picked[a] = r[a]!;
  return createHash('sha256')
    .update(`${type}\u0000${canonical(picked)}`)
    .digest('hex');
}

export class StepActions {
  constructor(private readonly c: StepContext) {}

  private get arn() {
    return this.c.run.payload.executionArn;
  }

  /** Writes a step row (inserting it the first time), in the execution's fenced transaction. */
  private async write(
    step: PipelineStep,
    before: StepRow | undefined,
    set: { status: StepStatus; attempt: number; doc: StepDoc } & Partial<
      Record<Exclude<keyof StepRow, 'doc' | 'status' | 'attempt'>, SqlValue>
    >,
    expect?: StepStatus,
  ): Promise<boolean> {
    const { doc, ...cols } = set;
    const now = Date.now();
    return this.c.run.transaction(async (tx) => {
      const current = await getStep(tx, this.arn, step.name, true);
      if (!current) {
        await insertStep(tx, {
          execution_arn: this.arn,
          step_name: step.name,
          account_id: this.c.run.payload.accountId,
          region: this.c.run.payload.region,
          pipeline_key: this.c.pipelineKey,
          step_type: step.type,
          seq: this.c.nextSeq(),
          started_at: now,
          ended_at: null,
          not_before: null,
          job_arn: null,
          cache_key: null,
          callback_token: null,
          ...cols,
          doc: JSON.stringify(doc),
        } as StepRow);
        return true;
      }
      if (expect && current.status !== expect) return false;
      if (before && current.status !== before.status) return false;
      await updateStep(tx, this.arn, step.name, { ...cols, doc: JSON.stringify(doc) });
      return true;
    });
  }

  private async fail(
    step: PipelineStep,
    row: StepRow | undefined,
    attempt: number,
    reason: string,
    extra: StepDoc = {},
  ) {
    await this.write(step, row, {
      status: 'Failed',
      attempt,
      ended_at: Date.now(),
      not_before: null,
      doc: { ...parseDoc(row), ...extra, FailureReason: reason.slice(0, 3072) },
    });
  }

  /**
   * Starts a step that is ready (no row, a Pending row, or a row left Starting by an earlier run or a
   * retry). Condition, Fail, Model, RegisterModel and cached steps end here; a job step is left
   * Executing, a Callback step waiting for its callback.
   */
  async start(step: PipelineStep, row: StepRow | undefined): Promise<void> {
    const attempt = !row ? 1 : row.status === 'Pending' ? row.attempt + 1 : row.attempt;
    // A start an earlier run committed (phase 1) but did not see through: the same request and name.
    const previous = row?.status === 'Starting' ? parseDoc(row) : undefined;
    const resumed = previous?.ResourceName !== undefined && previous.Request !== undefined ? previous : undefined;
    let request: Json;
    try {
      if (resumed) request = resumed.Request!;
      else if (step.type === 'Condition') {
        const outcome = await evaluateConditions(step.arguments.Conditions as Json[], this.c.scope);
        await this.write(step, row, {
          status: 'Succeeded',
          attempt,
          ended_at: Date.now(),
          doc: { Metadata: { Condition: { Outcome: outcome ? 'True' : 'False' } }, Properties: { Outcome: outcome } },
        });
        return;
      } else if (step.type === 'Fail') {
        const message = render(await evaluate(step.arguments.ErrorMessage ?? '', this.c.scope));
        await this.fail(step, row, attempt, message, { Metadata: { Fail: { ErrorMessage: message.slice(0, 3072) } } });
        return;
      } else {
        request = toJson(await evaluate(step.arguments as Json, this.c.scope));
      }
    } catch (e) {
      if (e instanceof ExpressionError) return this.fail(step, row, attempt, e.message);
      throw e;
    }

    if (step.type === 'Callback') {
      const token = callbackToken();
      await this.write(step, row, {
        status: 'Executing',
        attempt,
        callback_token: token,
        doc: {
          Request: request,
          Metadata: {
            Callback: {
              CallbackToken: token,
              ...(step.sqsQueueUrl ? { SqsQueueUrl: step.sqsQueueUrl } : {}),
              OutputParameters: [],
            },
          },
        },
      });
      return;
    }

    const adapter = jobAdapterOf(step.type);
    let cache: string | null = null;
    if (adapter && step.cacheExpireMs !== undefined) {
      cache = cacheKey(step.type, request, adapter.cacheAttributes);
      const hit = await findCached(
        this.c.db,
        this.c.run.payload,
        this.c.pipelineKey,
        step.name,
        cache,
        Date.now() - step.cacheExpireMs,
        this.arn,
      );
      if (hit) {
        const source = parseDoc(hit);
        const now = Date.now();
        await this.write(step, row, {
          status: 'Succeeded',
          attempt,
          cache_key: cache,
          job_arn: null,
          started_at: now,
          ended_at: now,
          doc: {
            Metadata: source.Metadata,
            Properties: source.Properties,
            CacheHitResult: source.CacheHitResult ?? { SourcePipelineExecutionArn: hit.execution_arn },
          },
        });
        return;
      }
    }

    // Phase 1: the attempt, its request and the name of what it creates are committed first.
    const name =
      resumed?.ResourceName ??
      resourceName(this.arn, this.c.doc.PipelineExecutionId, step.name, attempt, adapter?.nameLimit);
    if (!resumed) {
      const ok = await this.write(step, row, {
        status: 'Starting',
        attempt,
        cache_key: cache,
        job_arn: null,
        not_before: null,
        started_at: Date.now(),
        doc: { Request: request, ResourceName: name },
      });
      if (!ok) return;
    }
    const doc: StepDoc = { Request: request, ResourceName: name };
    // Phase 2: create it (an earlier run of this attempt may have: then it is adopted).
    try {
      if (adapter) {
        const arn = await this.createJob(adapter, step, name, request);
        // Phase 3: the step waits on its job.
        this.c.wakeups.watchJob(arn, this.arn);
        await this.write(step, undefined, {
          status: 'Executing',
          attempt,
          job_arn: arn,
          doc: { ...doc, Metadata: { [adapter.metadataKey]: { Arn: arn } } },
        });
      } else if (step.type === 'Model') {
        const m = await createModelStep(this.c.handlers, name, request, this.tags(step), this.c.request);
        await this.succeed(step, attempt, { ...doc, Metadata: { Model: { Arn: m.arn } }, Properties: m.properties });
      } else if (step.type === 'RegisterModel') {
        const token = attemptToken(this.arn, step.name, attempt);
        const m = await registerModelStep(this.c.handlers, token, request, this.c.request);
        await this.succeed(step, attempt, {
          ...doc,
          Metadata: { RegisterModel: { Arn: m.arn } },
          Properties: m.properties,
        });
      }
    } catch (e) {
      await this.createFailed(step, attempt, doc, e);
    }
  }

  private tags(step: PipelineStep): Tag[] {
    return [
      { Key: 'sagemaker:pipeline-execution-arn', Value: this.arn },
      { Key: 'sagemaker:pipeline-step-name', Value: step.name },
    ];
  }

  private async createJob(adapter: JobAdapter, step: PipelineStep, name: string, request: Json): Promise<string> {
    try {
      return await adapter.create(this.c.handlers, name, this.withExperiment(request), this.tags(step), this.c.request);
    } catch (e) {
      // Created by an earlier run of this attempt (or a replica that lost the execution): adopt it.
      if (e instanceof ServiceError && (e.code === 'ResourceInUse' || /already exists/.test(e.message))) {
        const existing = await adapter.describe(this.c.handlers, name, this.c.request);
        const arn = (existing?.properties as Record<string, unknown> | undefined)?.[adapter.arnMember];
        if (typeof arn === 'string') return arn;
      }
      throw e;
    }
  }

  /** The job joins the execution's trial (PipelineExperimentConfig), keeping a display name it gave. */
  private withExperiment(request: Json): Json {
    const e = this.c.doc.PipelineExperimentConfig;
    if (!e) return request;
    const r = request as Record<string, Json>;
    const given = (r.ExperimentConfig ?? {}) as Record<string, Json>;
    return {
      ...r,
      ExperimentConfig: {
        ...(typeof given.TrialComponentDisplayName === 'string'
          ? { TrialComponentDisplayName: given.TrialComponentDisplayName }
          : {}),
        ExperimentName: e.ExperimentName,
        TrialName: e.TrialName,
      },
    };
  }

  private async succeed(step: PipelineStep, attempt: number, doc: StepDoc) {
    await this.write(step, undefined, { status: 'Succeeded', attempt, ended_at: Date.now(), doc });
  }

  /** Creating the step's job (or model, or package) failed: retried by policy, or the step fails. */
  private async createFailed(step: PipelineStep, attempt: number, doc: StepDoc, e: unknown): Promise<void> {
    // A replica that lost the execution, or a run being shut down, leaves the step to the next run.
    if (!(e instanceof Error) || e instanceof LeaseLostError || this.c.run.signal.aborted) throw e;
    const serviceError = e instanceof ServiceError ? e : undefined;
    const type =
      serviceError?.code === 'ThrottlingException'
        ? 'Step.THROTTLING'
        : serviceError?.code === 'ResourceLimitExceeded'
          ? 'SageMaker.RESOURCE_LIMIT'
          : !serviceError || serviceError.fault === 'server'
            ? 'Step.SERVICE_FAULT'
            : undefined;
    const reason = serviceError ? `${serviceError.code}: ${serviceError.message}` : `InternalServerError: ${e.message}`;
    const current = await getStep(this.c.db, this.arn, step.name);
    if (type && (await this.retry(step, current, type, [...step.retryPolicies, DEFAULT_SERVICE_RETRY]))) return;
    await this.fail(step, current, attempt, reason, { ...doc, ResourceName: undefined });
  }

  /** Schedules the next attempt when a policy for `type` allows one; false otherwise. */
  private async retry(step: PipelineStep, row: StepRow | undefined, type: string, policies: readonly RetryPolicy[]) {
    if (!row) return false;
    const policy = policies.find((p) => p.exceptionTypes.includes(type));
    if (!policy) return false;
    const retries = row.attempt - 1;
    if (policy.maxAttempts !== undefined && retries >= policy.maxAttempts) return false;
    const first = row.started_at ?? Date.now();
    if (policy.expireAfterMin !== undefined && Date.now() - first >= policy.expireAfterMin * 60_000) return false;
    const wait = policy.intervalSeconds * policy.backoffRate ** retries * 1000;
    return this.write(
      step,
      row,
      {
        status: 'Starting',
        attempt: row.attempt + 1,
        job_arn: null,
        not_before: Date.now() + wait,
        doc: { FailureReason: undefined },
      },
      row.status,
    );
  }

  /** The step's job ended (read after its final transaction committed): the step follows. */
  async jobEnded(step: PipelineStep, row: StepRow, state: JobState, stopping: boolean): Promise<void> {
    const doc = parseDoc(row);
    this.c.wakeups.unwatchJob(row.job_arn!);
    if (state.status === 'Completed') {
      await this.write(step, row, {
        status: 'Succeeded',
        attempt: row.attempt,
        ended_at: Date.now(),
        doc: { ...doc, Properties: state.properties },
      });
      return;
    }
    if (state.status === 'Failed' && !stopping) {
      const reason = state.failureReason ?? '';
      const type = /^InternalServerError/.test(reason)
        ? 'SageMaker.JOB_INTERNAL_ERROR'
        : /^CapacityError/.test(reason)
          ? 'SageMaker.CAPACITY_ERROR'
          : undefined;
      if (type && (await this.retry(step, row, type, step.retryPolicies))) return;
    }
    await this.write(step, row, {
      status: state.status === 'Failed' ? 'Failed' : 'Stopped',
      attempt: row.attempt,
      ended_at: Date.now(),
      doc: {
        ...doc,
        Properties: state.properties,
        ...(state.status === 'Failed' ? { FailureReason: state.failureReason ?? 'The job failed.' } : {}),
      },
    });
  }

  /** The state of a step's job; read behind the job's row lock when its transitions woke us. */
  async jobState(row: StepRow): Promise<JobState | undefined> {
    const adapter = jobAdapterOf(row.step_type)!;
    const name = parseDoc(row).ResourceName!;
    if (this.c.wakeups.takeMoved(row.job_arn!)) {
      // The job's last transaction holds its item's row until it commits: wait for it.
      await this.c.run.transaction((tx) => getItem(tx, adapter.runnerKind, row.job_arn!, true));
    }
    return adapter.describe(this.c.handlers, name, this.c.request);
  }

  /** StopPipelineExecution: the step's job is asked to stop; a step without one ends Stopped now. */
  async stop(step: PipelineStep, row: StepRow): Promise<void> {
    const doc = parseDoc(row);
    const adapter = jobAdapterOf(row.step_type);
    if (adapter && doc.ResourceName && !doc.StopSent) {
      const state = await adapter.describe(this.c.handlers, doc.ResourceName, this.c.request);
      const arn = (state?.properties as Record<string, unknown> | undefined)?.[adapter.arnMember];
      if (state && typeof arn === 'string') {
        if (state.status === 'InProgress') {
          try {
            await adapter.stop(this.c.handlers, doc.ResourceName, this.c.request);
          } catch (e) {
            if (!(e instanceof ServiceError) || isNotFound(e)) throw e;
          }
        }
        this.c.wakeups.watchJob(arn, this.arn);
        await this.write(step, row, {
          status: 'Stopping',
          attempt: row.attempt,
          job_arn: arn,
          doc: { ...doc, StopSent: true, Metadata: { [adapter.metadataKey]: { Arn: arn } } },
        });
        return;
      }
    }
    if (adapter && doc.StopSent) return;
    await this.write(step, row, {
      status: 'Stopped',
      attempt: row.attempt,
      ended_at: Date.now(),
      not_before: null,
      doc,
    });
  }
}
