// Python's int() / float() / str() / repr() as the container's hyperparameter validation applies
// them (sagemaker_algorithm_toolkit/hyperparameter_validation.py), so values parse and messages read
// the same: "Hyperparameter eta: 1.5 is not in [0, 1]", "value ['rmse', 'foo'] not in range [...]".

import { parsePythonFloat, pyFloatRepr } from '../../../inference/runtimes/xgboost/serving.js';

export { parsePythonFloat };

/** A parsed value: Python int (kept exact as bigint), float, str, or lists/tuples of them. */
export type PyValue = bigint | PyFloat | string | PyValue[] | PyTuple;
export class PyFloat {
  constructor(readonly value: number) {}
}
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

const INT_RE = /^[+-]?\d+(?:_\d+)*$/;

/** int(str): surrounding whitespace, a sign, digits with single underscores. */
export function parsePythonInt(s: string): bigint | undefined {
  const t = s.trim();
  if (!INT_RE.test(t)) return undefined;
  return BigInt(t.replace(/_/g, ''));
}

/** repr() of a str, as Python quotes it. */
export function pyStrRepr(s: string): string {
  const body = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  if (s.includes("'") && !s.includes('"')) return `"${body}"`;
  return `'${body.replace(/'/g, "\\'")}'`;
}

/** str() of a value (strings bare), as in "Hyperparameter booster: x is not in [...]". */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** repr() of a value (strings quoted), as inside a list. */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof PyTuple)
    return v.items.length === 1 ? `(${pyRepr(v.items[0])},)` : `(${v.items.map(pyRepr).join(', ')})`;
  return `[${v.map(pyRepr).join(', ')}]`;
}

/** A list of Python literals as the container prints its ranges: ['gbtree', 'gblinear', 'dart']. */
export function pyList(items: readonly (string | number)[]): string {
  return `[${items.map((x) => (typeof x === 'string' ? pyStrRepr(x) : String(x))).join(', ')}]`;
}

/**
 * A literal of nested lists/tuples of integers, what monotone_constraints (eval) and
 * interaction_constraints (ast.literal_eval) accept in practice: "(1,0,-1)", "[[0, 1], [2]]".
 */
export function parseIntLiteral(s: string): PyValue | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const value = (): PyValue | undefined => {
    ws();
    const c = s[i];
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      i++;
      const items: PyValue[] = [];
      let trailingComma = false;
      ws();
      while (s[i] !== close) {
        const v = value();
        if (v === undefined) return undefined;
        items.push(v);
        ws();
        trailingComma = false;
        if (s[i] === ',') {
          i++;
          trailingComma = true;
          ws();
        } else if (s[i] !== close) return undefined;
      }
      i++;
      if (close === ')' && items.length === 1 && !trailingComma) return items[0]; // (1) is 1
      return close === ']' ? items : new PyTuple(items);
    }
    const m = /^[+-]?\d+/.exec(s.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return BigInt(m[0]);
  };
  const v = value();
  ws();
  if (v === undefined) return undefined;
  if (i === s.length) return v;
  // a bare "1,0,-1" is a tuple to eval()
  if (s[i] !== ',') return undefined;
  const items: PyValue[] = [v];
  while (i < s.length && s[i] === ',') {
    i++;
    ws();
    if (i === s.length) break;
    const next = value();
    if (next === undefined) return undefined;
    items.push(next);
    ws();
  }
  return i === s.length ? new PyTuple(items) : undefined;
}
