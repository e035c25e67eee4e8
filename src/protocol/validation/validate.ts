// Validates (and types) a decoded request against the service model's constraints, with the
// messages AWS's Coral front end writes: required, type, length, range, enum, pattern.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/CommonErrors.html
import { RE2JS } from 're2js';
import { SerializationException, ValidationException } from '../common-errors.js';
import type { ServiceModel, ShapeMeta } from '../model.js';

/** Compiled model patterns, by shape. RE2 matches in time linear in the input. */
const compiled = new WeakMap<ShapeMeta, RE2JS>();
function patternOf(shape: ShapeMeta): RE2JS {
  let re = compiled.get(shape);
  if (!re) {
    // AWS checks the whole value (Java's Matcher.matches), so match the full string.
    re = RE2JS.compile(shape.re2Pattern ?? shape.pattern!);
    compiled.set(shape, re);
  }
  return re;
}

/** How JSON values of the wrong type are reported (awsJson: SerializationException). */
function typeError(path: string, expected: string, got: unknown): SerializationException {
  const kind =
    got === null
      ? 'NULL'
      : Array.isArray(got)
        ? 'START_ARRAY'
        : typeof got === 'object'
          ? 'START_OBJECT'
          : typeof got === 'string'
            ? 'STRING_VALUE'
            : typeof got === 'number'
              ? 'NUMBER_VALUE'
              : typeof got === 'boolean'
                ? 'BOOLEAN_VALUE'
                : 'VALUE';
  return new SerializationException(`${kind} can not be converted to ${expected}${path ? ` at '${path}'` : ''}`);
}

