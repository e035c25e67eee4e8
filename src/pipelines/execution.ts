// A pipeline execution as stored (the pipeline_executions row's document) and the values its
// expressions read: parameters typed by their declaration, execution variables, the properties of
// its steps, property files in S3.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribePipelineExecution.html
import { buffer } from 'node:stream/consumers';
import type { Partition } from '../domain/arn.js';
import { ValidationException } from '../protocol/common-errors.js';
import { BlobNotFoundError, type BlobStore, InvalidS3UriError } from '../storage/blobs/blob-store.js';
import type { CompiledPipeline, ParameterDef } from './definition.js';
import { ExpressionError, FloatValue, type Json, type Scope, type Value } from './expressions.js';
import { lookupProperty } from './properties.js';
import type { StepDoc, StepRow } from './store.js';

/** The work item of an execution on the job runner (its id is the execution ARN). */
export interface PipelineWork extends Partition {
  readonly accountId: string;
  readonly region: string;
  readonly executionArn: string;
}

export interface ExecutionDoc {
  PipelineArn: string;
  PipelineName: string;
  PipelineExecutionId: string;
  RoleArn: string;
  /** The definition the execution runs (DescribePipelineDefinitionForExecution). */
  PipelineDefinition: string;
  PipelineExecutionDisplayName: string;
  PipelineExecutionDescription?: string;
  ParallelismConfiguration?: { MaxParallelExecutionSteps: number };
  /** Every parameter's value, typed as declared. */
  ParameterValues: Record<string, string | number | boolean>;
  /** Resolved at the start; absent when the definition turned experiments off. */
  PipelineExperimentConfig?: { ExperimentName: string; TrialName: string };
  StartTime: number;
  EndTime?: number;
  FailureReason?: string;
  ClientRequestToken?: string;
}

/** The largest property file Std:JsonGet reads. */
const MAX_PROPERTY_FILE = 1024 * 1024;

/**
 * The parameters' values for an execution: the given ones (strings, as the API carries them) typed by
 * their declaration, the rest from their defaults. Throws ValidationException naming a bad value.
 */
export function parameterValues(
  declared: readonly ParameterDef[],
  given: ReadonlyArray<{ Name: string; Value: string }>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  const byName = new Map(declared.map((p) => [p.Name, p]));
  for (const g of given) {
    const p = byName.get(g.Name);
    if (!p) throw new ValidationException(`Parameter '${g.Name}' is not a parameter of the pipeline definition.`);
    if (g.Name in out) throw new ValidationException(`Parameter '${g.Name}' is given more than once.`);
    out[g.Name] = typed(p, g.Value);
  }
  for (const p of declared) {
    if (p.Name in out) continue;
    if (p.DefaultValue === undefined)
      throw new ValidationException(
        `Parameter '${p.Name}' has no default value; give it a value in PipelineParameters.`,
      );
    out[p.Name] = p.DefaultValue;
  }
  return out;
}

function typed(p: ParameterDef, value: string): string | number | boolean {
  const bad = () => new ValidationException(`The value '${value}' of parameter '${p.Name}' is not a valid ${p.Type}.`);
  switch (p.Type) {
    case 'Integer':
      if (!/^-?\d+$/.test(value.trim())) throw bad();
      return Number(value);
    case 'Float': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw bad();
      return n;
    }
    case 'Boolean':
      if (!/^(true|false)$/i.test(value.trim())) throw bad();
      return value.trim().toLowerCase() === 'true';
    default:
      if (p.EnumValues && !p.EnumValues.includes(value))
        throw new ValidationException(
          `The value '${value}' of parameter '${p.Name}' is not one of its EnumValues: ${p.EnumValues.join(', ')}.`,
        );
      return value;
  }
}

/** A parameter value as ListPipelineParametersForExecution shows it (Float values as floats). */
export function parameterText(p: ParameterDef | undefined, v: string | number | boolean): string {
  return p?.Type === 'Float' && typeof v === 'number' ? new FloatValue(v).toString() : String(v);
}

