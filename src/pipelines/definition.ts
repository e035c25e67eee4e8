// The pipeline definition language, version 2020-12-01, as the SDK's sagemaker.workflow writes it:
// parsed and checked once (at CreatePipeline, UpdatePipeline and each execution's start) into the
// steps the executor runs, with their dependencies (DependsOn, the data dependencies their property
// references imply, and the Condition step whose branch holds them) in an order without cycles.
// Every problem is a ValidationException naming the step and what is wrong.
// https://aws-sagemaker-mlops.github.io/sagemaker-model-building-pipeline-definition-JSON-schema/
import { ValidationException } from '../protocol/common-errors.js';
import { checkCondition } from './conditions.js';
import { parseDuration } from './durations.js';
import { collectReferences, EXECUTION_VARIABLES, ExpressionError, type Json, type Reference } from './expressions.js';
import { checkPropertyPath } from './properties.js';

export const DEFINITION_VERSION = '2020-12-01';

export type ParameterType = 'String' | 'Integer' | 'Float' | 'Boolean';

export interface ParameterDef {
  readonly Name: string;
  readonly Type: ParameterType;
  readonly DefaultValue?: string | number | boolean;
  readonly EnumValues?: readonly string[];
}

/** The step types Slipway runs, with the Describe* responses their properties come from. */
export const STEP_TYPES = {
  Processing: ['DescribeProcessingJobResponse'],
  Training: ['DescribeTrainingJobResponse'],
  Transform: ['DescribeTransformJobResponse'],
  Tuning: ['DescribeHyperParameterTuningJobResponse', 'ListTrainingJobsForHyperParameterTuningJobResponse'],
  Model: ['DescribeModelOutput'],
  RegisterModel: ['DescribeModelPackageOutput'],
  Condition: [],
  Fail: [],
  Callback: [],
} as const;
export type StepType = keyof typeof STEP_TYPES;

/** Step types of the SDK that need a service Slipway does not have: refused at CreatePipeline. */
const CANNOT_RUN: Readonly<Record<string, string>> = {
  EMR: 'it runs on an Amazon EMR cluster',
  EMRServerless: 'it runs on Amazon EMR Serverless',
  Lambda: 'it invokes an AWS Lambda function',
  ClarifyCheck: 'it runs an Amazon SageMaker Clarify check',
  QualityCheck: 'it runs an Amazon SageMaker Model Monitor quality check',
  AutoML: 'it runs an Amazon SageMaker Autopilot (AutoML) job',
  Endpoint: 'it deploys an endpoint from a pipeline, which Slipway does not support',
  EndpointConfig: 'it creates an endpoint configuration from a pipeline, which Slipway does not support',
};

/** Retry policy exception types (sagemaker.workflow.retry). */
export const RETRY_EXCEPTION_TYPES = [
  'Step.SERVICE_FAULT',
  'Step.THROTTLING',
  'SageMaker.JOB_INTERNAL_ERROR',
  'SageMaker.CAPACITY_ERROR',
  'SageMaker.RESOURCE_LIMIT',
] as const;

export interface RetryPolicy {
  readonly exceptionTypes: readonly string[];
  readonly intervalSeconds: number;
  readonly backoffRate: number;
  readonly maxAttempts?: number;
  readonly expireAfterMin?: number;
}

export interface PropertyFileDef {
  readonly PropertyFileName: string;
  readonly OutputName: string;
  readonly FilePath: string;
}

export interface PipelineStep {
  readonly name: string;
  readonly type: StepType;
  readonly displayName?: string;
  readonly description?: string;
  /** The step's arguments (a Condition step's: its Conditions only; its branches are steps of their own). */
  readonly arguments: Readonly<Record<string, Json>>;
  /** Every step that must succeed before this one starts. */
  readonly dependsOn: readonly string[];
  /** A step inside a Condition step's IfSteps (outcome true) or ElseSteps (false). */
  readonly branch?: { readonly condition: string; readonly outcome: boolean };
  readonly cacheExpireMs?: number;
  readonly retryPolicies: readonly RetryPolicy[];
  readonly propertyFiles: readonly PropertyFileDef[];
  /** A Callback step's outputs and queue. */
  readonly outputParameters?: ReadonlyArray<{ readonly OutputName: string; readonly OutputType?: string }>;
  readonly sqsQueueUrl?: string;
}

