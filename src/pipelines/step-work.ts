// What each step type does, through the same handlers the API serves (so a step's job is exactly
// the job a client would create): the job steps (Processing, Training, Transform, Tuning) create,
// describe and stop their job; a Model step creates a model; a RegisterModel step creates a model
// package version (and its group when there is none yet, as SageMaker Pipelines does).
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-and-manage-steps-types.html
import { createHash } from 'node:crypto';
import type { SageMakerHandlers } from '../generated/sagemaker/handlers.js';
import { model } from '../generated/sagemaker/model.js';
import type { RequestContext } from '../protocol/context.js';
import { ServiceError } from '../protocol/service-error.js';
import { validateInput } from '../protocol/validation/validate.js';
import type { Json } from './expressions.js';

export type JobStepType = 'Processing' | 'Training' | 'Transform' | 'Tuning';

/** A job's state as a step sees it. */
export interface JobState {
  readonly status: 'InProgress' | 'Stopping' | 'Completed' | 'Failed' | 'Stopped';
  readonly failureReason?: string;
  /** The Describe* response (the step's properties), as JSON. */
  readonly properties: Json;
}

export interface Tag {
  readonly Key: string;
  readonly Value: string;
}

/** A job step's type, as the executor drives it. */
export interface JobAdapter {
  /** The key of ListPipelineExecutionSteps' Metadata naming the job. */
  readonly metadataKey: 'ProcessingJob' | 'TrainingJob' | 'TransformJob' | 'TuningJob';
  /** The Describe* member holding the job's ARN. */
  readonly arnMember: string;
  /** The job runner kind whose item (id: the job's ARN) runs the job. */
  readonly runnerKind: string;
  /** The request members whose values decide a cache hit (SageMaker's default cache key attributes). */
  readonly cacheAttributes: readonly string[];
  /** How long its name may be (a tuning job's: 32 characters). */
  readonly nameLimit: { readonly max: number; readonly prefix: string };
  create(h: SageMakerHandlers, name: string, request: Json, tags: readonly Tag[], ctx: RequestContext): Promise<string>;
  /** undefined when there is no such job. */
  describe(h: SageMakerHandlers, name: string, ctx: RequestContext): Promise<JobState | undefined>;
  stop(h: SageMakerHandlers, name: string, ctx: RequestContext): Promise<void>;
}

/** Job and model names: up to 63 characters, `pipelines-` first. */
export const NAME_LIMIT = { max: 63, prefix: 'pipelines-' } as const;

type AnyHandler = (input: unknown, ctx: RequestContext) => Promise<Record<string, unknown>>;
const handler = (h: SageMakerHandlers, op: string): AnyHandler | undefined => {
  const fn = (h as unknown as Record<string, AnyHandler | undefined>)[op];
  return fn ? fn.bind(h) : undefined;
};

/** The request as the API would have received it: validated against the model, with the job's name and tags. */
export function validated(shape: string, request: Json, extra: Record<string, unknown>): unknown {
  const input = { ...(request as Record<string, unknown>), ...extra };
  return validateInput(model as never, shape, input);
}

const asJson = (v: unknown): Json => JSON.parse(JSON.stringify(v)) as Json;

/** Not found, in every job's wording. */
export const isNotFound = (e: unknown) =>
  e instanceof ServiceError && (e.code === 'ResourceNotFound' || /does not exist|could not find/i.test(e.message));

