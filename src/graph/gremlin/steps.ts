// The step list both front ends produce (Gremlin-Groovy strings and GraphSON bytecode) and the
// engine runs: one instruction per step, arguments as values, predicates or nested traversals.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#graph-traversal-steps
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import { compareValues, Num, show, type Value, valueEquals } from './values.js';

export interface Step {
  readonly name: string;
  readonly args: readonly Arg[];
}

/** A traversal: the root one (starting with V/E/inject/addV...) or an anonymous `__.` one. */
export class Traversal {
  constructor(readonly steps: readonly Step[]) {}
}

export type Arg = Value | Pred | Traversal | Arg[];

/** P and TextP predicates, with and/or/negate as TinkerPop composes them. */
export class Pred {
  constructor(
    readonly op: string,
    readonly value: Value | readonly Pred[],
    readonly other?: Value,
  ) {}

  test(v: Value): boolean {
    const x = this.value as Value;
    switch (this.op) {
      case 'eq':
        return eq(v, x);
      case 'neq':
        return !eq(v, x);
      case 'lt':
        return cmp(v, x, (c) => c < 0);
      case 'lte':
        return cmp(v, x, (c) => c <= 0);
      case 'gt':
        return cmp(v, x, (c) => c > 0);
      case 'gte':
        return cmp(v, x, (c) => c >= 0);
      case 'within':
        return (x as Value[]).some((w) => eq(v, w));
      case 'without':
        return !(x as Value[]).some((w) => eq(v, w));
      case 'between':
        return cmp(v, x, (c) => c >= 0) && cmp(v, this.other!, (c) => c < 0);
      case 'inside':
        return cmp(v, x, (c) => c > 0) && cmp(v, this.other!, (c) => c < 0);
      case 'outside':
        return cmp(v, x, (c) => c < 0) || cmp(v, this.other!, (c) => c > 0);
      case 'containing':
        return typeof v === 'string' && v.includes(x as string);
      case 'notContaining':
        return typeof v === 'string' && !v.includes(x as string);
      case 'startingWith':
        return typeof v === 'string' && v.startsWith(x as string);
      case 'notStartingWith':
        return typeof v === 'string' && !v.startsWith(x as string);
      case 'endingWith':
        return typeof v === 'string' && v.endsWith(x as string);
      case 'notEndingWith':
        return typeof v === 'string' && !v.endsWith(x as string);
      case 'and':
        return (this.value as Pred[]).every((p) => p.test(v));
      case 'or':
        return (this.value as Pred[]).some((p) => p.test(v));
      case 'not':
        return !(this.value as Pred[])[0]!.test(v);
      default:
        throw new MalformedQueryException(`Unsupported predicate: ${this.op}`);
    }
  }

  toString(): string {
    if (this.op === 'and' || this.op === 'or') return (this.value as Pred[]).map(String).join(`.${this.op}(`);
    return `${this.op}(${show(this.value as Value)}${this.other !== undefined ? `, ${show(this.other)}` : ''})`;
  }
}

/** TinkerPop compares numbers by value across types (29 == 29L), everything else by equality. */
function eq(a: Value, b: Value): boolean {
  if (a instanceof Num && b instanceof Num) return a.v === b.v;
  return valueEquals(a, b);
}

function cmp(a: Value, b: Value, ok: (c: number) => boolean): boolean {
  const c = compareValues(a, b);
  return c !== undefined && ok(c);
}

export const P_OPS = new Set([
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'within',
  'without',
  'between',
  'inside',
  'outside',
  'not',
]);
export const TEXTP_OPS = new Set([
  'containing',
  'notContaining',
  'startingWith',
  'notStartingWith',
  'endingWith',
  'notEndingWith',
]);

/** Builds a predicate from its name and arguments, as P.x(...) / TextP.x(...) do. */
export function makePred(op: string, args: readonly Arg[]): Pred {
  const val = (a: Arg | undefined): Value => {
    if (a === undefined || a instanceof Pred || a instanceof Traversal)
      throw new MalformedQueryException(`${op}() needs a value`);
    return a as Value;
  };
  switch (op) {
    case 'within':
    case 'without': {
      // within(a, b, c) and within([a, b, c]) are the same predicate.
      const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as Value[]) : args.map(val);
      return new Pred(op, list);
    }
    case 'between':
    case 'inside':
    case 'outside':
      if (args.length !== 2) throw new MalformedQueryException(`${op}() takes two values`);
      return new Pred(op, val(args[0]), val(args[1]));
    case 'not':
      if (!(args[0] instanceof Pred)) throw new MalformedQueryException('P.not() takes a predicate');
      return new Pred('not', [args[0]]);
    default:
      if (!P_OPS.has(op) && !TEXTP_OPS.has(op)) throw new MalformedQueryException(`Unsupported predicate: ${op}`);
      if (args.length !== 1) throw new MalformedQueryException(`${op}() takes one value`);
      if (TEXTP_OPS.has(op) && typeof args[0] !== 'string')
        throw new MalformedQueryException(`TextP.${op}() takes a string`);
      return new Pred(op, val(args[0]));
  }
}

export function combinePred(op: 'and' | 'or', a: Pred, b: Pred): Pred {
  return new Pred(op, [a, b]);
}
