// SearchExpression: Filters, NestedFilters and SubExpressions joined by And or Or, checked against
// the record's shape and evaluated on a record document.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_SearchExpression.html
import type { Filter, SearchExpression } from '../../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../../protocol/common-errors.js';
import { isList, type ResolvedPath, resolvePath, type ValueType, valuesAt } from './paths.js';

/** "The maximum number of recursive SubExpressions, NestedFilters, and Filters ... is 50." */
export const MAX_CONDITIONS = 50;
// DEVIATION(aws): SageMaker documents no depth limit apart from the count; a depth of 5 keeps evaluation shallow.
export const MAX_DEPTH = 5;

type Op = NonNullable<Filter['Operator']>;

export interface Condition {
  readonly resolved: ResolvedPath;
  readonly op: Op;
  /** The Value as compared: numbers for numeric and timestamp paths, text otherwise; a list for In. */
  readonly value?: number | string | readonly string[];
  readonly text?: string;
}

export type Expr =
  | { readonly kind: 'filter'; readonly condition: Condition }
  | { readonly kind: 'nested'; readonly list: ResolvedPath; readonly conditions: readonly Condition[] }
  | { readonly kind: 'bool'; readonly and: boolean; readonly parts: readonly Expr[] };

const RANGE: ReadonlySet<Op> = new Set(['GreaterThan', 'GreaterThanOrEqualTo', 'LessThan', 'LessThanOrEqualTo']);

// Where AWS's exact wording is not published, messages follow the Filter documentation's own terms.
function unknownProperty(name: string, resource: string): ValidationException {
  return new ValidationException(`The property name '${name}' is not a valid property for resource type ${resource}.`);
}

/** A timestamp Value: ISO 8601 ("YYYY-mm-dd'T'HH:MM:SS", as documented) or epoch seconds. */
function parseTime(v: string): number {
  const n = Number(v);
  return Number.isFinite(n) && v.trim() !== '' ? n * 1000 : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
}

function condition(f: Filter, name: string, resolved: ResolvedPath | undefined, resource: string): Condition {
  if (!resolved) throw unknownProperty(f.Name, resource);
  // "If you specify a Value, but not an Operator, SageMaker uses the equals operator"; neither: the property exists.
  const op: Op = f.Operator ?? (f.Value === undefined ? 'Exists' : 'Equals');
  if (op === 'Exists' || op === 'NotExists') return { resolved, op };
  if (f.Value === undefined)
    throw new ValidationException(`A value is required for the ${op} operator (property '${name}').`);
  const type: ValueType = resolved.type;
  if (RANGE.has(op) && type === 'string') {
    throw new ValidationException(`The ${op} operator is not supported for text property '${name}'.`);
  }
  if ((op === 'Contains' || op === 'In') && (type === 'number' || type === 'timestamp')) {
    throw new ValidationException(`The ${op} operator is only supported for text properties, not '${name}'.`);
  }
  if (op === 'In') return { resolved, op, value: f.Value.split(',').map((s) => s.trim()), text: f.Value };
  if (type === 'number' || type === 'timestamp') {
    const n = type === 'number' ? Number(f.Value) : parseTime(f.Value);
    if (!Number.isFinite(n) || f.Value.trim() === '') {
      throw new ValidationException(
        `The value '${f.Value}' of property '${name}' must be a ${type === 'number' ? 'number' : 'timestamp'}.`,
      );
    }
    return { resolved, op, value: n, text: f.Value };
  }
  return { resolved, op, value: f.Value, text: f.Value };
}

