// Gremlin-Groovy traversal strings (what the Gremlin console, curl and neptunedata's
// ExecuteGremlinQuery send) → the step list: a recursive-descent parser for the traversal subset.
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-differences.html
// https://tinkerpop.apache.org/docs/3.7.2/reference/#gremlin-variants (Groovy syntax)
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import { type Arg, combinePred, makePred, P_OPS, Pred, type Step, TEXTP_OPS, Traversal } from './steps.js';
import { MAX_NESTING, nestingError } from './limits.js';
import { Num, Token, type Value } from './values.js';

type Tok =
  | { k: 'id'; v: string; at: number }
  | { k: 'str'; v: string; at: number }
  | { k: 'num'; v: Num; at: number }
  | { k: 'p'; v: string; at: number }
  | { k: 'eof'; v: ''; at: number };

/** Enum classes whose values may be written qualified (`T.id`) or, as Neptune allows, bare (`id`). */
const ENUMS: Record<string, Token['type']> = {
  T: 'T',
  Direction: 'Direction',
  Order: 'Order',
  Column: 'Column',
  Scope: 'Scope',
  Pop: 'Pop',
  Cardinality: 'Cardinality',
  WithOptions: 'WithOptions',
};

const BARE_TOKENS: Record<string, Token> = {
  id: new Token('T', 'id'),
  label: new Token('T', 'label'),
  key: new Token('T', 'key'),
  value: new Token('T', 'value'),
  asc: new Token('Order', 'asc'),
  desc: new Token('Order', 'desc'),
  incr: new Token('Order', 'asc'),
  decr: new Token('Order', 'desc'),
  shuffle: new Token('Order', 'shuffle'),
  keys: new Token('Column', 'keys'),
  values: new Token('Column', 'values'),
  local: new Token('Scope', 'local'),
  global: new Token('Scope', 'global'),
  first: new Token('Pop', 'first'),
  last: new Token('Pop', 'last'),
  all: new Token('Pop', 'all'),
  mixed: new Token('Pop', 'mixed'),
  single: new Token('Cardinality', 'single'),
  set: new Token('Cardinality', 'set'),
  list: new Token('Cardinality', 'list'),
  OUT: new Token('Direction', 'OUT'),
  IN: new Token('Direction', 'IN'),
  BOTH: new Token('Direction', 'BOTH'),
  from: new Token('Direction', 'OUT'),
  to: new Token('Direction', 'IN'),
};

/** Terminal methods: they run the traversal rather than add a step. */
const TERMINALS = new Set(['toList', 'toSet', 'next', 'iterate', 'toBulkSet', 'tryNext', 'hasNext']);

function fail(src: string, at: number, msg: string): never {
  const before = src.slice(0, at);
  const line = before.split('\n').length;
  const col = at - before.lastIndexOf('\n');
  throw new MalformedQueryException(
    `Failed to interpret Gremlin query: Query parsing failed at line ${line}, character position at ${col}, error message : ${msg}`,
  );
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  "'": "'",
  '"': '"',
  '\\': '\\',
  $: '$',
};

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const at = i;
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) fail(src, at, 'unterminated string literal');
        const d = src[i]!;
        if (d === c) break;
        if (d === '\\') {
          const e = src[i + 1] ?? '';
          if (e === 'u') {
            const hex = src.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(src, i, 'bad \\u escape');
            s += String.fromCharCode(Number.parseInt(hex, 16));
            i += 6;
            continue;
          }
          if (!(e in ESCAPES)) fail(src, i, `bad escape \\${e}`);
          s += ESCAPES[e];
          i += 2;
          continue;
        }
        s += d;
        i++;
      }
      i++;
      out.push({ k: 'str', v: s, at });
      continue;
    }
    const num = /^(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)([lLdDfFiI]?)/.exec(src.slice(i, i + 64));
    if (num && /\d/.test(c)) {
      const [text, digits, suffix] = num as unknown as [string, string, string];
      const n = Number(digits);
      const s = suffix.toLowerCase();
      const isInt = /^\d+$/.test(digits);
      let v: Num;
      if (s === 'l') v = Num.long(n);
      else if (s === 'd') v = Num.double(n);
      else if (s === 'f') v = new Num(Math.fround(n), 'float');
      // Groovy: an integer literal is an Integer, or a Long when it does not fit; a decimal is a
      // BigDecimal, which Neptune treats as a double.
      else if (isInt) v = n <= 2147483647 ? Num.int(n) : Num.long(n);
      else v = Num.double(n);
      out.push({ k: 'num', v, at: i });
      i += text.length;
      continue;
    }
    const id = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 256));
    if (id) {
      out.push({ k: 'id', v: id[0], at: i });
      i += id[0].length;
      continue;
    }
    if ('().,[];:-'.includes(c)) {
      out.push({ k: 'p', v: c, at: i });
      i++;
      continue;
    }
    fail(src, i, `token recognition error at: '${c}'`);
  }
  out.push({ k: 'eof', v: '', at: src.length });
  return out;
}