export interface CompiledPipeline {
  readonly parameters: readonly ParameterDef[];
  /** In an order where every step follows the steps it depends on. */
  readonly steps: readonly PipelineStep[];
  readonly byName: ReadonlyMap<string, PipelineStep>;
  /** null: the definition turned experiment tracking off; otherwise the names' expressions. */
  readonly experiment: { readonly ExperimentName: Json; readonly TrialName: Json } | null;
}

/** The step types a replica can run beyond the built-in ones (Tuning, once its jobs exist). */
export interface DefinitionOptions {
  readonly canRun?: (type: StepType) => boolean;
}

const STEP_NAME = /^[A-Za-z0-9\-_]{1,64}$/;
const isObject = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);
const invalid = (m: string) => new ValidationException(`Invalid pipeline definition: ${m}`);

/** Parses and checks a definition; throws ValidationException naming what is wrong. */
export function compileDefinition(text: string, options: DefinitionOptions = {}): CompiledPipeline {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalid(`the definition is not JSON (${(e as Error).message}).`);
  }
  if (!isObject(doc)) throw invalid('the definition must be a JSON object.');
  if (doc.Version !== DEFINITION_VERSION)
    throw invalid(`Version must be "${DEFINITION_VERSION}", not ${JSON.stringify(doc.Version ?? null)}.`);
  const parameters = checkParameters(doc.Parameters);
  if (!Array.isArray(doc.Steps) || doc.Steps.length === 0) throw invalid('Steps must be a non-empty list.');

  // Flatten: a Condition step's IfSteps and ElseSteps are steps of the pipeline, owned by its branch.
  const raw: Array<{ def: Record<string, Json>; branch?: PipelineStep['branch'] }> = [];
  const flatten = (list: Json[], branch?: PipelineStep['branch']) => {
    for (const s of list) {
      if (!isObject(s)) throw invalid('every step must be a JSON object.');
      raw.push({ def: s, branch });
      if (s.Type === 'Condition' && isObject(s.Arguments)) {
        const name = String(s.Name);
        for (const [key, outcome] of [
          ['IfSteps', true],
          ['ElseSteps', false],
        ] as const) {
          const branchSteps = s.Arguments[key] ?? [];
          if (!Array.isArray(branchSteps)) throw invalid(`step ${name}: ${key} must be a list of steps.`);
          flatten(branchSteps, { condition: name, outcome });
        }
      }
    }
  };
  flatten(doc.Steps);

  const names = new Set<string>();
  for (const { def } of raw) {
    if (typeof def.Name !== 'string' || !STEP_NAME.test(def.Name))
      throw invalid(`step name ${JSON.stringify(def.Name ?? null)} must be 1 to 64 letters, digits, - or _.`);
    if (names.has(def.Name)) throw invalid(`the step name ${def.Name} is used more than once.`);
    names.add(def.Name);
  }
  const paramNames = new Set(parameters.map((p) => p.Name));
  const partial = raw.map(({ def, branch }) => checkStep(def, branch, options));
  const byType = new Map(partial.map((s) => [s.name, s]));

  // References: they name what exists, and a step reference is a data dependency.
  const steps: PipelineStep[] = partial.map((s) => {
    const deps = new Set<string>(s.dependsOn);
    for (const d of deps) {
      if (d === s.name) throw invalid(`step ${s.name} depends on itself.`);
      if (!names.has(d)) throw invalid(`step ${s.name} depends on ${d}, which is not a step of this pipeline.`);
    }
    if (s.branch) deps.add(s.branch.condition);
    for (const ref of s.references) {
      const where = `step ${s.name}`;
      checkReference(ref, where, paramNames, byType);
      if (ref.t === 'step' || ref.t === 'property-file') {
        if (ref.step === s.name) throw invalid(`${where} refers to its own properties.`);
        deps.add(ref.step);
      }
    }
    deps.delete(s.name);
    const { references: _, ...step } = s;
    return { ...step, dependsOn: [...deps] };
  });

  const experiment = checkExperimentConfig(doc.PipelineExperimentConfig, paramNames);
  const ordered = topologicalOrder(steps);
  return { parameters, steps: ordered, byName: new Map(ordered.map((s) => [s.name, s])), experiment };
}

