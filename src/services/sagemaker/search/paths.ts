// Search's property paths (`Metrics.validation:rmse.Min`, `Parameters.max_depth`, `Tags.team`,
// `Parents.TrialName`) resolved against the model's shape of the search record, and the values a
// document holds at a path. https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Filter.html
import { model } from '../../../generated/sagemaker/model.js';
import type { ShapeMeta } from '../../../protocol/model.js';
import type { IndexValue } from '../../../storage/repositories/search-index.js';

const shapes = model.shapes as unknown as Readonly<Record<string, ShapeMeta>>;

/** What a path's values are compared as: numbers, text, timestamps, or a parameter (number or text per value). */
export type ValueType = 'number' | 'string' | 'timestamp' | 'parameter';

/**
 * Lists addressed by a key instead of an index: `Tags.<Key>` is the tag's Value, `Metrics.<MetricName>.<stat>`
 * a statistic of the named metric (and `Metrics.<MetricName>` a training job's final Value).
 */
const KEYED_LISTS: Readonly<Record<string, { key: string; value?: string }>> = {
  TagList: { key: 'Key', value: 'Value' },
  TrialComponentMetricSummaries: { key: 'MetricName' },
  FinalMetricDataList: { key: 'MetricName', value: 'Value' },
};

/** A trial component parameter is `Parameters.<name>`: its NumberValue or its StringValue. */
const PARAMETER_SHAPE = 'TrialComponentParameterValue';

/** Longest indexed text: longer values are still matched, but not used to drive a scan. */
export const MAX_INDEXED_TEXT = 256;

type Step =
  | { readonly kind: 'member'; readonly name: string }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'keyed'; readonly keyMember: string; readonly key: string }
  | { readonly kind: 'each' }
  | { readonly kind: 'parameter' };

export interface ResolvedPath {
  /** The path as indexed: segments of the canonical form. */
  readonly path: string;
  readonly type: ValueType;
  readonly steps: readonly Step[];
}

function leafType(shape: ShapeMeta): ValueType | undefined {
  switch (shape.type) {
    case 'string':
    case 'boolean':
      return 'string';
    case 'integer':
    case 'long':
    case 'float':
    case 'double':
      return 'number';
    case 'timestamp':
      return 'timestamp';
    default:
      return undefined;
  }
}

/** Resolves `path` within the record shape `root`, or undefined when no such property exists. */
export function resolvePath(root: string, path: string): ResolvedPath | undefined {
  const segments = path.split('.');
  const steps: Step[] = [];
  let shapeName = root;
  let i = 0;
  for (;;) {
    const shape = shapes[shapeName];
    if (!shape) return undefined;
    if (shapeName === PARAMETER_SHAPE && i === segments.length) {
      steps.push({ kind: 'parameter' });
      return { path, type: 'parameter', steps };
    }
    if (i === segments.length) {
      const type = leafType(shape);
      if (shape.type === 'list' && shape.member) {
        // A list of plain values: matched when any element matches.
        const t = leafType(shapes[shape.member]!);
        return t ? { path, type: t, steps: [...steps, { kind: 'each' }] } : undefined;
      }
      return type ? { path, type, steps } : undefined;
    }
    if (shape.type === 'structure') {
      const m = shape.members?.[segments[i]!];
      if (!m) return undefined;
      steps.push({ kind: 'member', name: segments[i]! });
      shapeName = m.shape;
      i++;
    } else if (shape.type === 'list' && shape.member) {
      const keyed = KEYED_LISTS[shapeName];
      const item = shapes[shape.member]!;
      if (keyed) {
        // The key may itself contain dots: a trailing member name of the item splits it off.
        const last = segments[segments.length - 1]!;
        const splitsMember = segments.length - i >= 2 && item.members?.[last] && last !== keyed.key;
        const key = segments.slice(i, splitsMember ? -1 : undefined).join('.');
        steps.push({ kind: 'keyed', keyMember: keyed.key, key });
        const member = splitsMember ? last : keyed.value;
        if (!member) return undefined;
        steps.push({ kind: 'member', name: member });
        shapeName = item.members![member]!.shape;
        i = segments.length;
      } else {
        steps.push({ kind: 'each' });
        shapeName = shape.member;
      }
    } else if (shape.type === 'map' && shape.value) {
      const value = shapes[shape.value]!;
      const last = segments[segments.length - 1]!;
      const splitsMember = segments.length - i >= 2 && value.type === 'structure' && value.members?.[last];
      steps.push({ kind: 'key', key: segments.slice(i, splitsMember ? -1 : undefined).join('.') });
      shapeName = shape.value;
      i = splitsMember ? segments.length - 1 : segments.length;
    } else {
      return undefined;
    }
  }
}

