// GraphBinary 1.0 (application/vnd.graphbinary-v1.0, the gremlin drivers' default serializer):
// request messages → requestId, op and args (bytecode as steps), results → response messages.
// https://tinkerpop.apache.org/docs/3.7.2/dev/io/#graphbinary
import { MalformedQueryException, QueryLimitException } from '../../generated/neptunedata/errors.js';
import { MAX_NESTING, nestingError } from './limits.js';
import { type Arg, combinePred, makePred, Pred, type Step, Traversal } from './steps.js';
import { Edge, GMap, Num, Path, Property, Token, type Value, Vertex, VertexProperty } from './values.js';

const T = {
  INT: 0x01,
  LONG: 0x02,
  STRING: 0x03,
  DATE: 0x04,
  TIMESTAMP: 0x05,
  CLASS: 0x06,
  DOUBLE: 0x07,
  FLOAT: 0x08,
  LIST: 0x09,
  MAP: 0x0a,
  SET: 0x0b,
  UUID: 0x0c,
  EDGE: 0x0d,
  PATH: 0x0e,
  PROPERTY: 0x0f,
  VERTEX: 0x11,
  VERTEXPROPERTY: 0x12,
  BINDING: 0x14,
  BYTECODE: 0x15,
  CARDINALITY: 0x16,
  COLUMN: 0x17,
  DIRECTION: 0x18,
  ORDER: 0x1a,
  POP: 0x1c,
  LAMBDA: 0x1d,
  P: 0x1e,
  SCOPE: 0x1f,
  TOKEN_T: 0x20,
  TRAVERSER: 0x21,
  BIGDECIMAL: 0x22,
  BIGINTEGER: 0x23,
  BYTE: 0x24,
  SHORT: 0x26,
  BOOLEAN: 0x27,
  TEXTP: 0x28,
  TRAVERSALSTRATEGY: 0x29,
  BULKSET: 0x2a,
  UNSPECIFIED_NULL: 0xfe,
} as const;

const ENUMS: Partial<Record<number, Token['type']>> = {
  [T.CARDINALITY]: 'Cardinality',
  [T.COLUMN]: 'Column',
  [T.DIRECTION]: 'Direction',
  [T.ORDER]: 'Order',
  [T.POP]: 'Pop',
  [T.SCOPE]: 'Scope',
  [T.TOKEN_T]: 'T',
};

/** Bytecode read from a request: its steps and its source instructions (withStrategies, ...). */
export class BinaryBytecode extends Traversal {
  constructor(
    steps: Step[],
    readonly sources: Step[],
  ) {
    super(steps);
  }
}

/** Most values the BulkSets of one request may expand to. */
const MAX_BULK = 1_000_000;

class Reader {
  #at = 0;
  #depth = 0;
  /** Values a BulkSet has expanded to so far: its counts are the client's to choose. */
  #expanded = 0;
  constructor(private readonly b: Buffer) {}

