// The values a Gremlin traversal moves around (TinkerPop's structure API: elements, properties,
// paths, typed numbers, maps) and TinkerPop's equality and ordering rules over them.
// https://tinkerpop.apache.org/docs/3.7.2/dev/provider/#gremlin-semantics-equality-comparability

/** Java's boxed number types, kept so that GraphSON says Int32/Int64/Float/Double as Neptune does. */
export type NumType = 'int' | 'long' | 'float' | 'double';

export class Num {
  constructor(
    readonly v: number,
    readonly t: NumType,
  ) {}
  static int(v: number): Num {
    return new Num(v, 'int');
  }
  static long(v: number): Num {
    return new Num(v, 'long');
  }
  static double(v: number): Num {
    return new Num(v, 'double');
  }
}

/**
 * A vertex as traversals see it: an id and, once read, its label. Labels are resolved in batches
 * (one query per batch of vertices), so out().out() never reads a label it does not need.
 */
export class Vertex {
  constructor(
    readonly id: string,
    public label?: string,
  ) {}
}

export class Edge {
  constructor(
    readonly id: string,
    readonly label: string,
    readonly outV: Vertex,
    readonly inV: Vertex,
  ) {}
}

export class VertexProperty {
  constructor(
    readonly id: number,
    readonly key: string,
    readonly value: Value,
    readonly element: Vertex,
  ) {}
}

export class Property {
  constructor(
    readonly key: string,
    readonly value: Value,
    readonly element: Edge,
  ) {}
}

export class Path {
  constructor(
    readonly labels: readonly (readonly string[])[],
    readonly objects: readonly Value[],
  ) {}
}

/** TinkerPop enum values (T.id, Direction.OUT, Order.desc, Column.keys, Scope.local, Pop.last, ...). */
export class Token {
  constructor(
    readonly type: 'T' | 'Direction' | 'Order' | 'Column' | 'Scope' | 'Pop' | 'Cardinality' | 'WithOptions',
    readonly name: string,
  ) {}
}

/** An insertion-ordered map whose keys may be any value (keyed by keyOf). */
export class GMap {
  readonly #entries = new Map<string, [Value, Value]>();
  get size(): number {
    return this.#entries.size;
  }
  get(k: Value): Value | undefined {
    return this.#entries.get(keyOf(k))?.[1];
  }
  has(k: Value): boolean {
    return this.#entries.has(keyOf(k));
  }
  set(k: Value, v: Value): this {
    const key = keyOf(k);
    const e = this.#entries.get(key);
    if (e) e[1] = v;
    else this.#entries.set(key, [k, v]);
    return this;
  }
  delete(k: Value): void {
    this.#entries.delete(keyOf(k));
  }
  entries(): IterableIterator<[Value, Value]> {
    return this.#entries.values();
  }
  static of(pairs: Iterable<readonly [Value, Value]>): GMap {
    const m = new GMap();
    for (const [k, v] of pairs) m.set(k, v);
    return m;
  }
}

export type Value =
  | string
  | boolean
  | null
  | Num
  | Date
  | Vertex
  | Edge
  | VertexProperty
  | Property
  | Path
  | GMap
  | Token
  | Value[];

export const isElement = (v: unknown): v is Vertex | Edge => v instanceof Vertex || v instanceof Edge;

/** A string identity for hashing: equal values (by TinkerPop's equality) give equal keys. */
export function keyOf(v: Value): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'boolean':
      return v ? 'bt' : 'bf';
  }
  if (v instanceof Num) return `#${v.v}`;
  if (v instanceof Vertex) return `v${v.id}`;
  if (v instanceof Edge) return `e${v.id}`;
  if (v instanceof Date) return `d${v.getTime()}`;
  if (v instanceof VertexProperty) return `vp${v.element.id}\u0000${v.key}\u0000${keyOf(v.value)}`;
  if (v instanceof Property) return `p${v.element.id}\u0000${v.key}`;
  if (v instanceof Token) return `t${v.type}.${v.name}`;
  if (v instanceof Path) return `P[${v.objects.map(keyOf).join(',')}]`;
  if (v instanceof GMap) return `M{${[...v.entries()].map(([a, b]) => `${keyOf(a)}=${keyOf(b)}`).join(',')}}`;
  if (Array.isArray(v)) return `L[${v.map(keyOf).join(',')}]`;
  return `?${String(v)}`;
}

export const valueEquals = (a: Value, b: Value): boolean => keyOf(a) === keyOf(b);

/** Numeric value of a number or date (for between/lt/... on dates, as TinkerPop compares Dates). */
function comparable(v: Value): number | string | undefined {
  if (v instanceof Num) return v.v;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/**
 * TinkerPop's comparability (3.6+): values of the same kind compare; different kinds are
 * incomparable and a predicate over them is false rather than an error. Returns undefined then.
 */
export function compareValues(a: Value, b: Value): number | undefined {
  const kind = (v: Value) =>
    v instanceof Num ? 'n' : v instanceof Date ? 'd' : typeof v === 'string' ? 's' : typeof v === 'boolean' ? 'b' : 'x';
  const ka = kind(a);
  if (ka === 'x' || ka !== kind(b)) return undefined;
  const x = comparable(a)!;
  const y = comparable(b)!;
  if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Total order for order(): TinkerPop sorts mixed types by type first (nulls first). */
export function orderValues(a: Value, b: Value): number {
  const c = compareValues(a, b);
  if (c !== undefined) return c;
  const rank = (v: Value): number =>
    v === null
      ? 0
      : typeof v === 'boolean'
        ? 1
        : v instanceof Num
          ? 2
          : v instanceof Date
            ? 3
            : typeof v === 'string'
              ? 4
              : v instanceof Vertex || v instanceof Edge
                ? 5
                : 6;
  const r = rank(a) - rank(b);
  if (r !== 0) return r;
  if (isElement(a) && isElement(b)) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  const ka = keyOf(a);
  const kb = keyOf(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** 32-bit FNV-1a: the stable numeric ids vertex properties get. */
export function int32Hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** Display text of a value in error messages (Gremlin console style). */
export function show(v: Value | undefined): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  if (v instanceof Num) return String(v.v);
  if (v instanceof Vertex) return `v[${v.id}]`;
  if (v instanceof Edge) return `e[${v.id}][${v.outV.id}-${v.label}->${v.inV.id}]`;
  if (v instanceof VertexProperty) return `vp[${v.key}->${show(v.value)}]`;
  if (v instanceof Property) return `p[${v.key}->${show(v.value)}]`;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Token) return `${v.type}.${v.name}`;
  if (v instanceof Path) return `path[${v.objects.map(show).join(', ')}]`;
  if (v instanceof GMap) return `{${[...v.entries()].map(([a, b]) => `${show(a)}=${show(b)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  return String(v);
}
