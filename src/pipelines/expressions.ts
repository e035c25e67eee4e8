// The expressions of a pipeline definition (version 2020-12-01): `{"Get": "Parameters.X" |
// "Execution.X" | "Steps.S.<path>" | "Steps.S.PropertyFiles.F"}`, `{"Std:Join": {"On", "Values"}}`
// and `{"Std:JsonGet": {"PropertyFile" | "S3Uri", "Path"}}`, anywhere in a step's arguments. Here
// they are found (for the checker's references and the DAG's data dependencies) and evaluated.
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-and-manage-propertyfile.html
import { applyJsonPath, JsonPathError, parseJsonPath } from '../transform/json-path.js';
import { type PathSegment, PropertyPathError, parsePropertyPath } from './properties.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The execution variables a definition may name (`Execution.<name>`). */
export const EXECUTION_VARIABLES = [
  'StartDateTime',
  'CurrentDateTime',
  'PipelineName',
  'PipelineArn',
  'PipelineExecutionId',
  'PipelineExecutionArn',
] as const;

/** What an expression refers to. */
export type Reference =
  | { readonly t: 'parameter'; readonly name: string }
  | { readonly t: 'execution'; readonly name: string }
  | { readonly t: 'step'; readonly step: string; readonly path: readonly PathSegment[]; readonly text: string }
  | { readonly t: 'property-file'; readonly step: string; readonly file: string };

export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/** A Float parameter's value: a number that Std:Join writes as a float (`6.0`), as the service does. */
export class FloatValue {
  constructor(readonly value: number) {}
  toString(): string {
    return Number.isInteger(this.value) ? this.value.toFixed(1) : String(this.value);
  }
}

/** A resolved value: JSON, with Float parameters kept as FloatValue until written out. */
export type Value = null | boolean | number | string | FloatValue | Value[] | { [key: string]: Value };

const STEP_NAME = /^[A-Za-z0-9\-_]{1,64}$/;