class Parser {
  #i = 0;
  #depth = 0;
  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
  ) {}

  peek(o = 0): Tok {
    return this.toks[Math.min(this.#i + o, this.toks.length - 1)]!;
  }
  next(): Tok {
    return this.toks[this.#i++]!;
  }
  isP(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.k === 'p' && t.v === v;
  }
  expectP(v: string): void {
    const t = this.next();
    if (t.k !== 'p' || t.v !== v) fail(this.src, t.at, `expected '${v}' but found '${t.v || 'end of query'}'`);
  }
  ident(): string {
    const t = this.next();
    if (t.k !== 'id') fail(this.src, t.at, `expected a name but found '${t.v || 'end of query'}'`);
    return t.v;
  }

  /** query := statement (';' statement)* ';'? — Neptune runs them in order and returns the last. */
  query(): Step[][] {
    const statements: Step[][] = [];
    for (;;) {
      while (this.isP(';')) this.next();
      if (this.peek().k === 'eof') break;
      statements.push(this.statement());
      if (!this.isP(';') && this.peek().k !== 'eof')
        fail(this.src, this.peek().at, `unexpected '${this.peek().v}' after the traversal`);
    }
    if (statements.length === 0) fail(this.src, 0, 'empty query');
    return statements;
  }

  statement(): Step[] {
    const t = this.next();
    if (t.k !== 'id' || t.v !== 'g') {
      fail(this.src, t.at, `a query must start with the traversal source 'g', found '${t.v || 'end of query'}'`);
    }
    const steps = this.chain(true);
    if (steps.length === 0) fail(this.src, this.peek().at, "expected a step after 'g'");
    return steps;
  }

  /** ('.' name '(' args ')')* */
  chain(root: boolean): Step[] {
    const steps: Step[] = [];
    while (this.isP('.')) {
      this.next();
      const nameTok = this.peek();
      const name = this.ident();
      if (!this.isP('(')) fail(this.src, this.peek().at, `expected '(' after '${name}'`);
      const args = this.args();
      if (TERMINALS.has(name)) {
        if (!root) fail(this.src, nameTok.at, `${name}() ends a traversal and cannot be used inside one`);
        // next()/next(n) keep the first results; iterate() runs the traversal and returns nothing.
        if (name === 'next' || name === 'tryNext') steps.push({ name: 'limit', args: [args[0] ?? Num.long(1)] });
        else if (name === 'iterate') steps.push({ name: 'none', args: [] });
        else if (name === 'hasNext') steps.push({ name: 'hasNext', args: [] });
        if (!this.isP(';') && this.peek().k !== 'eof')
          fail(this.src, this.peek().at, `${name}() must be the last call of a traversal`);
        return steps;
      }
      steps.push({ name, args });
    }
    return steps;
  }

  args(): Arg[] {
    return this.items('(', ')');
  }

  /** Comma-separated arguments between an opening and a closing bracket. */
  items(open: string, close: string): Arg[] {
    this.expectP(open);
    const out: Arg[] = [];
    if (this.isP(close)) {
      this.next();
      return out;
    }
    for (;;) {
      out.push(this.arg());
      if (this.isP(',')) {
        this.next();
        continue;
      }
      this.expectP(close);
      return out;
    }
  }

  arg(): Arg {
    // Nesting bound: a hostile query cannot exhaust the stack.
    if (++this.#depth > MAX_NESTING) throw nestingError();
    try {
      return this.argInner();
    } finally {
      this.#depth--;
    }
  }

  argInner(): Arg {
    const t = this.peek();
    if (t.k === 'str') {
      this.next();
      return t.v;
    }
    if (t.k === 'num') {
      this.next();
      return t.v;
    }
    if (t.k === 'p' && t.v === '-' && this.peek(1).k === 'num') {
      this.next();
      const n = (this.next() as { v: Num }).v;
      return new Num(-n.v, n.t);
    }
    if (t.k === 'p' && t.v === '[') return this.list();
    if (t.k !== 'id') fail(this.src, t.at, `unexpected '${t.v || 'end of query'}'`);
    const name = t.v;
    if (name === 'true' || name === 'false') {
      this.next();
      return name === 'true';
    }
    if (name === 'null') {
      this.next();
      return null;
    }
    if (name === '__') {
      this.next();
      return new Traversal(this.chain(false));
    }
    if (name === 'P' || name === 'TextP') {
      this.next();
      this.expectP('.');
      const op = this.ident();
      if (!(name === 'P' ? P_OPS : TEXTP_OPS).has(op))
        fail(this.src, t.at, `${name}.${op} is not a supported predicate`);
      return this.predTail(makePred(op, this.args()));
    }
    if (name === 'datetime') {
      // Neptune's datetime('2018-01-01T00:00:00') for dates in string queries.
      this.next();
      const a = this.args();
      const d = typeof a[0] === 'string' ? new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(a[0]) ? a[0] : `${a[0]}Z`) : undefined;
      if (!d || Number.isNaN(d.getTime())) fail(this.src, t.at, 'datetime() takes an ISO-8601 date string');
      return d;
    }
    if (name === 'VertexProperty' && this.isP('.', 1)) {
      this.next();
      this.next();
      const cls = this.ident();
      if (cls !== 'Cardinality') fail(this.src, t.at, `unknown enum VertexProperty.${cls}`);
      this.expectP('.');
      return this.enumValue('Cardinality', this.ident(), t.at);
    }
    if (name in ENUMS && this.isP('.', 1)) {
      this.next();
      this.next();
      return this.enumValue(ENUMS[name]!, this.ident(), t.at);
    }
    if (this.isP('(', 1)) {
      // Bare predicates (Groovy's static imports) or an anonymous traversal's first step.
      if ((P_OPS.has(name) || TEXTP_OPS.has(name)) && name !== 'not') {
        this.next();
        return this.predTail(makePred(name, this.args()));
      }
      this.next();
      const args = this.args();
      if (name === 'not' && args[0] instanceof Pred) return this.predTail(makePred('not', args));
      return new Traversal([{ name, args }, ...this.chain(false)]);
    }
    const tok = BARE_TOKENS[name];
    if (tok) {
      this.next();
      return tok;
    }
    fail(this.src, t.at, `unknown name '${name}'`);
  }

  enumValue(type: Token['type'], v: string, at: number): Token {
    const bare = BARE_TOKENS[v];
    if (bare && bare.type === type) return bare;
    if (type === 'WithOptions' && ['tokens', 'none', 'ids', 'labels', 'keys', 'values', 'all'].includes(v))
      return new Token('WithOptions', v);
    if (type === 'Direction' && ['OUT', 'IN', 'BOTH', 'from', 'to'].includes(v)) return BARE_TOKENS[v]!;
    fail(this.src, at, `unknown enum value ${type}.${v}`);
  }

  /** P.gt(1).and(P.lt(5)) */
  predTail(p: Pred): Pred {
    while (this.isP('.') && this.peek(1).k === 'id' && (this.peek(1).v === 'and' || this.peek(1).v === 'or')) {
      this.next();
      const op = this.ident() as 'and' | 'or';
      const a = this.args();
      if (!(a[0] instanceof Pred)) fail(this.src, this.peek().at, `${op}() takes a predicate`);
      p = combinePred(op, p, a[0]);
    }
    return p;
  }

  /** [a, b, c] lists (and Groovy's [:] empty map is not supported). */
  list(): Arg[] {
    return this.items('[', ']');
  }
}

/** Parses a Gremlin-Groovy query: one or more `g....` statements separated by `;`. */
export function parseGremlin(src: string): Step[][] {
  return new Parser(src, lex(src)).query();
}

/** Re-exported for tests: literal arguments come back as engine values. */
export type { Value };