/** Java-like rendering of a value in a message (Coral prints Java's toString). */
export function renderValue(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return `java.nio.HeapByteBuffer[pos=0 lim=${v.length} cap=${v.length}]`;
  if (Array.isArray(v)) return `[${v.map(renderValue).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}=${renderValue(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

export interface ValidateOptions {
  /**
   * How timestamps arrive: 'epoch-seconds' numbers (awsJson) or strings; both forms are accepted.
   * Blobs arrive base64-encoded in JSON bodies ('base64') or already as bytes ('bytes').
   */
  readonly blobs: 'base64' | 'bytes';
}

/**
 * Walks `value` against `shapeName`. Returns a new value holding only modelled members, with
 * timestamps as Date and blobs as bytes. Throws SerializationException for a value of the wrong
 * JSON type, and ValidationException listing every constraint violation, as AWS does.
 */
export function validateInput(
  model: ServiceModel,
  shapeName: string,
  value: unknown,
  options: ValidateOptions = { blobs: 'base64' },
): unknown {
  const errors: string[] = [];
  const out = walk(model, model.shapes[shapeName]!, value, '', errors, options);
  if (errors.length > 0) {
    throw new ValidationException(
      `${errors.length} validation error${errors.length === 1 ? '' : 's'} detected: ${errors.join('; ')}`,
    );
  }
  return out;
}

function constraintError(errors: string[], path: string, shape: ShapeMeta, v: unknown, rule: string): void {
  const shown = shape.sensitive ? "'***'" : v === null || v === undefined ? 'null' : `'${renderValue(v)}'`;
  errors.push(`Value ${shown} at '${path}' failed to satisfy constraint: ${rule}`);
}

/** Constraint rules (not type checks) that `v` breaks, without paths: used for map keys/values. */
function rulesBroken(shape: ShapeMeta, v: unknown): string[] {
  const rules: string[] = [];
  let size: number | undefined;
  if (typeof v === 'string') size = v.length;
  else if (Array.isArray(v)) size = v.length;
  else if (v instanceof Uint8Array) size = v.length;
  else if (v !== null && typeof v === 'object' && shape.type === 'map') size = Object.keys(v).length;
  if (size !== undefined) {
    if (shape.min !== undefined && size < shape.min)
      rules.push(`Member must have length greater than or equal to ${shape.min}`);
    if (shape.max !== undefined && size > shape.max)
      rules.push(`Member must have length less than or equal to ${shape.max}`);
  } else if (typeof v === 'number') {
    if (shape.min !== undefined && v < shape.min)
      rules.push(`Member must have value greater than or equal to ${shape.min}`);
    if (shape.max !== undefined && v > shape.max)
      rules.push(`Member must have value less than or equal to ${shape.max}`);
  }
  if (typeof v === 'string') {
    if (shape.enum && !shape.enum.includes(v))
      rules.push(`Member must satisfy enum value set: [${shape.enum.join(', ')}]`);
    if (shape.pattern !== undefined && !patternOf(shape).matches(v)) {
      rules.push(`Member must satisfy regular expression pattern: ${shape.pattern}`);
    }
  }
  return rules;
}

function walk(
  model: ServiceModel,
  shape: ShapeMeta,
  v: unknown,
  path: string,
  errors: string[],
  options: ValidateOptions,
): unknown {
  const typed = coerce(model, shape, v, path, errors, options);
  if (path !== '') for (const rule of rulesBroken(shape, typed)) constraintError(errors, path, shape, typed, rule);
  return typed;
}

function coerce(
  model: ServiceModel,
  shape: ShapeMeta,
  v: unknown,
  path: string,
  errors: string[],
  options: ValidateOptions,
): unknown {
  switch (shape.type) {
    case 'structure': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw typeError(path, 'a structure', v);
      const src = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      const members = shape.members ?? {};
      const required = shape.required;
      for (const name in members) {
        const raw = src[name];
        const memberPath = path === '' ? lowerFirst(name) : `${path}.${lowerFirst(name)}`;
        if (raw === undefined || raw === null) {
          if (required?.includes(name)) constraintError(errors, memberPath, shape, null, 'Member must not be null');
          continue;
        }
        out[name] = walk(model, model.shapes[members[name]!.shape]!, raw, memberPath, errors, options);
      }
      return out;
    }
    case 'list': {
      if (!Array.isArray(v)) throw typeError(path, 'a list', v);
      const member = model.shapes[shape.member!]!;
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        const itemPath = `${path}.${i + 1}.member`;
        if (item === null || item === undefined) {
          constraintError(errors, itemPath, member, null, 'Member must not be null');
          out[i] = item;
        } else out[i] = walk(model, member, item, itemPath, errors, options);
      }
      return out;
    }
    case 'map': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw typeError(path, 'a map', v);
      const keyShape = model.shapes[shape.key!]!;
      const valueShape = model.shapes[shape.value!]!;
      const out: Record<string, unknown> = {};
      const keyRules = new Set<string>();
      const valueRules = new Set<string>();
      for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
        for (const r of rulesBroken(keyShape, k)) keyRules.add(r);
        if (raw === null || raw === undefined) {
          valueRules.add('Member must not be null');
          continue;
        }
        const typedValue = coerce(model, valueShape, raw, `${path}.${k}`, errors, options);
        for (const r of rulesBroken(valueShape, typedValue)) valueRules.add(r);
        out[k] = typedValue;
      }
      if (keyRules.size)
        constraintError(errors, path, shape, v, `Map keys must satisfy constraint: [${[...keyRules].join(', ')}]`);
      if (valueRules.size) {
        constraintError(errors, path, shape, v, `Map value must satisfy constraint: [${[...valueRules].join(', ')}]`);
      }
      return out;
    }
    case 'string':
      if (typeof v !== 'string') throw typeError(path, 'a String', v);
      return v;
    case 'integer':
    case 'long':
      if (typeof v !== 'number' || !Number.isInteger(v))
        throw typeError(path, shape.type === 'long' ? 'a Long' : 'an Integer', v);
      return v;
    case 'float':
    case 'double':
      if (typeof v === 'number') return v;
      if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return Number(v);
      throw typeError(path, 'a Double', v);
    case 'boolean':
      if (typeof v !== 'boolean') throw typeError(path, 'a Boolean', v);
      return v;
    case 'timestamp': {
      if (v instanceof Date) return v;
      let d: Date | undefined;
      if (typeof v === 'number') d = new Date(v * 1000);
      else if (typeof v === 'string') d = /^-?\d+(\.\d+)?$/.test(v) ? new Date(Number(v) * 1000) : new Date(v);
      if (!d || Number.isNaN(d.getTime())) throw typeError(path, 'a Timestamp', v);
      return d;
    }
    case 'blob':
      if (v instanceof Uint8Array) return v;
      if (typeof v === 'string' && options.blobs === 'base64') return Buffer.from(v, 'base64');
      throw typeError(path, 'a Blob', v);
    default:
      return v;
  }
}