  need(n: number): void {
    if (this.#at + n > this.b.length) throw new MalformedQueryException('Truncated GraphBinary request');
  }
  byte(): number {
    this.need(1);
    return this.b[this.#at++]!;
  }
  int(): number {
    this.need(4);
    const v = this.b.readInt32BE(this.#at);
    this.#at += 4;
    return v;
  }
  long(): number {
    this.need(8);
    const v = this.b.readBigInt64BE(this.#at);
    this.#at += 8;
    return Number(v);
  }
  string(): string {
    const n = this.int();
    if (n < 0) throw new MalformedQueryException('Negative GraphBinary string length');
    this.need(n);
    const s = this.b.toString('utf8', this.#at, this.#at + n);
    this.#at += n;
    return s;
  }
  uuid(): string {
    this.need(16);
    const h = this.b.toString('hex', this.#at, this.#at + 16);
    this.#at += 16;
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** A fully qualified value: {type_code}{value_flag}{value}. Nesting is bounded (MAX_NESTING). */
  any(): Arg {
    const type = this.byte();
    const flag = this.byte();
    if (flag === 0x01) return null;
    if (++this.#depth > MAX_NESTING) throw nestingError();
    try {
      return this.bare(type);
    } finally {
      this.#depth--;
    }
  }

  list(): Arg[] {
    const n = this.int();
    const out: Arg[] = [];
    for (let i = 0; i < n; i++) out.push(this.any());
    return out;
  }

  map(): GMap {
    const n = this.int();
    const m = new GMap();
    for (let i = 0; i < n; i++) {
      const k = this.any();
      m.set(k as Value, this.any() as Value);
    }
    return m;
  }

  bytecode(): BinaryBytecode {
    const read = (): Step[] => {
      const n = this.int();
      const out: Step[] = [];
      for (let i = 0; i < n; i++) {
        const name = this.string();
        const k = this.int();
        const args: Arg[] = [];
        for (let j = 0; j < k; j++) args.push(this.any());
        out.push({ name, args });
      }
      return out;
    };
    const steps = read();
    return new BinaryBytecode(steps, read());
  }

  bare(type: number): Arg {
    switch (type) {
      case T.INT:
        return Num.int(this.int());
      case T.LONG:
        return Num.long(this.long());
      case T.SHORT: {
        this.need(2);
        const v = this.b.readInt16BE(this.#at);
        this.#at += 2;
        return Num.int(v);
      }
      case T.BYTE:
        return Num.int((this.byte() << 24) >> 24);
      case T.DOUBLE: {
        this.need(8);
        const v = this.b.readDoubleBE(this.#at);
        this.#at += 8;
        return Num.double(v);
      }
      case T.FLOAT: {
        this.need(4);
        const v = this.b.readFloatBE(this.#at);
        this.#at += 4;
        return new Num(v, 'float');
      }
      case T.STRING:
      case T.CLASS:
        return this.string();
      case T.BOOLEAN:
        return this.byte() !== 0;
      case T.DATE:
      case T.TIMESTAMP:
        return new Date(this.long());
      case T.UUID:
        return this.uuid();
      case T.LIST:
      case T.SET:
        return this.list();
      case T.BULKSET: {
        const n = this.int();
        const out: Arg[] = [];
        for (let i = 0; i < n; i++) {
          const v = this.any();
          const bulk = this.long();
          this.#expanded += Math.max(0, bulk);
          if (this.#expanded > MAX_BULK)
            throw new QueryLimitException(`A BulkSet in the request expands to more than ${MAX_BULK} values.`);
          for (let j = 0; j < bulk; j++) out.push(v);
        }
        return out;
      }
      case T.MAP:
        return this.map();
      case T.BYTECODE:
        return this.bytecode();
      case T.P:
      case T.TEXTP: {
        const op = this.string();
        const values = this.list();
        if (op === 'and' || op === 'or') {
          const [a, b] = values;
          if (!(a instanceof Pred) || !(b instanceof Pred))
            throw new MalformedQueryException(`${op}() takes predicates`);
          return combinePred(op, a, b);
        }
        if (op === 'within' || op === 'without') return makePred(op, [values]);
        return makePred(op, values);
      }
      case T.TRAVERSALSTRATEGY: {
        // withStrategies(OptionsStrategy{...}): the configuration map.
        this.string();
        return this.map();
      }
      case T.BINDING: {
        this.string();
        return this.any();
      }
      case T.LAMBDA:
        // DEVIATION(neptune): like Neptune, lambdas are not accepted.
        throw new MalformedQueryException('Lambdas are not supported');
      case T.VERTEX: {
        const id = this.any();
        this.string();
        this.any();
        return new Vertex(String(id instanceof Num ? id.v : id));
      }
      default: {
        const e = ENUMS[type];
        if (e) return new Token(e, String(this.any()));
        throw new MalformedQueryException(`Unsupported GraphBinary type 0x${type.toString(16)} in the request`);
      }
    }
  }
}

export interface BinaryRequest {
  readonly requestId: string;
  readonly op: string;
  readonly processor: string;
  readonly args: Map<string, Arg>;
}

/** `{version 0x81}{requestId uuid}{op}{processor}{args map}` */
export function readBinaryRequest(buf: Buffer): BinaryRequest {
  const r = new Reader(buf);
  const version = r.byte();
  if (version !== 0x81) throw new MalformedQueryException(`Unsupported GraphBinary version 0x${version.toString(16)}`);
  const requestId = r.uuid();
  const op = r.string();
  const processor = r.string();
  const m = r.map();
  const args = new Map<string, Arg>();
  for (const [k, v] of m.entries()) if (typeof k === 'string') args.set(k, v as Arg);
  return { requestId, op, processor, args };
}

/** Accumulates bytes in chunks. */
class Writer {
  readonly parts: Buffer[] = [];
  bytes(...b: number[]): void {
    this.parts.push(Buffer.from(b));
  }
  int(v: number): void {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32BE(v | 0);
    this.parts.push(b);
  }
  long(v: number): void {
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(BigInt(Math.trunc(v)));
    this.parts.push(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.int(b.length);
    this.parts.push(b);
  }
  fqString(s: string): void {
    this.bytes(T.STRING, 0);
    this.string(s);
  }
  nul(): void {
    this.bytes(T.UNSPECIFIED_NULL, 1);
  }

  value(v: Value): void {
    if (v === null) {
      this.nul();
      return;
    }
    if (typeof v === 'string') {
      this.fqString(v);
      return;
    }
    if (typeof v === 'boolean') {
      this.bytes(T.BOOLEAN, 0, v ? 1 : 0);
      return;
    }
    if (v instanceof Num) {
      switch (v.t) {
        case 'int':
          this.bytes(T.INT, 0);
          this.int(v.v);
          return;
        case 'long':
          this.bytes(T.LONG, 0);
          this.long(v.v);
          return;
        case 'float': {
          this.bytes(T.FLOAT, 0);
          const b = Buffer.allocUnsafe(4);
          b.writeFloatBE(v.v);
          this.parts.push(b);
          return;
        }
        default: {
          this.bytes(T.DOUBLE, 0);
          const b = Buffer.allocUnsafe(8);
          b.writeDoubleBE(v.v);
          this.parts.push(b);
          return;
        }
      }
    }
    if (v instanceof Date) {
      this.bytes(T.DATE, 0);
      this.long(v.getTime());
      return;
    }
    if (v instanceof Vertex) {
      this.bytes(T.VERTEX, 0);
      this.fqString(v.id);
      this.string(v.label ?? 'vertex');
      this.nul();
      return;
    }
    if (v instanceof Edge) {
      this.bytes(T.EDGE, 0);
      this.fqString(v.id);
      this.string(v.label);
      this.fqString(v.inV.id);
      this.string(v.inV.label ?? 'vertex');
      this.fqString(v.outV.id);
      this.string(v.outV.label ?? 'vertex');
      this.nul();
      this.nul();
      return;
    }
    if (v instanceof VertexProperty) {
      this.bytes(T.VERTEXPROPERTY, 0);
      this.bytes(T.LONG, 0);
      this.long(v.id);
      this.string(v.key);
      this.value(v.value);
      this.nul();
      this.nul();
      return;
    }
    if (v instanceof Property) {
      this.bytes(T.PROPERTY, 0);
      this.string(v.key);
      this.value(v.value);
      this.nul();
      return;
    }
    if (v instanceof Path) {
      this.bytes(T.PATH, 0);
      this.bytes(T.LIST, 0);
      this.int(v.labels.length);
      for (const l of v.labels) {
        this.bytes(T.SET, 0);
        this.int(l.length);
        for (const s of l) this.fqString(s);
      }
      this.bytes(T.LIST, 0);
      this.int(v.objects.length);
      for (const o of v.objects) this.value(o);
      return;
    }
    if (v instanceof GMap) {
      this.bytes(T.MAP, 0);
      this.int(v.size);
      for (const [k, x] of v.entries()) {
        this.value(k);
        this.value(x);
      }
      return;
    }
    if (v instanceof Token) {
      const code = Number(Object.entries(ENUMS).find(([, name]) => name === v.type)?.[0] ?? T.STRING);
      if (code === T.STRING) {
        this.fqString(v.name);
        return;
      }
      this.bytes(code, 0);
      this.fqString(v.name);
      return;
    }
    if (Array.isArray(v)) {
      this.bytes(T.LIST, 0);
      this.int(v.length);
      for (const x of v) this.value(x);
      return;
    }
    this.fqString(String(v));
  }
}

/**
 * `{0x81}{requestId nullable uuid}{status code}{status message nullable}{attributes map}{meta map}{data}`;
 * data is a list of traversers (bytecode) or values (eval), or null.
 */
export function writeBinaryResponse(
  requestId: string | null,
  code: number,
  message: string,
  data: readonly Value[] | null,
  traversers: boolean,
): Buffer {
  const w = new Writer();
  w.bytes(0x81);
  if (requestId === null) w.bytes(1);
  else {
    w.bytes(0);
    w.parts.push(Buffer.from(requestId.replace(/-/g, ''), 'hex'));
  }
  w.int(code);
  w.bytes(0);
  w.string(message);
  w.int(0);
  w.int(0);
  if (data === null) w.nul();
  else {
    w.bytes(T.LIST, 0);
    w.int(data.length);
    for (const v of data) {
      if (traversers) {
        w.bytes(T.TRAVERSER, 0);
        w.long(1);
      }
      w.value(v);
    }
  }
  return Buffer.concat(w.parts);
}