function jobAdapter(o: {
  readonly metadataKey: JobAdapter['metadataKey'];
  readonly runnerKind: string;
  readonly operation: string;
  readonly nameMember: string;
  readonly arnMember: string;
  readonly statusMember: string;
  readonly cacheAttributes: readonly string[];
  readonly nameLimit?: JobAdapter['nameLimit'];
  /** Extra properties a step of this type has beyond its Describe* response (a tuning job's training jobs). */
  readonly more?: (h: SageMakerHandlers, name: string, ctx: RequestContext) => Promise<Record<string, unknown>>;
}): JobAdapter {
  const op = (h: SageMakerHandlers, verb: string) => {
    const fn = handler(h, `${verb}${o.operation}`);
    if (!fn) throw new Error(`${verb}${o.operation} is not served by this Slipway`);
    return fn;
  };
  return {
    metadataKey: o.metadataKey,
    arnMember: o.arnMember,
    runnerKind: o.runnerKind,
    cacheAttributes: o.cacheAttributes,
    nameLimit: o.nameLimit ?? NAME_LIMIT,
    async create(h, name, request, tags, ctx) {
      const given = (request as { Tags?: Tag[] }).Tags ?? [];
      const input = validated(`Create${o.operation}Request`, request, {
        [o.nameMember]: name,
        Tags: [...given.filter((t) => !tags.some((x) => x.Key === t.Key)), ...tags],
      });
      const out = await op(h, 'create')(input, ctx);
      return Object.values(out).find((v) => typeof v === 'string' && v.startsWith('arn:')) as string;
    },
    async describe(h, name, ctx) {
      let out: Record<string, unknown>;
      try {
        out = await op(h, 'describe')({ [o.nameMember]: name }, ctx);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
      const raw = String(out[o.statusMember]);
      const status = (['InProgress', 'Stopping', 'Completed', 'Failed', 'Stopped'] as const).find((s) => s === raw);
      return {
        status: status ?? (raw === 'MaxRuntimeExceeded' ? 'Stopped' : 'InProgress'),
        failureReason: out.FailureReason as string | undefined,
        properties: asJson({ ...out, ...(o.more ? await o.more(h, name, ctx) : {}) }),
      };
    },
    async stop(h, name, ctx) {
      await op(h, 'stop')({ [o.nameMember]: name }, ctx);
    },
  };
}

export const JOB_ADAPTERS: Readonly<Record<JobStepType, JobAdapter>> = {
  Processing: jobAdapter({
    metadataKey: 'ProcessingJob',
    runnerKind: 'processing-job',
    operation: 'ProcessingJob',
    nameMember: 'ProcessingJobName',
    arnMember: 'ProcessingJobArn',
    statusMember: 'ProcessingJobStatus',
    cacheAttributes: ['AppSpecification', 'Environment', 'ProcessingInputs'],
  }),
  Training: jobAdapter({
    metadataKey: 'TrainingJob',
    runnerKind: 'training-job',
    operation: 'TrainingJob',
    nameMember: 'TrainingJobName',
    arnMember: 'TrainingJobArn',
    statusMember: 'TrainingJobStatus',
    cacheAttributes: [
      'AlgorithmSpecification',
      'CheckpointConfig',
      'DebugHookConfig',
      'DebugRuleConfigurations',
      'Environment',
      'HyperParameters',
      'InputDataConfig',
    ],
  }),
  Transform: jobAdapter({
    metadataKey: 'TransformJob',
    runnerKind: 'transform-job',
    operation: 'TransformJob',
    nameMember: 'TransformJobName',
    arnMember: 'TransformJobArn',
    statusMember: 'TransformJobStatus',
    cacheAttributes: ['DataProcessing', 'Environment', 'ModelName', 'TransformInput'],
  }),
  // The seam for hyperparameter tuning jobs: usable once CreateHyperParameterTuningJob is served.
  Tuning: jobAdapter({
    metadataKey: 'TuningJob',
    runnerKind: 'tuning-job',
    operation: 'HyperParameterTuningJob',
    nameMember: 'HyperParameterTuningJobName',
    arnMember: 'HyperParameterTuningJobArn',
    statusMember: 'HyperParameterTuningJobStatus',
    cacheAttributes: ['HyperParameterTuningJobConfig', 'TrainingJobDefinition', 'TrainingJobDefinitions'],
    // HyperParameterTuningJobName is at most 32 characters: `<execution id>-<step>-<suffix>`.
    nameLimit: { max: 32, prefix: '' },
    async more(h, name, ctx) {
      const list = handler(h, 'listTrainingJobsForHyperParameterTuningJob');
      if (!list) return {};
      // TrainingJobSummaries best first, as the SDK's get_top_model_s3_uri expects.
      const out = await list(
        { HyperParameterTuningJobName: name, SortBy: 'FinalObjectiveMetricValue', MaxResults: 100 },
        ctx,
      );
      return { TrainingJobSummaries: out.TrainingJobSummaries };
    },
  }),
};

/** Whether this Slipway serves the operations a step type needs. */
export function canRun(h: SageMakerHandlers, type: string): boolean {
  return type !== 'Tuning' || handler(h, 'createHyperParameterTuningJob') !== undefined;
}

/**
 * The name of the job (or model) a step's attempt creates, as SageMaker Pipelines names them
 * (`pipelines-<execution id>-<step>-<suffix>`), deterministic so that a resumed run finds the job
 * an earlier run of the same attempt created instead of creating a second one.
 */
export function resourceName(
  executionArn: string,
  executionId: string,
  step: string,
  attempt: number,
  limit: { readonly max: number; readonly prefix: string } = NAME_LIMIT,
): string {
  const suffixLength = limit.max >= 63 ? 10 : 6;
  const suffix = createHash('sha256')
    .update(`${executionArn}\u0000${step}\u0000${attempt}`)
    .digest('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, suffixLength);
  const head = `${limit.prefix}${executionId}-`;
  const stepPart = step
    .replace(/[^A-Za-z0-9-]/g, '-')
    .slice(0, limit.max - head.length - suffixLength - 1)
    .replace(/-+$/, '');
  return `${head}${stepPart}-${suffix}`;
}

/** An idempotency token (at most 36 characters) for a step's attempt. */
export function attemptToken(executionArn: string, step: string, attempt: number): string {
  return createHash('sha256').update(`${executionArn}\u0000${step}\u0000${attempt}`).digest('hex').slice(0, 32);
}

/** A Model step: CreateModel with the step's arguments; the model an earlier run created is adopted. */
export async function createModelStep(
  h: SageMakerHandlers,
  name: string,
  request: Json,
  tags: readonly Tag[],
  ctx: RequestContext,
): Promise<{ arn: string; properties: Json }> {
  const input = validated('CreateModelInput', request, { ModelName: name, Tags: tags });
  try {
    await h.createModel(input as never, ctx);
  } catch (e) {
    if (!(e instanceof ServiceError && /already existing/.test(e.message))) throw e;
  }
  const out = await h.describeModel({ ModelName: name }, ctx);
  return { arn: out.ModelArn, properties: asJson(out) };
}

/**
 * A RegisterModel step: CreateModelPackage (idempotent through its ClientToken, so a resumed run
 * gets the same version), creating the group first when it does not exist.
 */
export async function registerModelStep(
  h: SageMakerHandlers,
  token: string,
  request: Json,
  ctx: RequestContext,
): Promise<{ arn: string; properties: Json }> {
  const input = validated('CreateModelPackageInput', request, { ClientToken: token }) as {
    ModelPackageGroupName?: string;
  };
  if (input.ModelPackageGroupName && !input.ModelPackageGroupName.startsWith('arn:')) {
    try {
      await h.createModelPackageGroup({ ModelPackageGroupName: input.ModelPackageGroupName }, ctx);
    } catch (e) {
      if (!(e instanceof ServiceError && /already exists/i.test(e.message))) throw e;
    }
  }
  const { ModelPackageArn } = await h.createModelPackage(input as never, ctx);
  const out = await h.describeModelPackage({ ModelPackageName: ModelPackageArn }, ctx);
  return { arn: ModelPackageArn, properties: asJson(out) };
}