function checkParameters(v: Json | undefined): ParameterDef[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid('Parameters must be a list.');
  const seen = new Set<string>();
  return v.map((p) => {
    if (!isObject(p) || typeof p.Name !== 'string' || p.Name === '') throw invalid('every parameter needs a Name.');
    const name = p.Name;
    if (seen.has(name)) throw invalid(`the parameter ${name} is declared more than once.`);
    seen.add(name);
    const type = p.Type ?? 'String';
    if (type !== 'String' && type !== 'Integer' && type !== 'Float' && type !== 'Boolean')
      throw invalid(`parameter ${name} has type ${JSON.stringify(type)}; expected String, Integer, Float or Boolean.`);
    const def = p.DefaultValue;
    if (def !== undefined && def !== null) {
      const ok =
        type === 'String'
          ? typeof def === 'string'
          : type === 'Integer'
            ? Number.isInteger(def)
            : type === 'Float'
              ? typeof def === 'number'
              : typeof def === 'boolean';
      if (!ok) throw invalid(`the default value ${JSON.stringify(def)} of parameter ${name} is not a ${type}.`);
    }
    let enumValues: string[] | undefined;
    if (p.EnumValues !== undefined) {
      if (type !== 'String' || !Array.isArray(p.EnumValues) || !p.EnumValues.every((e) => typeof e === 'string'))
        throw invalid(`EnumValues of parameter ${name} must be a list of strings (String parameters only).`);
      enumValues = p.EnumValues as string[];
      if (typeof def === 'string' && !enumValues.includes(def))
        throw invalid(`the default value ${def} of parameter ${name} is not one of its EnumValues.`);
    }
    return {
      Name: name,
      Type: type,
      ...(def !== undefined && def !== null ? { DefaultValue: def as string | number | boolean } : {}),
      ...(enumValues ? { EnumValues: enumValues } : {}),
    };
  });
}

type CheckedStep = Omit<PipelineStep, 'dependsOn'> & { dependsOn: string[]; references: Reference[] };

function checkStep(def: Record<string, Json>, branch: PipelineStep['branch'], options: DefinitionOptions): CheckedStep {
  const name = def.Name as string;
  const where = `step ${name}`;
  const type = def.Type;
  if (typeof type !== 'string') throw invalid(`${where} has no Type.`);
  if (CANNOT_RUN[type]) throw invalid(`${where} is of type ${type}, which Slipway cannot run: ${CANNOT_RUN[type]}.`);
  if (!(type in STEP_TYPES))
    throw invalid(`${where} has the unknown type ${type}; Slipway runs ${Object.keys(STEP_TYPES).join(', ')}.`);
  if (options.canRun && !options.canRun(type as StepType))
    throw invalid(`${where} is of type ${type}, which this Slipway cannot run yet.`);
  const args = def.Arguments ?? {};
  if (!isObject(args)) throw invalid(`${where}: Arguments must be a JSON object.`);
  if (
    def.DependsOn !== undefined &&
    (!Array.isArray(def.DependsOn) || !def.DependsOn.every((d) => typeof d === 'string'))
  )
    throw invalid(`${where}: DependsOn must be a list of step names.`);
  const references: Reference[] = [];
  let stepArgs: Record<string, Json> = args;
  try {
    if (type === 'Condition') {
      if (!Array.isArray(args.Conditions) || args.Conditions.length === 0)
        throw new ExpressionError('a Condition step needs a non-empty list of Conditions.');
      for (const c of args.Conditions) checkCondition(c, references);
      stepArgs = { Conditions: args.Conditions };
    } else {
      collectReferences(args, references);
    }
  } catch (e) {
    if (e instanceof ExpressionError) throw invalid(`${where}: ${e.message}`);
    throw e;
  }
  return {
    name,
    type: type as StepType,
    displayName: typeof def.DisplayName === 'string' ? def.DisplayName : undefined,
    description: typeof def.Description === 'string' ? def.Description : undefined,
    arguments: stepArgs,
    dependsOn: [...((def.DependsOn as string[] | undefined) ?? [])],
    branch,
    cacheExpireMs: checkCache(def.CacheConfig, where),
    retryPolicies: checkRetry(def.RetryPolicies, where),
    propertyFiles: checkPropertyFiles(def.PropertyFiles, type, args, where),
    ...(type === 'Callback' ? checkCallback(def, where) : {}),
    references,
  };
}

