// GraphSON v3 bytecode (what gremlin drivers send with op "bytecode") → the same step list the
// Groovy parser produces, and GraphSON v3 typed values → engine values.
// https://tinkerpop.apache.org/docs/3.7.2/dev/io/#graphson-3d0 (g:Bytecode, g:P, g:T, ...)
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import { type Arg, combinePred, makePred, Pred, type Step, Traversal } from './steps.js';
import { MAX_NESTING, nestingError } from './limits.js';
import { GMap, Num, Token, type Value } from './values.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const ENUM_TYPES: Record<string, Token['type']> = {
  'g:T': 'T',
  'g:Direction': 'Direction',
  'g:Order': 'Order',
  'g:Column': 'Column',
  'g:Scope': 'Scope',
  'g:Pop': 'Pop',
  'g:Cardinality': 'Cardinality',
};

let depth = 0;

/** One GraphSON v3 value (typed or plain JSON) → an argument. Nesting is bounded (MAX_NESTING). */
export function readArg(j: Json): Arg {
  if (j === null || typeof j !== 'object') return readValue(j);
  // JSON.parse builds any depth without recursion; reading it back must not overflow the stack.
  if (++depth > MAX_NESTING) {
    depth = 0;
    throw nestingError();
  }
  try {
    return readValue(j);
  } finally {
    depth = Math.max(0, depth - 1);
  }
}

function readValue(j: Json): Arg {
  if (j === null || typeof j === 'string' || typeof j === 'boolean') return j;
  if (typeof j === 'number') {
    // Untyped JSON numbers (the JS driver writes plain numbers): integers as Int32/Int64.
    if (Number.isInteger(j)) return Math.abs(j) <= 2147483647 ? Num.int(j) : Num.long(j);
    return Num.double(j);
  }
  if (Array.isArray(j)) return j.map(readArg);
  const type = j['@type'];
  const v = j['@value'] as Json;
  if (typeof type !== 'string') {
    // A plain JSON object: a map of string keys.
    return GMap.of(Object.entries(j).map(([k, x]) => [k, readArg(x) as Value]));
  }
  switch (type) {
    case 'g:Int32':
      return Num.int(Number(v));
    case 'g:Int64':
      return Num.long(Number(v));
    case 'g:Double':
      return Num.double(Number(v));
    case 'g:Float':
      return new Num(Number(v), 'float');
    case 'gx:Byte':
    case 'gx:Int16':
      return Num.int(Number(v));
    case 'gx:BigInteger':
    case 'gx:BigDecimal':
      return Num.double(Number(v));
    case 'g:Date':
    case 'g:Timestamp':
      return new Date(Number(v));
    case 'g:UUID':
    case 'g:Class':
      return String(v);
    case 'g:List':
    case 'g:Set':
    case 'g:BulkSet':
      return ((v as Json[]) ?? []).map(readArg);
    case 'g:Map': {
      const items = (v as Json[]) ?? [];
      const m = new GMap();
      for (let i = 0; i + 1 < items.length; i += 2) m.set(readArg(items[i]!) as Value, readArg(items[i + 1]!) as Value);
      return m;
    }
    case 'g:P':
    case 'g:TextP':
      return readPred(v as { predicate: string; value: Json });
    case 'g:Bytecode':
      return new Traversal(readBytecode(j).steps);
    case 'g:Lambda':
      // DEVIATION(neptune): like Neptune, lambdas are not accepted.
      throw new MalformedQueryException('Lambdas are not supported');
    default: {
      if (type.endsWith('Strategy')) {
        // withStrategies(OptionsStrategy{...}) from g.with_(): its configuration as a map.
        const conf = ((v as { conf?: Record<string, Json> } | null)?.conf ?? {}) as Record<string, Json>;
        return GMap.of(Object.entries(conf).map(([k, x]) => [k, readArg(x) as Value]));
      }
      const enumType = ENUM_TYPES[type];
      if (enumType) return new Token(enumType, String(v));
      throw new MalformedQueryException(`Unsupported GraphSON type in bytecode: ${type}`);
    }
  }
}

function readPred(p: { predicate: string; value: Json }): Pred {
  if (p.predicate === 'and' || p.predicate === 'or') {
    const [a, b] = (p.value as Json[]).map(readArg);
    if (!(a instanceof Pred) || !(b instanceof Pred))
      throw new MalformedQueryException(`${p.predicate}() takes predicates`);
    return combinePred(p.predicate, a, b);
  }
  const value = readArg(p.value);
  if (p.predicate === 'not') return makePred('not', [value]);
  // within/without carry one list; between/inside/outside a list of two.
  if (p.predicate === 'within' || p.predicate === 'without')
    return makePred(p.predicate, [Array.isArray(value) ? value : [value as Value]]);
  if (['between', 'inside', 'outside'].includes(p.predicate) && Array.isArray(value))
    return makePred(p.predicate, value);
  return makePred(p.predicate, [value]);
}

export interface Bytecode {
  readonly steps: Step[];
  /** Source instructions (withStrategies, withSideEffect, ...), by name. */
  readonly sources: Step[];
}

/** `{"@type":"g:Bytecode","@value":{"step":[["V"],["out","knows"]],"source":[...]}}` */
export function readBytecode(j: Json): Bytecode {
  if (j === null || typeof j !== 'object' || Array.isArray(j) || j['@type'] !== 'g:Bytecode')
    throw new MalformedQueryException('The request gremlin argument is not g:Bytecode');
  const body = (j['@value'] ?? {}) as { step?: Json[][]; source?: Json[][] };
  const conv = (ins: Json[][] | undefined): Step[] =>
    (ins ?? []).map((i) => {
      if (!Array.isArray(i) || typeof i[0] !== 'string')
        throw new MalformedQueryException('Malformed bytecode instruction');
      return { name: i[0], args: i.slice(1).map(readArg) };
    });
  return { steps: conv(body.step), sources: conv(body.source) };
}