/** Whether `path` names a list of structures in the record (a NestedFilters' NestedPropertyName). */
export function isList(root: string, path: string): boolean {
  let shape = shapes[root];
  for (const seg of path.split('.')) {
    const m = shape?.type === 'structure' ? shape.members?.[seg] : undefined;
    if (!m) return false;
    shape = shapes[m.shape];
  }
  return shape?.type === 'list' && shapes[shape.member!]?.type === 'structure';
}

/** The values of `doc` at a resolved path (several when it crosses lists); timestamps as epoch ms. */
export function valuesAt(doc: unknown, steps: readonly Step[]): Array<number | string> {
  let current: unknown[] = [doc];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (v === undefined || v === null) continue;
      if (step.kind === 'member' || step.kind === 'key') {
        const o = (v as Record<string, unknown>)[step.kind === 'member' ? step.name : step.key];
        if (o !== undefined && o !== null) next.push(o);
      } else if (step.kind === 'keyed') {
        for (const item of Array.isArray(v) ? v : []) if (item?.[step.keyMember] === step.key) next.push(item);
      } else if (step.kind === 'each') {
        if (Array.isArray(v)) next.push(...v);
      } else {
        const p = v as { NumberValue?: number; StringValue?: string };
        next.push(p.NumberValue ?? p.StringValue);
      }
    }
    current = next;
  }
  return current.flatMap((v) => scalar(v) ?? []);
}

function scalar(v: unknown): number | string | undefined {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * Every indexable value of a record: its scalar leaves under canonical paths (map keys and keyed
 * lists spelled out, other lists transparent), as `resolvePath` resolves them.
 */
export function indexValues(root: string, doc: unknown): Array<[string, IndexValue]> {
  const out: Array<[string, IndexValue]> = [];
  const emit = (path: string, v: unknown) => {
    const s = scalar(v);
    if (typeof s === 'number') {
      if (Number.isFinite(s)) out.push([path, { num: s }]);
    } else if (s !== undefined && s.length <= MAX_INDEXED_TEXT) out.push([path, { str: s }]);
  };
  const walk = (shapeName: string, v: unknown, path: string, depth: number) => {
    const shape = shapes[shapeName];
    if (!shape || v === undefined || v === null || depth > 12) return;
    const at = (seg: string) => (path ? `${path}.${seg}` : seg);
    if (shapeName === PARAMETER_SHAPE) {
      const p = v as { NumberValue?: number; StringValue?: string };
      emit(path, p.NumberValue ?? p.StringValue);
    } else if (shape.type === 'structure') {
      for (const [name, m] of Object.entries(shape.members ?? {}))
        walk(m.shape, (v as Record<string, unknown>)[name], at(name), depth + 1);
    } else if (shape.type === 'list' && shape.member && Array.isArray(v)) {
      const keyed = KEYED_LISTS[shapeName];
      const item = shapes[shape.member]!;
      for (const e of v) {
        if (!keyed) walk(shape.member, e, path, depth + 1);
        else if (keyed.value) emit(at(String(e[keyed.key])), e[keyed.value]);
        else {
          for (const [name, m] of Object.entries(item.members ?? {})) {
            if (name !== keyed.key) walk(m.shape, e[name], at(`${e[keyed.key]}.${name}`), depth + 1);
          }
        }
      }
    } else if (shape.type === 'map' && shape.value && typeof v === 'object') {
      for (const [k, e] of Object.entries(v as Record<string, unknown>)) walk(shape.value, e, at(k), depth + 1);
    } else {
      emit(path, v);
    }
  };
  walk(root, doc, '', 0);
  return out;
}

/** The record's members only (Describe answers carry a few fields the record shape does not have). */
export function pickMembers(root: string, doc: Record<string, unknown>): Record<string, unknown> {
  const members = shapes[root]?.members ?? {};
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(members)) if (doc[k] !== undefined) out[k] = doc[k];
  return out;
}

/** The shape name of a record member (`TrialComponent` for SearchRecord.TrialComponent). */
export function recordShape(record: string): string {
  const member = (name: string) =>
    (shapes[name]!.members as Record<string, { shape: string } | undefined>)[record]?.shape;
  // Transform and processing jobs are records only inside a trial component's SourceDetail.
  return member('SearchRecord') ?? member('TrialComponentSourceDetail')!;
}
