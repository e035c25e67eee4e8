// Step property references (`Steps.<name>.<path>`): the path into a step's Describe* response as
// the SDK's sagemaker.workflow.properties writes it (`ModelArtifacts.S3ModelArtifacts`,
// `ProcessingOutputConfig.Outputs['train'].S3Output.S3Uri`, `TrainingJobSummaries[0]`), checked
// against the service model's shapes at CreatePipeline and looked up in a step's snapshot at run time.
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-and-manage-propertyfile.html
import { model } from '../generated/sagemaker/model.js';
import type { ShapeMeta } from '../protocol/model.js';

/** One segment of a property path: a member name, a list index, or a key (`['train']`). */
export type PathSegment =
  | { readonly t: 'member'; readonly name: string }
  | { readonly t: 'index'; readonly index: number }
  | { readonly t: 'key'; readonly key: string };

export class PropertyPathError extends Error {
  override readonly name = 'PropertyPathError';
}

/** Parses `A.B['x'].C[0]`; throws PropertyPathError on anything else. */
export function parsePropertyPath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  let i = 0;
  const fail = (): never => {
    throw new PropertyPathError(`'${path}' is not a property path.`);
  };
  while (i < path.length) {
    if (path[i] === '[') {
      const close = path.indexOf(']', i);
      if (close < 0) fail();
      const inner = path.slice(i + 1, close);
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inner);
      if (quoted) out.push({ t: 'key', key: quoted[1] ?? quoted[2]! });
      else if (/^\d+$/.test(inner)) out.push({ t: 'index', index: Number(inner) });
      else fail();
      i = close + 1;
      continue;
    }
    if (path[i] === '.') {
      if (out.length === 0) fail();
      i++;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path.slice(i));
    if (!m) fail();
    out.push({ t: 'member', name: m![0] });
    i += m![0].length;
  }
  if (out.length === 0) fail();
  return out;
}

const shapes = model.shapes as unknown as Readonly<Record<string, ShapeMeta>>;

/**
 * Checks `path` against one of `roots` (shape names of the step type's Describe* responses). Returns
 * undefined when it is valid (or a root is not in the generated model, so it cannot be checked),
 * else the first segment no root has.
 */
export function checkPropertyPath(roots: readonly string[], segments: readonly PathSegment[]): string | undefined {
  if (roots.some((r) => !shapes[r])) return undefined;
  let best: string | undefined;
  for (const root of roots) {
    const bad = walk(shapes[root]!, segments);
    if (bad === undefined) return undefined;
    best ??= bad;
  }
  return best;
}

function walk(start: ShapeMeta, segments: readonly PathSegment[]): string | undefined {
  let shape: ShapeMeta | undefined = start;
  for (const s of segments) {
    if (!shape) return render(s);
    if (s.t === 'member') {
      const m: { shape: string } | undefined = shape.type === 'structure' ? shape.members?.[s.name] : undefined;
      if (!m) return s.name;
      shape = shapes[m.shape];
    } else if (shape.type === 'list') {
      shape = shapes[shape.member!];
    } else if (shape.type === 'map') {
      shape = shapes[shape.value!];
    } else {
      return render(s);
    }
  }
  return undefined;
}

const render = (s: PathSegment) => (s.t === 'member' ? s.name : s.t === 'index' ? `[${s.index}]` : `['${s.key}']`);

/** The members by which a list's elements are addressed with a key (`Outputs['train']`). */
const KEY_MEMBERS = ['OutputName', 'InputName', 'ChannelName', 'MetricName', 'Name', 'TrainingJobName', 'Key'];

/** Looks `segments` up in a step's properties (its Describe* snapshot); undefined when absent. */
export function lookupProperty(root: unknown, segments: readonly PathSegment[]): unknown {
  let v = root;
  for (const s of segments) {
    if (v === undefined || v === null) return undefined;
    if (s.t === 'member') {
      if (typeof v !== 'object' || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[s.name];
    } else if (s.t === 'index') {
      v = Array.isArray(v) ? v[s.index] : (v as Record<string, unknown>)[String(s.index)];
    } else if (Array.isArray(v)) {
      v = v.find(
        (e) =>
          e !== null && typeof e === 'object' && KEY_MEMBERS.some((k) => (e as Record<string, unknown>)[k] === s.key),
      );
    } else if (typeof v === 'object') {
      v = (v as Record<string, unknown>)[s.key];
    } else {
      return undefined;
    }
  }
  return v;
}