/** Checks an expression against the record shape `root` of `resource` and compiles it. */
export function compile(expr: SearchExpression, root: string, resource: string): Expr {
  let count = 0;
  let contains = 0;
  const filter = (f: Filter, prefix = ''): Condition => {
    count++;
    const c = condition(f, f.Name, resolvePath(root, f.Name), resource);
    if (c.op === 'Contains' && ++contains > 1) {
      // The Filter documentation's own words for a second Contains.
      throw new ValidationException("A SearchExpression can't include more than one Contains operator.");
    }
    if (prefix && !f.Name.startsWith(`${prefix}.`)) {
      throw new ValidationException(`Nested filter property '${f.Name}' must start with '${prefix}.'.`);
    }
    return c;
  };
  const walk = (e: SearchExpression, depth: number): Expr => {
    if (depth > MAX_DEPTH)
      throw new ValidationException(`A SearchExpression can be nested at most ${MAX_DEPTH} levels deep.`);
    const parts: Expr[] = [];
    for (const f of e.Filters ?? []) parts.push({ kind: 'filter', condition: filter(f) });
    for (const n of e.NestedFilters ?? []) {
      count++;
      if (!isList(root, n.NestedPropertyName)) throw unknownProperty(n.NestedPropertyName, resource);
      const conditions = n.Filters.map((f) => filter(f, n.NestedPropertyName));
      parts.push({ kind: 'nested', list: { path: n.NestedPropertyName, type: 'string', steps: [] }, conditions });
    }
    for (const s of e.SubExpressions ?? []) {
      count++;
      parts.push(walk(s, depth + 1));
    }
    if (parts.length === 0) {
      throw new ValidationException(
        'A SearchExpression must include at least one Filter, NestedFilter or SubExpression.',
      );
    }
    if (count > MAX_CONDITIONS) {
      throw new ValidationException(
        `The maximum number of recursive SubExpressions, NestedFilters, and Filters in a SearchExpression is ${MAX_CONDITIONS}.`,
      );
    }
    return { kind: 'bool', and: e.Operator !== 'Or', parts };
  };
  return walk(expr, 1);
}

function compare(c: Condition, v: number | string): boolean {
  let a: number | string = v;
  let b = c.value as number | string;
  if (c.resolved.type === 'parameter') {
    // A NumberValue compares as a number when the Value is one; a StringValue as text.
    if (typeof v === 'number') {
      const n = Number(c.text);
      if (!Number.isFinite(n)) return c.op === 'NotEquals';
      b = n;
    } else b = String(c.text);
  } else if (typeof a === 'number' && typeof b === 'string') a = String(a);
  switch (c.op) {
    case 'Equals':
      return a === b;
    case 'NotEquals':
      return a !== b;
    case 'GreaterThan':
      return typeof a === typeof b && a > b;
    case 'GreaterThanOrEqualTo':
      return typeof a === typeof b && a >= b;
    case 'LessThan':
      return typeof a === typeof b && a < b;
    case 'LessThanOrEqualTo':
      return typeof a === typeof b && a <= b;
    // DEVIATION(aws): case-insensitive, as Studio's search box behaves; SageMaker does not document case.
    case 'Contains':
      return String(a).toLowerCase().includes(String(b).toLowerCase());
    case 'In':
      return (c.value as readonly string[]).includes(String(a));
    default:
      return false;
  }
}

/** Whether a document satisfies one condition (any of its values at the path, for list paths). */
export function test(c: Condition, doc: unknown): boolean {
  const values = valuesAt(doc, c.resolved.steps);
  if (c.op === 'Exists') return values.length > 0;
  if (c.op === 'NotExists') return values.length === 0;
  if (c.op === 'NotEquals') return values.length > 0 && values.every((v) => compare(c, v));
  return values.some((v) => compare(c, v));
}

export function matches(e: Expr, doc: unknown): boolean {
  if (e.kind === 'filter') return test(e.condition, doc);
  if (e.kind === 'nested') {
    // One element of the list must satisfy every filter: test each element on its own.
    const listPath = e.list.path.split('.');
    let elements: unknown[] = [doc];
    for (const seg of listPath)
      elements = elements.flatMap((x) => (x as Record<string, unknown> | undefined)?.[seg] ?? []);
    return elements.some((el) => e.conditions.every((c) => test(c, wrap(listPath, el))));
  }
  return e.and ? e.parts.every((p) => matches(p, doc)) : e.parts.some((p) => matches(p, doc));
}

/** A document holding only `el` at `path`, so a full-path condition sees one element. */
function wrap(path: readonly string[], el: unknown): unknown {
  return path.reduceRight<unknown>((inner, seg, i) => ({ [seg]: i === path.length - 1 ? [inner] : inner }), el);
}
