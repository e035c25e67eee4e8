// A Condition step's conditions, as the SDK's sagemaker.workflow.conditions writes them: Equals,
// GreaterThan, GreaterThanOrEqualTo, LessThan, LessThanOrEqualTo (LeftValue, RightValue), In
// (QueryValue, Values), Not (Condition), Or (Conditions); the step's list is their conjunction.
// https://docs.aws.amazon.com/sagemaker/latest/dg/build-and-manage-steps-types.html#step-type-condition
import {
  asNumber,
  collectReferences,
  evaluate,
  ExpressionError,
  FloatValue,
  type Json,
  type Reference,
  type Scope,
  type Value,
} from './expressions.js';

export const COMPARISONS = ['Equals', 'GreaterThan', 'GreaterThanOrEqualTo', 'LessThan', 'LessThanOrEqualTo'] as const;
export const CONDITION_TYPES = [...COMPARISONS, 'In', 'Not', 'Or'] as const;

const isObject = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Checks a condition's shape and collects its references; throws ExpressionError naming the problem. */
export function checkCondition(c: Json, out: Reference[]): void {
  if (!isObject(c) || typeof c.Type !== 'string')
    throw new ExpressionError('A condition must be an object with a "Type".');
  const type = c.Type;
  if ((COMPARISONS as readonly string[]).includes(type)) {
    if (!('LeftValue' in c) || !('RightValue' in c))
      throw new ExpressionError(`A condition of type ${type} needs "LeftValue" and "RightValue".`);
    collectReferences(c.LeftValue!, out);
    collectReferences(c.RightValue!, out);
  } else if (type === 'In') {
    if (!('QueryValue' in c) || !Array.isArray(c.Values))
      throw new ExpressionError('A condition of type In needs "QueryValue" and a list of "Values".');
    collectReferences(c.QueryValue!, out);
    collectReferences(c.Values, out);
  } else if (type === 'Not') {
    if (!('Condition' in c)) throw new ExpressionError('A condition of type Not needs a "Condition".');
    checkCondition(c.Condition!, out);
  } else if (type === 'Or') {
    if (!Array.isArray(c.Conditions) || c.Conditions.length === 0)
      throw new ExpressionError('A condition of type Or needs a non-empty list of "Conditions".');
    for (const x of c.Conditions) checkCondition(x, out);
  } else {
    throw new ExpressionError(`Unknown condition type ${type}; expected one of ${CONDITION_TYPES.join(', ')}.`);
  }
}

/** Whether every condition of the list holds. */
export async function evaluateConditions(conditions: readonly Json[], scope: Scope): Promise<boolean> {
  for (const c of conditions) if (!(await evaluateCondition(c, scope))) return false;
  return true;
}

async function evaluateCondition(c: Json, scope: Scope): Promise<boolean> {
  const cond = c as Record<string, Json>;
  switch (cond.Type) {
    case 'Not':
      return !(await evaluateCondition(cond.Condition!, scope));
    case 'Or':
      for (const x of cond.Conditions as Json[]) if (await evaluateCondition(x, scope)) return true;
      return false;
    case 'In': {
      const q = await evaluate(cond.QueryValue!, scope);
      for (const x of cond.Values as Json[]) if (equal(q, await evaluate(x, scope))) return true;
      return false;
    }
    default: {
      const left = await evaluate(cond.LeftValue!, scope);
      const right = await evaluate(cond.RightValue!, scope);
      if (cond.Type === 'Equals') return equal(left, right);
      const order = compare(left, right, cond.Type as string);
      switch (cond.Type) {
        case 'GreaterThan':
          return order > 0;
        case 'GreaterThanOrEqualTo':
          return order >= 0;
        case 'LessThan':
          return order < 0;
        default:
          return order <= 0;
      }
    }
  }
}

const scalar = (v: Value) => (v instanceof FloatValue ? v.value : v);

/** Equality: numbers as numbers (a numeric string equals its number), anything else by value. */
function equal(a: Value, b: Value): boolean {
  const x = asNumber(a);
  const y = asNumber(b);
  const numeric = (v: Value) => typeof v === 'number' || v instanceof FloatValue;
  if (x !== undefined && y !== undefined && (numeric(a) || numeric(b))) return x === y;
  return JSON.stringify(scalar(a)) === JSON.stringify(scalar(b));
}

/** Ordering: numbers (and numeric strings beside a number) numerically, two strings as text. */
function compare(a: Value, b: Value, type: string): number {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new ExpressionError(
    `The condition ${type} cannot compare ${JSON.stringify(scalar(a))} with ${JSON.stringify(scalar(b))}: both must be numbers or both strings.`,
  );
}