function checkCache(v: Json | undefined, where: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v) || typeof v.Enabled !== 'boolean')
    throw invalid(`${where}: CacheConfig needs Enabled (true or false).`);
  if (!v.Enabled) return undefined;
  if (typeof v.ExpireAfter !== 'string')
    throw invalid(`${where}: CacheConfig with caching enabled needs ExpireAfter (an ISO 8601 duration such as PT1H).`);
  const ms = parseDuration(v.ExpireAfter);
  if (ms === undefined)
    throw invalid(`${where}: CacheConfig ExpireAfter ${v.ExpireAfter} is not an ISO 8601 duration.`);
  return ms;
}

function checkRetry(v: Json | undefined, where: string): RetryPolicy[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(`${where}: RetryPolicies must be a list.`);
  return v.map((p) => {
    if (!isObject(p) || !Array.isArray(p.ExceptionType) || p.ExceptionType.length === 0)
      throw invalid(`${where}: every retry policy needs a list of ExceptionType.`);
    for (const t of p.ExceptionType) {
      if (!(RETRY_EXCEPTION_TYPES as readonly Json[]).includes(t))
        throw invalid(
          `${where}: unknown retry ExceptionType ${JSON.stringify(t)}; expected one of ${RETRY_EXCEPTION_TYPES.join(', ')}.`,
        );
    }
    const num = (k: string, dflt: number | undefined, min: number) => {
      const x = p[k];
      if (x === undefined || x === null) return dflt;
      if (typeof x !== 'number' || !(x >= min))
        throw invalid(`${where}: retry policy ${k} must be a number of at least ${min}.`);
      return x;
    };
    const maxAttempts = num('MaxAttempts', undefined, 1);
    const expireAfterMin = num('ExpireAfterMin', undefined, 0);
    if (maxAttempts === undefined && expireAfterMin === undefined)
      throw invalid(`${where}: a retry policy needs MaxAttempts or ExpireAfterMin.`);
    return {
      exceptionTypes: p.ExceptionType as string[],
      intervalSeconds: num('IntervalSeconds', 1, 0)!,
      backoffRate: num('BackoffRate', 2, 0)!,
      maxAttempts,
      expireAfterMin,
    };
  });
}

function checkPropertyFiles(
  v: Json | undefined,
  type: string,
  args: Record<string, Json>,
  where: string,
): PropertyFileDef[] {
  if (v === undefined || v === null) return [];
  if (type !== 'Processing') throw invalid(`${where}: only Processing steps have PropertyFiles.`);
  if (!Array.isArray(v)) throw invalid(`${where}: PropertyFiles must be a list.`);
  const outputs = (
    isObject(args.ProcessingOutputConfig) && Array.isArray(args.ProcessingOutputConfig.Outputs)
      ? args.ProcessingOutputConfig.Outputs
      : []
  ).flatMap((o) => (isObject(o) && typeof o.OutputName === 'string' ? [o.OutputName] : []));
  return v.map((f) => {
    if (
      !isObject(f) ||
      typeof f.PropertyFileName !== 'string' ||
      typeof f.OutputName !== 'string' ||
      typeof f.FilePath !== 'string'
    )
      throw invalid(`${where}: every property file needs PropertyFileName, OutputName and FilePath.`);
    if (!outputs.includes(f.OutputName))
      throw invalid(
        `${where}: property file ${f.PropertyFileName} names the output ${f.OutputName}, which the step does not have.`,
      );
    return { PropertyFileName: f.PropertyFileName, OutputName: f.OutputName, FilePath: f.FilePath };
  });
}

function checkCallback(
  def: Record<string, Json>,
  where: string,
): Pick<PipelineStep, 'outputParameters' | 'sqsQueueUrl'> {
  const outs = def.OutputParameters ?? [];
  if (!Array.isArray(outs)) throw invalid(`${where}: OutputParameters must be a list.`);
  const outputParameters = outs.map((o) => {
    if (!isObject(o) || typeof o.OutputName !== 'string')
      throw invalid(`${where}: every output parameter needs an OutputName.`);
    const t = o.OutputType ?? 'String';
    if (t !== 'String' && t !== 'Integer' && t !== 'Float' && t !== 'Boolean')
      throw invalid(`${where}: output parameter ${o.OutputName} has type ${JSON.stringify(t)}.`);
    return { OutputName: o.OutputName, OutputType: t };
  });
  return { outputParameters, sqsQueueUrl: typeof def.SqsQueueUrl === 'string' ? def.SqsQueueUrl : undefined };
}