/** Parses the target of a `Get`; throws ExpressionError naming what is wrong. */
export function parseGet(target: unknown): Reference {
  if (typeof target !== 'string') throw new ExpressionError(`"Get" must name a string, not ${JSON.stringify(target)}.`);
  const dot = target.indexOf('.');
  const head = dot < 0 ? target : target.slice(0, dot);
  const rest = dot < 0 ? '' : target.slice(dot + 1);
  if (head === 'Parameters' && rest !== '') return { t: 'parameter', name: rest };
  if (head === 'Execution' && rest !== '') return { t: 'execution', name: rest };
  if (head === 'Steps') {
    const m = /^([^.[]+)(?:\.(.+))?$/.exec(rest);
    if (m && STEP_NAME.test(m[1]!) && m[2]) {
      const pf = /^PropertyFiles\.([^.[\]]+)$/.exec(m[2]);
      if (pf) return { t: 'property-file', step: m[1]!, file: pf[1]! };
      try {
        return { t: 'step', step: m[1]!, path: parsePropertyPath(m[2]), text: target };
      } catch (e) {
        if (e instanceof PropertyPathError) throw new ExpressionError(`"${target}" is not a valid property reference.`);
        throw e;
      }
    }
  }
  throw new ExpressionError(
    `"${target}" is not a valid reference (Parameters.<name>, Execution.<name> or Steps.<step>.<property>).`,
  );
}

const isObject = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The single-key objects that are expressions, not literal values. */
function expressionKind(v: Record<string, Json>): 'Get' | 'Std:Join' | 'Std:JsonGet' | undefined {
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  const k = keys[0]!;
  return k === 'Get' || k === 'Std:Join' || k === 'Std:JsonGet' ? k : undefined;
}

/** Every reference in `v`, in document order; throws ExpressionError for a malformed expression. */
export function collectReferences(v: Json, out: Reference[] = []): Reference[] {
  if (Array.isArray(v)) {
    for (const x of v) collectReferences(x, out);
  } else if (isObject(v)) {
    const kind = expressionKind(v);
    if (kind === 'Get') out.push(parseGet(v.Get));
    else if (kind === 'Std:Join') {
      const j = v['Std:Join'];
      if (!isObject(j) || !Array.isArray(j.Values))
        throw new ExpressionError('"Std:Join" needs {"On": string, "Values": [...]}.');
      if (j.On !== undefined && typeof j.On !== 'string')
        throw new ExpressionError('"Std:Join" "On" must be a string.');
      collectReferences(j.Values, out);
    } else if (kind === 'Std:JsonGet') {
      const g = v['Std:JsonGet'];
      if (!isObject(g) || typeof g.Path !== 'string' || (g.PropertyFile === undefined) === (g.S3Uri === undefined))
        throw new ExpressionError('"Std:JsonGet" needs a "Path" and either a "PropertyFile" or an "S3Uri".');
      checkJsonPath(g.Path);
      if (g.PropertyFile !== undefined) {
        const ref = isObject(g.PropertyFile) && 'Get' in g.PropertyFile ? parseGet(g.PropertyFile.Get) : undefined;
        if (ref?.t !== 'property-file')
          throw new ExpressionError(
            '"Std:JsonGet" "PropertyFile" must be {"Get": "Steps.<step>.PropertyFiles.<name>"}.',
          );
        out.push(ref);
      } else {
        collectReferences(g.S3Uri!, out);
      }
    } else {
      for (const x of Object.values(v)) collectReferences(x, out);
    }
  }
  return out;
}

function checkJsonPath(path: string): void {
  try {
    parseJsonPath(path.startsWith('$') ? path : `$.${path}`);
  } catch (e) {
    if (e instanceof JsonPathError) throw new ExpressionError(`"Std:JsonGet" Path: ${e.message}`);
    throw e;
  }
}

/** What evaluation reads: parameter and execution variable values, step properties, S3 objects. */
export interface Scope {
  parameter(name: string): Value;
  execution(name: string): Value;
  /** A step property; undefined when the step's response has no such value. */
  stepProperty(step: string, path: readonly PathSegment[]): unknown;
  /** The S3 URI of a property file (its output's S3Uri and FilePath). */
  propertyFile(step: string, file: string): string;
  /** An S3 object as JSON (Std:JsonGet). */
  readJson(uri: string): Promise<unknown>;
}

/** Evaluates every expression in `v`; throws ExpressionError with a reason a user can act on. */
export async function evaluate(v: Json, scope: Scope): Promise<Value> {
  if (Array.isArray(v)) {
    const out: Value[] = [];
    for (const x of v) out.push(await evaluate(x, scope));
    return out;
  }
  if (!isObject(v)) return v;
  const kind = expressionKind(v);
  if (kind === 'Get') return resolveGet(parseGet(v.Get), scope);
  if (kind === 'Std:Join') {
    const j = v['Std:Join'] as { On?: string; Values: Json[] };
    const parts: string[] = [];
    for (const x of j.Values) parts.push(render(await evaluate(x, scope)));
    return parts.join(j.On ?? '');
  }
  if (kind === 'Std:JsonGet') {
    const g = v['Std:JsonGet'] as { PropertyFile?: { Get: string }; S3Uri?: Json; Path: string };
    let uri: string;
    if (g.PropertyFile) {
      const ref = parseGet(g.PropertyFile.Get) as Extract<Reference, { t: 'property-file' }>;
      uri = scope.propertyFile(ref.step, ref.file);
    } else {
      const u = await evaluate(g.S3Uri!, scope);
      if (typeof u !== 'string') throw new ExpressionError('"Std:JsonGet" "S3Uri" must evaluate to a string.');
      uri = u;
    }
    const doc = await scope.readJson(uri);
    const found = applyJsonPath(parseJsonPath(g.Path.startsWith('$') ? g.Path : `$.${g.Path}`), doc);
    if (found === undefined) throw new ExpressionError(`Std:JsonGet: the path "${g.Path}" matches nothing in ${uri}.`);
    return found as Value;
  }
  const out: { [k: string]: Value } = {};
  for (const [k, x] of Object.entries(v)) out[k] = await evaluate(x, scope);
  return out;
}

function resolveGet(ref: Reference, scope: Scope): Value {
  switch (ref.t) {
    case 'parameter':
      return scope.parameter(ref.name);
    case 'execution':
      return scope.execution(ref.name);
    case 'property-file':
      return scope.propertyFile(ref.step, ref.file);
    case 'step': {
      const v = scope.stepProperty(ref.step, ref.path);
      if (v === undefined || v === null) throw new ExpressionError(`The property ${ref.text} has no value.`);
      return v as Value;
    }
  }
}

/** How Std:Join writes a value. */
export function render(v: Value): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v instanceof FloatValue) return String(v);
  return JSON.stringify(toJson(v));
}

/** A resolved value as the JSON a job's request is made of (Float parameters become numbers). */
export function toJson(v: Value): Json {
  if (v instanceof FloatValue) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  if (v !== null && typeof v === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(v)) out[k] = toJson(x);
    return out;
  }
  return v;
}

/** A value as a number, if it is one (numbers, Float values, numeric strings). */
export function asNumber(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof FloatValue) return v.value;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}
