// The JSONPath subset batch transform's InputFilter and OutputFilter accept: `$`, `.name`, `['a','b']`,
// `[*]` / `.*`, `[n]`, `[a,b,c]`, `[start:end]` (negative indices count from the end). A CSV record
// is the array of its cells. https://docs.aws.amazon.com/sagemaker/latest/dg/batch-transform-data-processing.html
export type Step =
  | { readonly t: 'name'; readonly names: readonly string[] }
  | { readonly t: 'index'; readonly indices: readonly number[] }
  | { readonly t: 'slice'; readonly start?: number; readonly end?: number }
  | { readonly t: 'all' };

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

/** Parses a filter; throws JsonPathError naming what is not in the subset. */
export function parseJsonPath(path: string): Step[] {
  const s = path.trim();
  if (!s.startsWith('$')) throw new JsonPathError(`JSONPath "${path}" must start with $.`);
  const steps: Step[] = [];
  let i = 1;
  while (i < s.length) {
    if (s[i] === '.') {
      const m = /^\.(\*|[A-Za-z_][A-Za-z0-9_-]*)/.exec(s.slice(i));
      if (!m) throw new JsonPathError(`JSONPath "${path}": unsupported expression at "${s.slice(i)}".`);
      steps.push(m[1] === '*' ? { t: 'all' } : { t: 'name', names: [m[1]!] });
      i += m[0].length;
    } else if (s[i] === '[') {
      const close = s.indexOf(']', i);
      if (close < 0) throw new JsonPathError(`JSONPath "${path}": missing ].`);
      steps.push(bracket(s.slice(i + 1, close).trim(), path));
      i = close + 1;
    } else {
      throw new JsonPathError(`JSONPath "${path}": unsupported expression at "${s.slice(i)}".`);
    }
  }
  return steps;
}

function bracket(inner: string, path: string): Step {
  if (inner === '*') return { t: 'all' };
  const parts = inner.split(',').map((p) => p.trim());
  if (parts.every((p) => /^'[^']*'$|^"[^"]*"$/.test(p))) return { t: 'name', names: parts.map((p) => p.slice(1, -1)) };
  if (parts.length === 1 && parts[0]!.includes(':')) {
    const m = /^(-?\d+)?\s*:\s*(-?\d+)?$/.exec(parts[0]!);
    if (!m) throw new JsonPathError(`JSONPath "${path}": unsupported slice [${inner}].`);
    return {
      t: 'slice',
      start: m[1] === undefined ? undefined : Number(m[1]),
      end: m[2] === undefined ? undefined : Number(m[2]),
    };
  }
  if (parts.every((p) => /^-?\d+$/.test(p))) return { t: 'index', indices: parts.map(Number) };
  throw new JsonPathError(`JSONPath "${path}": unsupported selector [${inner}].`);
}

const at = (a: readonly unknown[], i: number) => a[i < 0 ? a.length + i : i];

/** Applies the steps; a selector that finds nothing yields undefined. */
export function applyJsonPath(steps: readonly Step[], value: unknown): unknown {
  let v = value;
  for (const step of steps) {
    if (v === undefined || v === null) return undefined;
    switch (step.t) {
      case 'name':
        if (typeof v !== 'object' || Array.isArray(v)) return undefined;
        if (step.names.length === 1) v = (v as Record<string, unknown>)[step.names[0]!];
        else {
          const o = v as Record<string, unknown>;
          v = Object.fromEntries(step.names.filter((n) => n in o).map((n) => [n, o[n]]));
        }
        break;
      case 'index':
        if (!Array.isArray(v)) return undefined;
        v = step.indices.length === 1 ? at(v, step.indices[0]!) : step.indices.map((i) => at(v as unknown[], i));
        break;
      case 'slice':
        if (!Array.isArray(v)) return undefined;
        v = v.slice(step.start, step.end);
        break;
      case 'all':
        v = Array.isArray(v) ? v : typeof v === 'object' ? Object.values(v as object) : undefined;
        break;
    }
  }
  return v;
}