function checkReference(
  ref: Reference,
  where: string,
  params: ReadonlySet<string>,
  steps: ReadonlyMap<string, CheckedStep>,
): void {
  if (ref.t === 'parameter') {
    if (!params.has(ref.name)) throw invalid(`${where} refers to the parameter ${ref.name}, which is not declared.`);
    return;
  }
  if (ref.t === 'execution') {
    if (!(EXECUTION_VARIABLES as readonly string[]).includes(ref.name))
      throw invalid(
        `${where} refers to Execution.${ref.name}; execution variables are ${EXECUTION_VARIABLES.join(', ')}.`,
      );
    return;
  }
  const target = steps.get(ref.step);
  if (!target) throw invalid(`${where} refers to the step ${ref.step}, which is not a step of this pipeline.`);
  if (ref.t === 'property-file') {
    if (!target.propertyFiles.some((f) => f.PropertyFileName === ref.file))
      throw invalid(
        `${where} refers to the property file ${ref.file} of step ${ref.step}, which declares no such file.`,
      );
    return;
  }
  const [first] = ref.path;
  const bad = (what: string) => invalid(`${where} refers to ${ref.text}, but ${what}.`);
  switch (target.type) {
    case 'Fail':
      throw bad(`step ${ref.step} is a Fail step, which has no properties`);
    case 'Condition':
      if (ref.path.length !== 1 || first?.t !== 'member' || first.name !== 'Outcome')
        throw bad(`a Condition step's only property is Outcome`);
      return;
    case 'Callback': {
      const key = ref.path[1];
      if (first?.t !== 'member' || first.name !== 'OutputParameters' || ref.path.length !== 2 || key?.t !== 'key')
        throw bad(`a Callback step's properties are OutputParameters['<name>']`);
      if (!target.outputParameters?.some((o) => o.OutputName === key.key))
        throw bad(`step ${ref.step} declares no output parameter ${key.key}`);
      return;
    }
    default: {
      const missing = checkPropertyPath(STEP_TYPES[target.type], ref.path);
      if (missing !== undefined) throw bad(`a ${target.type} step has no property ${missing} there`);
    }
  }
}

function checkExperimentConfig(v: Json | undefined, params: ReadonlySet<string>): CompiledPipeline['experiment'] {
  const dflt = {
    ExperimentName: { Get: 'Execution.PipelineName' },
    TrialName: { Get: 'Execution.PipelineExecutionId' },
  };
  if (v === undefined) return dflt;
  if (v === null) return null;
  if (!isObject(v)) throw invalid('PipelineExperimentConfig must be an object or null.');
  const out = { ExperimentName: v.ExperimentName ?? dflt.ExperimentName, TrialName: v.TrialName ?? dflt.TrialName };
  try {
    for (const ref of collectReferences([out.ExperimentName, out.TrialName])) {
      if (ref.t === 'step' || ref.t === 'property-file')
        throw invalid('PipelineExperimentConfig may refer to parameters and execution variables only.');
      checkReference(ref, 'PipelineExperimentConfig', params, new Map());
    }
  } catch (e) {
    if (e instanceof ExpressionError) throw invalid(`PipelineExperimentConfig: ${e.message}`);
    throw e;
  }
  return out;
}

/** Kahn's algorithm, keeping the definition's order among steps that are ready together. */
function topologicalOrder(steps: readonly PipelineStep[]): PipelineStep[] {
  const pending = new Map(steps.map((s) => [s.name, new Set(s.dependsOn)]));
  const out: PipelineStep[] = [];
  while (out.length < steps.length) {
    const ready = steps.filter((s) => pending.get(s.name)?.size === 0);
    if (ready.length === 0) {
      const cycle = findCycle(steps, pending);
      throw invalid(`the steps depend on each other in a cycle: ${cycle.join(' -> ')}.`);
    }
    for (const s of ready) {
      pending.delete(s.name);
      out.push(s);
      for (const deps of pending.values()) deps.delete(s.name);
    }
  }
  return out;
}

function findCycle(steps: readonly PipelineStep[], pending: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const start = steps.find((s) => pending.has(s.name))!.name;
  const path: string[] = [];
  let at = start;
  while (!path.includes(at)) {
    path.push(at);
    at = [...pending.get(at)!].find((d) => pending.has(d))!;
  }
  return [...path.slice(path.indexOf(at)), at];
}