/** The execution variables (`Execution.<name>`). */
export function executionVariables(executionArn: string, doc: ExecutionDoc): Record<string, () => Value> {
  return {
    StartDateTime: () => new Date(doc.StartTime).toISOString(),
    CurrentDateTime: () => new Date().toISOString(),
    PipelineName: () => doc.PipelineName,
    PipelineArn: () => doc.PipelineArn,
    PipelineExecutionId: () => doc.PipelineExecutionId,
    PipelineExecutionArn: () => executionArn,
  };
}

/** The properties of a step that succeeded (its Describe* response, or a Condition's outcome ...). */
export function stepProperties(row: StepRow | undefined): Json | undefined {
  return row?.status === 'Succeeded' ? (JSON.parse(row.doc) as StepDoc).Properties : undefined;
}

/** The scope an execution's expressions are evaluated in. */
export function executionScope(
  executionArn: string,
  doc: ExecutionDoc,
  pipeline: CompiledPipeline,
  steps: ReadonlyMap<string, StepRow>,
  blobs: BlobStore,
  /** With a credentials file: whether the pipeline's role may read an object (Std:JsonGet). */
  mayRead?: (uri: string) => boolean,
): Scope {
  const vars = executionVariables(executionArn, doc);
  const types = new Map(pipeline.parameters.map((p) => [p.Name, p.Type]));
  const propertiesOf = (step: string) => {
    const props = stepProperties(steps.get(step));
    if (props === undefined)
      throw new ExpressionError(`Step ${step} has not succeeded, so its properties have no value.`);
    return props;
  };
  return {
    parameter(name) {
      const v = doc.ParameterValues[name];
      if (v === undefined) throw new ExpressionError(`The parameter ${name} has no value.`);
      return types.get(name) === 'Float' && typeof v === 'number' ? new FloatValue(v) : v;
    },
    execution(name) {
      const v = vars[name];
      if (!v) throw new ExpressionError(`Execution.${name} is not an execution variable.`);
      return v();
    },
    stepProperty(step, path) {
      return lookupProperty(propertiesOf(step), path);
    },
    propertyFile(step, file) {
      const def = pipeline.byName.get(step)?.propertyFiles.find((f) => f.PropertyFileName === file);
      if (!def) throw new ExpressionError(`Step ${step} declares no property file ${file}.`);
      const uri = lookupProperty(propertiesOf(step), [
        { t: 'member', name: 'ProcessingOutputConfig' },
        { t: 'member', name: 'Outputs' },
        { t: 'key', key: def.OutputName },
        { t: 'member', name: 'S3Output' },
        { t: 'member', name: 'S3Uri' },
      ]);
      if (typeof uri !== 'string') throw new ExpressionError(`Step ${step} has no output ${def.OutputName}.`);
      return `${uri.replace(/\/+$/, '')}/${def.FilePath.replace(/^\/+/, '')}`;
    },
    async readJson(uri) {
      if (mayRead && !mayRead(uri))
        throw new ExpressionError(
          `Std:JsonGet could not read the property file ${uri}: the pipeline's role ${doc.RoleArn} may not (s3:GetObject is denied).`,
        );
      let bytes: Buffer;
      try {
        const info = await blobs.stat(uri);
        if (!info) throw new BlobNotFoundError(uri, 'NoSuchKey');
        if (info.size > MAX_PROPERTY_FILE)
          throw new ExpressionError(`The property file ${uri} is larger than ${MAX_PROPERTY_FILE} bytes.`);
        bytes = await buffer(await blobs.get(uri));
      } catch (e) {
        if (e instanceof BlobNotFoundError || e instanceof InvalidS3UriError)
          throw new ExpressionError(`Std:JsonGet could not read the property file ${uri}: ${e.message}.`);
        throw e;
      }
      try {
        return JSON.parse(bytes.toString('utf8'));
      } catch (e) {
        throw new ExpressionError(`The property file ${uri} is not JSON: ${(e as Error).message}`);
      }
    },
  };
}
