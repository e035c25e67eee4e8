// The Gremlin traversal engine over the graph store: steps compile to async generators over
// batches of traversers (object + path + loop count), so a scan streams page by page, a step
// reads the store once per batch, and limit()/count() stop or avoid the scan.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#traversal
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-differences.html
import { randomUUID } from 'node:crypto';
import {
  ConstraintViolationException,
  MalformedQueryException,
  MemoryLimitExceededException,
  TimeLimitExceededException,
} from '../../generated/neptunedata/errors.js';
import type { Database, Queryable } from '../../storage/db/types.js';
import { type Arg, Pred, type Step, Traversal } from './steps.js';
import { decodeStored, type EdgeRow, type PropRow, StoreAccess, type VertexFilter } from './store-access.js';
import {
  Edge,
  GMap,
  int32Hash,
  isElement,
  keyOf,
  Num,
  orderValues,
  Path,
  Property,
  show,
  Token,
  type Value,
  Vertex,
  VertexProperty,
} from './values.js';

export interface EngineLimits {
  /** Wall-clock budget of one query (Neptune's neptune_query_timeout defaults to 120 s). */
  readonly timeoutMs: number;
  /** Most results one query may return. */
  readonly maxResults: number;
  /** Most traversers a barrier (order, group, fold, tail, ...) may hold. */
  readonly maxBarrier: number;
}

export const DEFAULT_LIMITS: EngineLimits = { timeoutMs: 120_000, maxResults: 1_000_000, maxBarrier: 2_000_000 };

interface PathNode {
  readonly obj: Value;
  readonly labels: readonly string[];
  readonly prev: PathNode | null;
}

/** One traverser. `tag` says which invocation of a local child traversal it belongs to. */
interface Trav {
  readonly obj: Value;
  readonly path: PathNode | null;
  readonly loops: number;
  readonly tag: number;
}

type Batch = Trav[];
/** The tags a pipe's reducing steps answer for (count() of nothing is 0 for each of them). */
type Scope = readonly number[];
type Pipe = (input: AsyncIterable<Batch>, scope: Scope) => AsyncIterable<Batch>;

const extend = (t: Trav, obj: Value): Trav => ({
  obj,
  path: { obj, labels: [], prev: t.path },
  loops: t.loops,
  tag: t.tag,
});
const fresh = (obj: Value, tag: number): Trav => ({ obj, path: { obj, labels: [], prev: null }, loops: 0, tag });

async function* once(b: Batch): AsyncIterable<Batch> {
  if (b.length > 0) yield b;
}

const unsupported = (name: string): never => {
  throw new MalformedQueryException(
    `Unsupported Gremlin step: ${name}(). Slipway's graph store does not implement it.`,
  );
};

const MUTATING = new Set(['addV', 'addE', 'property', 'drop']);

/** Whether any statement (or nested traversal) writes. */
export function isMutating(statements: readonly (readonly Step[])[]): boolean {
  const walk = (steps: readonly Step[]): boolean => steps.some((s) => MUTATING.has(s.name) || s.args.some(argMutates));
  const argMutates = (a: Arg): boolean =>
    a instanceof Traversal ? walk(a.steps) : Array.isArray(a) ? a.some(argMutates) : false;
  return statements.some(walk);
}

/** What a query does beyond reading, for authorization: writes (addV, addE, property) and deletes (drop). */
export function queryEffects(statements: readonly (readonly Step[])[]): { write: boolean; drop: boolean } {
  const effects = { write: false, drop: false };
  const walk = (steps: readonly Step[]): void => {
    for (const s of steps) {
      if (s.name === 'drop') effects.drop = true;
      else if (MUTATING.has(s.name)) effects.write = true;
      for (const a of s.args) visit(a);
    }
  };
  const visit = (a: Arg): void => {
    if (a instanceof Traversal) walk(a.steps);
    else if (Array.isArray(a)) a.forEach(visit);
  };
  statements.forEach(walk);
  return effects;
}

/** Per-query state: the store, vertex objects by id (labels read once), the deadline. */
class Ctx {
  readonly store: StoreAccess;
  readonly #vertices = new Map<string, Vertex>();
  #nextTag = 1;
  readonly #deadline: number;
  #lastYield = performance.now();

  constructor(
    q: Queryable,
    readonly limits: EngineLimits,
  ) {
    this.store = new StoreAccess(q);
    this.#deadline = performance.now() + limits.timeoutMs;
  }

  tags(n: number): number {
    const base = this.#nextTag;
    this.#nextTag += n;
    return base;
  }

  vertex(id: string, label?: string): Vertex {
    let v = this.#vertices.get(id);
    if (!v) {
      // Bounded: past 100k the map starts over (traversers keep their own objects).
      if (this.#vertices.size >= 100_000) this.#vertices.clear();
      v = new Vertex(id, label);
      this.#vertices.set(id, v);
    } else if (label !== undefined && v.label === undefined) v.label = label;
    return v;
  }

  edge(r: EdgeRow): Edge {
    return new Edge(r.id, r.label, this.vertex(r.from_id), this.vertex(r.to_id));
  }

  /** Reads the labels of the vertices that do not have theirs yet (Neptune joins several with ::). */
  async resolveLabels(vs: Iterable<Vertex>): Promise<void> {
    const missing = new Map<string, Vertex[]>();
    for (const v of vs) {
      if (v.label !== undefined) continue;
      const list = missing.get(v.id);
      if (list) list.push(v);
      else missing.set(v.id, [v]);
    }
    if (missing.size === 0) return;
    const labels = await this.store.labels([...missing.keys()]);
    for (const [id, list] of missing) {
      const l = (labels.get(id) ?? ['vertex']).join('::');
      for (const v of list) v.label = l;
    }
  }

  /** Deadline check between batches; also lets other requests run every 20 ms. */
  async tick(): Promise<void> {
    const now = performance.now();
    if (now > this.#deadline) {
      throw new TimeLimitExceededException(
        `A timeout occurred within the query engine. The query ran longer than ${this.limits.timeoutMs} ms.`,
      );
    }
    if (now - this.#lastYield > 20) {
      await new Promise((r) => setImmediate(r));
      this.#lastYield = performance.now();
    }
  }

  guardBarrier(n: number): void {
    if (n > this.limits.maxBarrier)
      throw new MemoryLimitExceededException(
        `The query holds more than ${this.limits.maxBarrier} traversers in one barrier step (order, group, fold, tail, ...); narrow it with has() or limit().`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Modulators

type ByMod =
  | { kind: 'identity'; order?: string }
  | { kind: 'key'; key: string; order?: string }
  | { kind: 'token'; token: Token; order?: string }
  | { kind: 'trav'; pipe: Pipe; reducing: boolean; order?: string };

interface Op {
  readonly name: string;
  readonly args: readonly Arg[];
  readonly by: ByMod[];
  readonly mods: Map<string, Arg[][]>;
}

const REDUCERS = new Set(['count', 'sum', 'min', 'max', 'mean', 'fold', 'group', 'groupCount']);

function orderOf(a: Arg | undefined): string | undefined {
  if (a instanceof Token && a.type === 'Order') return a.name;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Compilation

const str = (a: Arg | undefined, what: string): string => {
  if (typeof a !== 'string') throw new MalformedQueryException(`${what} takes a string, not ${show(a as Value)}`);
  return a;
};
const int = (a: Arg | undefined, what: string): number => {
  if (!(a instanceof Num) || !Number.isInteger(a.v)) throw new MalformedQueryException(`${what} takes an integer`);
  return a.v;
};
const strings = (args: readonly Arg[], what: string): string[] =>
  args.flatMap((a) => (Array.isArray(a) ? a : [a])).map((a) => str(a as Arg, what));
const travArg = (a: Arg | undefined, what: string): Traversal => {
  if (!(a instanceof Traversal)) throw new MalformedQueryException(`${what} takes a traversal`);
  return a;
};

class Compiler {
  constructor(private readonly ctx: Ctx) {}

  /** Folds modulators (by, times, until, emit, with, from, to) into the steps they modulate. */
  ops(steps: readonly Step[]): Op[] {
    const ops: Op[] = [];
    let pendingRepeatMods = new Map<string, Arg[][]>();
    for (const s of steps) {
      const last = ops[ops.length - 1];
      switch (s.name) {
        case 'by': {
          if (!last) throw new MalformedQueryException('by() must follow a step it modulates');
          last.by.push(this.byMod(s.args));
          continue;
        }
        case 'times':
        case 'until':
        case 'emit': {
          // emit()/until() before repeat() apply to it and mean "check before the first loop".
          if (last?.name === 'repeat' && !(s.name !== 'times' && last.mods.has(`${s.name}:first`))) {
            const l = last.mods.get(s.name) ?? [];
            l.push([...s.args]);
            last.mods.set(s.name, l);
          } else {
            const key = s.name === 'times' ? 'times' : `${s.name}:first`;
            pendingRepeatMods.set(key, [[...s.args]]);
          }
          continue;
        }
        case 'with':
        case 'from':
        case 'to':
        case 'option': {
          if (!last) throw new MalformedQueryException(`${s.name}() must follow a step it modulates`);
          const l = last.mods.get(s.name) ?? [];
          l.push([...s.args]);
          last.mods.set(s.name, l);
          continue;
        }
      }
      const op: Op = { name: s.name, args: s.args, by: [], mods: new Map() };
      if (s.name === 'repeat') {
        for (const [k, v] of pendingRepeatMods) {
          op.mods.set(k, v);
          if (k !== 'times') op.mods.set(k.replace(':first', ''), v);
        }
        pendingRepeatMods = new Map();
      }
      ops.push(op);
    }
    if (pendingRepeatMods.size > 0)
      throw new MalformedQueryException(
        `${[...pendingRepeatMods.keys()][0]!.replace(':first', '')}() needs a repeat()`,
      );
    return ops;
  }

  byMod(args: readonly Arg[]): ByMod {
    const [a, b] = args;
    const order = orderOf(b) ?? (args.length === 1 ? orderOf(a) : undefined);
    if (a === undefined || (args.length === 1 && orderOf(a))) return { kind: 'identity', order };
    if (typeof a === 'string') return { kind: 'key', key: a, order };
    if (a instanceof Token) return { kind: 'token', token: a, order };
    if (a instanceof Traversal) {
      const lastStep = a.steps[a.steps.length - 1];
      return { kind: 'trav', pipe: this.compile(a.steps), reducing: !!lastStep && REDUCERS.has(lastStep.name), order };
    }
    throw new MalformedQueryException(`by() does not take ${show(a as Value)}`);
  }

  compile(steps: readonly Step[], root = false): Pipe {
    const ops = this.ops(steps);
    const pipes: Pipe[] = [];
    let i = 0;
    if (root && ops[0] && (ops[0].name === 'V' || ops[0].name === 'E') && ops[0].args.length === 0) {
      // Push hasLabel()/has(k, literal) into the scan, and count() into SQL.
      const isV = ops[0].name === 'V';
      const filter: { labels?: string[]; props: { name: string; type: string; value: string }[] } = { props: [] };
      i = 1;
      for (; i < ops.length; i++) {
        const o = ops[i]!;
        if (
          o.name === 'hasLabel' &&
          o.args.length > 0 &&
          o.args.every((x) => typeof x === 'string') &&
          !filter.labels
        ) {
          filter.labels = o.args as string[];
          continue;
        }
        if (isV && o.name === 'has' && o.args.length === 2 && typeof o.args[0] === 'string') {
          const v = o.args[1] instanceof Pred && o.args[1].op === 'eq' ? o.args[1].value : o.args[1];
          if (typeof v === 'string' || typeof v === 'boolean') {
            filter.props.push({ name: o.args[0], type: typeof v === 'string' ? 'string' : 'bool', value: String(v) });
            continue;
          }
        }
        break;
      }
      const next = ops[i];
      if (next?.name === 'count' && next.args.length === 0) {
        i++;
        pipes.push(this.countSource(isV, filter));
      } else pipes.push(isV ? this.vertexScan(filter) : this.edgeScan(filter.labels));
    }
    for (; i < ops.length; i++) pipes.push(this.op(ops[i]!, i === 0 && root));
    return (input, scope) => pipes.reduce((it, p) => p(it, scope), input);
  }

  countSource(isV: boolean, f: VertexFilter): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        const out: Batch = [];
        for (const t of b) {
          const n = isV ? await ctx.store.countVertices(f) : await ctx.store.countEdges(f.labels);
          out.push(fresh(Num.long(n), t.tag));
        }
        yield out;
      }
    };
  }

  vertexScan(f: VertexFilter): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        for (const t of b) {
          let after: string | null = null;
          // Small first pages so V().limit(1) reads little; larger ones after.
          let page = 64;
          for (;;) {
            await ctx.tick();
            const ids = await ctx.store.vertexPage(f, after, page);
            if (ids.length === 0) break;
            const single = f.labels?.length === 1 ? f.labels[0] : undefined;
            yield ids.map((id) => extend(t, ctx.vertex(id, single)));
            if (ids.length < page) break;
            after = ids[ids.length - 1]!;
            page = Math.min(page * 4, 2048);
          }
        }
      }
    };
  }

  edgeScan(labels: readonly string[] | undefined): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        for (const t of b) {
          let after: string | null = null;
          let page = 64;
          for (;;) {
            await ctx.tick();
            const rows = await ctx.store.edgePage(labels, after, page);
            if (rows.length === 0) break;
            yield rows.map((r) => extend(t, ctx.edge(r)));
            if (rows.length < page) break;
            after = rows[rows.length - 1]!.id;
            page = Math.min(page * 4, 2048);
          }
        }
      }
    };
  }

  /** Runs a compiled child traversal once per start (each its own tag); results per start. */
  async runChild(pipe: Pipe, starts: readonly Trav[]): Promise<Trav[][]> {
    const out: Trav[][] = starts.map(() => []);
    if (starts.length === 0) return out;
    const base = this.ctx.tags(starts.length);
    const input = starts.map((t, i) => ({ ...t, tag: base + i }));
    const scope = input.map((t) => t.tag);
    let n = 0;
    for await (const b of pipe(once(input), scope)) {
      n += b.length;
      this.ctx.guardBarrier(n);
      for (const t of b) out[t.tag - base]!.push(t);
    }
    return out;
  }

  /** The value a by() modulator gives for each object (undefined: unproductive). */
  async byValues(by: ByMod | undefined, travs: readonly Trav[]): Promise<(Value | undefined)[]> {
    if (!by || by.kind === 'identity') return travs.map((t) => t.obj);
    if (by.kind === 'token') return Promise.all(travs.map((t) => this.tokenValue(by.token, t.obj)));
    if (by.kind === 'key') {
      const elems = travs.map((t) => t.obj).filter(isElement);
      const props = await this.props(elems, [by.key]);
      return travs.map((t) => {
        if (t.obj instanceof GMap) return t.obj.get(by.key);
        if (isElement(t.obj)) {
          const rows = props.get(t.obj);
          return rows && rows.length > 0 ? decodeStored(rows[0]!.type, rows[0]!.value) : undefined;
        }
        return undefined;
      });
    }
    const results = await this.runChild(by.pipe, travs);
    return results.map((r) => (r.length > 0 ? r[0]!.obj : undefined));
  }

  async tokenValue(tok: Token, obj: Value): Promise<Value | undefined> {
    if (tok.type === 'Column' && obj instanceof GMap && obj.size === 1) {
      const [[k, v]] = [...obj.entries()] as [[Value, Value]];
      return tok.name === 'keys' ? k : v;
    }
    if (tok.type !== 'T') return undefined;
    switch (tok.name) {
      case 'id':
        return obj instanceof Vertex || obj instanceof Edge
          ? obj.id
          : obj instanceof VertexProperty
            ? Num.long(obj.id)
            : undefined;
      case 'label':
        if (obj instanceof Vertex) {
          await this.ctx.resolveLabels([obj]);
          return obj.label!;
        }
        return obj instanceof Edge ? obj.label : obj instanceof VertexProperty ? obj.key : undefined;
      case 'key':
        return obj instanceof VertexProperty || obj instanceof Property ? obj.key : undefined;
      case 'value':
        return obj instanceof VertexProperty || obj instanceof Property ? obj.value : undefined;
    }
    return undefined;
  }

  /** Property rows of elements, keyed by the element object. */
  async props(elems: readonly (Vertex | Edge)[], keys?: readonly string[]): Promise<Map<Vertex | Edge, PropRow[]>> {
    const vs = elems.filter((e) => e instanceof Vertex).map((v) => v.id);
    const es = elems.filter((e) => e instanceof Edge).map((e) => e.id);
    const vp = vs.length > 0 ? await this.ctx.store.props('vertex', vs, keys) : new Map<string, PropRow[]>();
    const ep = es.length > 0 ? await this.ctx.store.props('edge', es, keys) : new Map<string, PropRow[]>();
    const out = new Map<Vertex | Edge, PropRow[]>();
    for (const e of elems) out.set(e, (e instanceof Vertex ? vp.get(e.id) : ep.get(e.id)) ?? []);
    return out;
  }

  /** A map step: f over each batch (async, batch-wide), dropping undefined results. */
  mapBatch(f: (b: Batch) => Promise<(Value | undefined)[]>, extendPath = true): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        await ctx.tick();
        const vals = await f(b);
        const out: Batch = [];
        for (let i = 0; i < b.length; i++) {
          const v = vals[i];
          if (v !== undefined) out.push(extendPath ? extend(b[i]!, v) : { ...b[i]!, obj: v });
        }
        if (out.length > 0) yield out;
      }
    };
  }

  flatMapBatch(f: (b: Batch) => Promise<Value[][]>): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        await ctx.tick();
        const vals = await f(b);
        const out: Batch = [];
        for (let i = 0; i < b.length; i++) for (const v of vals[i]!) out.push(extend(b[i]!, v));
        if (out.length > 0) yield out;
      }
    };
  }

  filterBatch(f: (b: Batch) => Promise<boolean[]>): Pipe {
    const ctx = this.ctx;
    return async function* (input) {
      for await (const b of input) {
        await ctx.tick();
        const keep = await f(b);
        const out = b.filter((_, i) => keep[i]);
        if (out.length > 0) yield out;
      }
    };
  }

  /** A reducing barrier: one accumulator per tag; emits one result per tag in scope. */
  reduce<A>(
    init: () => A,
    add: (acc: A, t: Trav) => A | Promise<A>,
    done: (acc: A, seen: boolean) => Value | undefined,
  ): Pipe {
    const ctx = this.ctx;
    return async function* (input, scope) {
      const accs = new Map<number, A>();
      let n = 0;
      for await (const b of input) {
        await ctx.tick();
        n += b.length;
        ctx.guardBarrier(n);
        for (const t of b) accs.set(t.tag, await add(accs.get(t.tag) ?? init(), t));
      }
      const out: Batch = [];
      for (const tag of scope) {
        const acc = accs.get(tag);
        const v = done(acc ?? init(), acc !== undefined);
        if (v !== undefined) out.push(fresh(v, tag));
      }
      if (out.length > 0) yield out;
    };
  }

  /** A collecting barrier per tag (order, tail, group): f turns each tag's traversers into output. */
  barrier(f: (travs: Trav[], tag: number) => Promise<Trav[]>): Pipe {
    const ctx = this.ctx;
    return async function* (input, scope) {
      const groups = new Map<number, Trav[]>();
      let n = 0;
      for await (const b of input) {
        await ctx.tick();
        n += b.length;
        ctx.guardBarrier(n);
        for (const t of b) {
          let g = groups.get(t.tag);
          if (!g) {
            g = [];
            groups.set(t.tag, g);
          }
          g.push(t);
        }
      }
      for (const tag of scope) {
        const out = await f(groups.get(tag) ?? [], tag);
        if (out.length > 0) yield out;
      }
    };
  }

  // -------------------------------------------------------------------------------------------

  op(o: Op, first: boolean): Pipe {
    const ctx = this.ctx;
    const a = o.args;
    switch (o.name) {
      case 'V':
      case 'E':
        return this.byIds(o.name, a);
      case 'inject': {
        const values = a as Value[];
        return async function* (input) {
          // At the start of a traversal the injected values are the traversers; later they are
          // added in front of the stream.
          let injected = false;
          for await (const b of input) {
            if (!injected) {
              injected = true;
              const base = b[0]!;
              const inj = values.map((v) => fresh(v, base.tag));
              yield first ? inj : [...inj, ...b];
              continue;
            }
            if (!first) yield b;
          }
        };
      }
      case 'out':
      case 'in':
      case 'both':
      case 'outE':
      case 'inE':
      case 'bothE': {
        const labels = strings(a, `${o.name}()`);
        const dirs: ('out' | 'in')[] = o.name.startsWith('out')
          ? ['out']
          : o.name.startsWith('in')
            ? ['in']
            : ['out', 'in'];
        const toEdges = o.name.endsWith('E');
        return this.flatMapBatch(async (b) => {
          const vs = b.map((t) => (t.obj instanceof Vertex ? t.obj.id : null));
          const ids = vs.filter((x): x is string => x !== null);
          const byDir = await Promise.all(dirs.map((d) => ctx.store.incident(ids, d, labels)));
          return b.map((_, i) => {
            const id = vs[i];
            if (id === null || id === undefined) return [];
            const res: Value[] = [];
            dirs.forEach((d, k) => {
              for (const r of byDir[k]!.get(id) ?? []) {
                if (toEdges) res.push(ctx.edge(r));
                else res.push(ctx.vertex(d === 'out' ? r.to_id : r.from_id));
              }
            });
            return res;
          });
        });
      }
      case 'outV':
      case 'inV':
      case 'bothV':
      case 'otherV':
        return this.flatMapBatch(async (b) =>
          b.map((t) => {
            const e = t.obj;
            if (!(e instanceof Edge)) return [];
            if (o.name === 'outV') return [e.outV];
            if (o.name === 'inV') return [e.inV];
            if (o.name === 'bothV') return [e.outV, e.inV];
            // otherV: the end the traverser did not come from (the previous object of its path).
            const prev = t.path?.prev?.obj;
            return [prev instanceof Vertex && prev.id === e.outV.id ? e.inV : e.outV];
          }),
        );
      case 'values':
      case 'properties': {
        const keys = strings(a, `${o.name}()`);
        const asProps = o.name === 'properties';
        return this.flatMapBatch(async (b) => {
          const elems = b.map((t) => t.obj).filter(isElement);
          const props = await this.props(elems, keys.length > 0 ? keys : undefined);
          return b.map((t) => {
            const e = t.obj;
            // Meta-properties are not stored: values()/properties() of a property yield nothing.
            if (!isElement(e)) return [];
            const rows = props.get(e) ?? [];
            // values('a','b') returns a's values before b's, as the keys were asked.
            const ordered = keys.length > 1 ? keys.flatMap((k) => rows.filter((r) => r.name === k)) : rows;
            return ordered.map((r) => {
              const v = decodeStored(r.type, r.value);
              if (!asProps) return v;
              if (e instanceof Vertex) return new VertexProperty(vpId(e.id, r), r.name, v, e);
              return new Property(r.name, v, e);
            });
          });
        });
      }
      case 'key':
      case 'value':
        return this.mapBatch(async (b) =>
          b.map((t) =>
            t.obj instanceof VertexProperty || t.obj instanceof Property
              ? o.name === 'key'
                ? t.obj.key
                : t.obj.value
              : undefined,
          ),
        );
      case 'id':
        return this.mapBatch(async (b) => Promise.all(b.map((t) => this.tokenValue(new Token('T', 'id'), t.obj))));
      case 'label':
        return this.mapBatch(async (b) => {
          await ctx.resolveLabels(b.map((t) => t.obj).filter((x): x is Vertex => x instanceof Vertex));
          return Promise.all(b.map((t) => this.tokenValue(new Token('T', 'label'), t.obj)));
        });
      case 'valueMap':
      case 'elementMap':
        return this.mapStep(o);
      case 'path':
        return this.pathStep(o);
      case 'constant': {
        const v = a[0] as Value;
        return this.mapBatch(async (b) => b.map(() => v));
      }
      case 'identity':
      case 'barrier':
        return (input) => input;
      case 'none':
        // iterate(): runs the traversal for its side effects and returns nothing.
        return async function* (input) {
          for await (const _ of input) await ctx.tick();
          yield* [];
        };
      case 'as': {
        const labels = strings(a, 'as()');
        return async function* (input) {
          for await (const b of input)
            yield b.map((t) =>
              t.path
                ? { ...t, path: { obj: t.path.obj, labels: [...t.path.labels, ...labels], prev: t.path.prev } }
                : { ...t, path: { obj: t.obj, labels, prev: null } },
            );
        };
      }
      case 'has':
      case 'hasLabel':
      case 'hasId':
      case 'hasNot':
      case 'is':
        return this.hasStep(o);
      case 'count':
      case 'sum':
      case 'min':
      case 'max':
      case 'mean':
      case 'fold':
        return this.reducingStep(o);
      case 'unfold':
        return this.flatMapBatch(async (b) =>
          b.map((t) => {
            const v = t.obj;
            if (Array.isArray(v)) return v;
            if (v instanceof GMap) return [...v.entries()].map(([k, x]) => GMap.of([[k, x]]));
            if (v instanceof Path) return [...v.objects];
            return [v];
          }),
        );
      case 'limit':
      case 'range':
      case 'tail':
        return this.rangeStep(o);
      case 'dedup':
        return this.dedupStep(o);
      case 'order':
        return this.orderStep(o);
      case 'simplePath':
      case 'cyclicPath':
        return this.filterBatch(async (b) =>
          b.map((t) => {
            const seen = new Set<string>();
            let dup = false;
            for (let n = t.path; n; n = n.prev) {
              const k = keyOf(n.obj);
              if (seen.has(k)) dup = true;
              seen.add(k);
            }
            return o.name === 'simplePath' ? !dup : dup;
          }),
        );
      case 'repeat':
        return this.repeatStep(o);
      case 'loops':
        return this.mapBatch(async (b) => b.map((t) => Num.int(t.loops)));
      case 'select':
        return this.selectStep(o);
      case 'hasNext':
        return this.reduce(
          () => false,
          () => true,
          (x) => x,
        );
      case 'project': {
        const keys = strings(a, 'project()');
        if (keys.length === 0) throw new MalformedQueryException('project() needs at least one key');
        return this.mapBatch(async (b) => {
          const cols = await Promise.all(
            keys.map((_, i) => this.byValues(o.by.length ? o.by[i % o.by.length] : undefined, b)),
          );
          return b.map((_, r) => {
            const m = new GMap();
            keys.forEach((k, i) => {
              const v = cols[i]![r];
              // TinkerPop 3.6+: an unproductive by() leaves its key out.
              if (v !== undefined) m.set(k, v);
            });
            return m;
          });
        });
      }
      case 'where':
        return this.whereStep(o);
      case 'not':
      case 'optional':
      case 'coalesce':
      case 'union':
      case 'local':
      case 'map':
      case 'flatMap':
      case 'filter':
      case 'sideEffect':
      case 'choose':
        return this.branchStep(o);
      case 'group':
      case 'groupCount':
        return this.groupStep(o);
      case 'addV':
      case 'addE':
      case 'property':
      case 'drop':
        return this.mutationStep(o);
      default:
        return unsupported(o.name);
    }
  }

  byIds(kind: 'V' | 'E', args: readonly Arg[]): Pipe {
    const ctx = this.ctx;
    const ids = args
      .flatMap((x) => (Array.isArray(x) ? x : [x]))
      .map((x) => {
        if (x instanceof Vertex || x instanceof Edge) return x.id;
        if (typeof x === 'string') return x;
        if (x instanceof Num) return String(x.v);
        throw new MalformedQueryException(`${kind}() takes ids, not ${show(x as Value)}`);
      });
    if (ids.length === 0) return kind === 'V' ? this.vertexScan({}) : this.edgeScan(undefined);
    return this.flatMapBatch(async (b) => {
      let found: Value[];
      if (kind === 'V') found = (await ctx.store.existingVertices(ids)).map((id) => ctx.vertex(id));
      else {
        const rows = await ctx.store.edgesById(ids);
        found = ids.filter((id) => rows.has(id)).map((id) => ctx.edge(rows.get(id)!));
      }
      return b.map(() => found);
    });
  }

  hasStep(o: Op): Pipe {
    const ctx = this.ctx;
    const a = o.args;
    const test = (p: Arg, v: Value): boolean => (p instanceof Pred ? p.test(v) : new Pred('eq', p as Value).test(v));
    const anyOf = (list: readonly Arg[]) => (v: Value) =>
      list.some((x) => (Array.isArray(x) ? x.some((y) => test(y, v)) : test(x, v)));
    switch (o.name) {
      case 'is': {
        const p = a[0] as Arg;
        return this.filterBatch(async (b) => b.map((t) => test(p, t.obj)));
      }
      case 'hasLabel': {
        const match = anyOf(a);
        return this.filterBatch(async (b) => {
          await ctx.resolveLabels(b.map((t) => t.obj).filter((x): x is Vertex => x instanceof Vertex));
          return b.map((t) => {
            // Neptune vertices may carry several labels (a::b); hasLabel matches any of them.
            if (t.obj instanceof Vertex) return t.obj.label!.split('::').some(match) || match(t.obj.label!);
            if (t.obj instanceof Edge) return match(t.obj.label);
            if (t.obj instanceof VertexProperty || t.obj instanceof Property) return match(t.obj.key);
            return false;
          });
        });
      }
      case 'hasId': {
        const match = anyOf(a);
        return this.filterBatch(async (b) =>
          b.map((t) =>
            isElement(t.obj) ? match(t.obj.id) : t.obj instanceof VertexProperty ? match(Num.long(t.obj.id)) : false,
          ),
        );
      }
      case 'hasNot': {
        const key = str(a[0], 'hasNot()');
        return this.filterBatch(async (b) => {
          const elems = b.map((t) => t.obj).filter(isElement);
          const props = await this.props(elems, [key]);
          return b.map((t) => isElement(t.obj) && (props.get(t.obj)?.length ?? 0) === 0);
        });
      }
    }
    // has(key) | has(key, value|P) | has(label, key, value|P) | has(T.id|T.label, value|P)
    if (a.length < 1 || a.length > 3) throw new MalformedQueryException('has() takes one to three arguments');
    let label: string | undefined;
    let key: Arg;
    let pred: Arg | undefined;
    if (a.length === 3) [label, key, pred] = [str(a[0], 'has()'), a[1]!, a[2]];
    else [key, pred] = [a[0]!, a[1]];
    if (key instanceof Token) {
      if (key.type !== 'T' || pred === undefined)
        throw new MalformedQueryException('has() takes a key or T.id/T.label');
      const inner = this.hasStep({ ...o, name: key.name === 'id' ? 'hasId' : 'hasLabel', args: [pred] });
      return inner;
    }
    const k = str(key, 'has()');
    const labelFilter = label !== undefined ? this.hasStep({ ...o, name: 'hasLabel', args: [label] }) : undefined;
    const propFilter = this.filterBatch(async (b) => {
      const elems = b.map((t) => t.obj).filter(isElement);
      const props = await this.props(elems, [k]);
      return b.map((t) => {
        if (!isElement(t.obj)) return false;
        const rows = props.get(t.obj) ?? [];
        if (pred === undefined) return rows.length > 0;
        return rows.some((r) => test(pred, decodeStored(r.type, r.value)));
      });
    });
    return labelFilter ? (input, scope) => propFilter(labelFilter(input, scope), scope) : propFilter;
  }

  mapStep(o: Op): Pipe {
    const ctx = this.ctx;
    let tokens = o.name === 'elementMap';
    const keys: string[] = [];
    for (const x of o.args) {
      if (typeof x === 'boolean') tokens = x;
      else keys.push(str(x, `${o.name}()`));
    }
    for (const w of o.mods.get('with') ?? []) {
      const opt = w[0];
      if (opt === '~tinkerpop.valueMap.tokens' || (opt instanceof Token && opt.type === 'WithOptions')) {
        const which = w[1] instanceof Token ? w[1].name : opt instanceof Token ? opt.name : 'all';
        tokens = which !== 'none';
      }
    }
    const T_ID = new Token('T', 'id');
    const T_LABEL = new Token('T', 'label');
    return this.mapBatch(async (b) => {
      const elems = b.map((t) => t.obj).filter(isElement);
      if (tokens) await ctx.resolveLabels(elems.filter((e): e is Vertex => e instanceof Vertex));
      const props = await this.props(elems, keys.length > 0 ? keys : undefined);
      const withEnds = o.name === 'elementMap' ? elems.filter((e): e is Edge => e instanceof Edge) : [];
      await ctx.resolveLabels(withEnds.flatMap((e) => [e.inV, e.outV]));
      const maps = b.map((t) => {
        const e = t.obj;
        if (!isElement(e)) return undefined;
        const m = new GMap();
        if (tokens) {
          m.set(T_ID, e.id);
          m.set(T_LABEL, e.label!);
        }
        if (o.name === 'elementMap' && e instanceof Edge) {
          m.set(
            new Token('Direction', 'IN'),
            GMap.of([
              [T_ID, e.inV.id],
              [T_LABEL, e.inV.label!],
            ]),
          );
          m.set(
            new Token('Direction', 'OUT'),
            GMap.of([
              [T_ID, e.outV.id],
              [T_LABEL, e.outV.label!],
            ]),
          );
        }
        const rows = props.get(e) ?? [];
        const names = keys.length > 0 ? keys : [...new Set(rows.map((r) => r.name))];
        for (const n of names) {
          const vals = rows.filter((r) => r.name === n).map((r) => decodeStored(r.type, r.value));
          if (vals.length === 0) continue;
          // valueMap lists a vertex's values (multi-properties); edges and elementMap have one.
          m.set(n, o.name === 'valueMap' && e instanceof Vertex ? vals : vals[0]!);
        }
        return m;
      });
      // valueMap().by(unfold()): the modulator maps each property's value list.
      const by = o.by[0];
      if (by && o.name === 'valueMap') {
        const slots: [GMap, Value][] = [];
        for (const m of maps) if (m) for (const [k] of m.entries()) if (!(k instanceof Token)) slots.push([m, k]);
        const vals = await this.byValues(
          by,
          slots.map(([m, k]) => fresh(m.get(k)!, 0)),
        );
        slots.forEach(([m, k], i) => {
          const v = vals[i];
          if (v === undefined) m.delete(k);
          else m.set(k, v);
        });
      }
      return maps;
    });
  }

  pathStep(o: Op): Pipe {
    return this.mapBatch(async (b) => {
      const paths = b.map((t) => {
        const nodes: PathNode[] = [];
        for (let n = t.path; n; n = n.prev) nodes.push(n);
        return nodes.reverse();
      });
      if (o.by.length === 0)
        return paths.map(
          (ns) =>
            new Path(
              ns.map((n) => n.labels),
              ns.map((n) => n.obj),
            ),
        );
      // by() modulators apply round-robin over the path's objects; evaluate each modulator once
      // over every object it applies to, across the batch.
      const slots: { p: number; j: number }[][] = o.by.map(() => []);
      paths.forEach((ns, p) => {
        ns.forEach((_, j) => {
          slots[j % o.by.length]!.push({ p, j });
        });
      });
      const vals: (Value | undefined)[][] = paths.map((ns) => new Array(ns.length));
      for (let k = 0; k < o.by.length; k++) {
        // The modulator sees only the object (a fresh path), so each distinct object is
        // evaluated once per batch: a vertex shared by many paths is read once.
        const index = new Map<string, number>();
        const starts: Trav[] = [];
        const which = slots[k]!.map(({ p, j }) => {
          const obj = paths[p]![j]!.obj;
          const key = keyOf(obj);
          let i = index.get(key);
          if (i === undefined) {
            i = starts.length;
            index.set(key, i);
            starts.push(fresh(obj, 0));
          }
          return i;
        });
        const res = await this.byValues(o.by[k], starts);
        slots[k]!.forEach(({ p, j }, n) => {
          vals[p]![j] = res[which[n]!];
        });
      }
      return paths.map((ns, p) =>
        vals[p]!.some((v) => v === undefined)
          ? undefined
          : new Path(
              ns.map((n) => n.labels),
              vals[p] as Value[],
            ),
      );
    });
  }

  reducingStep(o: Op): Pipe {
    const local = o.args[0] instanceof Token && o.args[0].type === 'Scope' && o.args[0].name === 'local';
    if (local) {
      return this.mapBatch(async (b) =>
        b.map((t) => {
          const items = Array.isArray(t.obj)
            ? t.obj
            : t.obj instanceof GMap
              ? [...t.obj.entries()].map(([, v]) => v)
              : [t.obj];
          if (o.name === 'count') return Num.long(t.obj instanceof GMap ? t.obj.size : items.length);
          if (o.name === 'fold') return items;
          return numericReduce(o.name, items);
        }),
      );
    }
    switch (o.name) {
      case 'count':
        return this.reduce(
          () => 0,
          (n) => n + 1,
          (n) => Num.long(n),
        );
      case 'fold':
        return this.reduce<Value[]>(
          () => [],
          (acc, t) => {
            acc.push(t.obj);
            return acc;
          },
          (acc) => acc,
        );
      default:
        return this.reduce<Value[]>(
          () => [],
          (acc, t) => {
            acc.push(t.obj);
            return acc;
          },
          (acc, seen) => (seen ? numericReduce(o.name, acc) : undefined),
        );
    }
  }

  rangeStep(o: Op): Pipe {
    const a = o.args.filter((x) => !(x instanceof Token));
    if (o.name === 'tail') {
      const n = a.length > 0 ? int(a[0], 'tail()') : 1;
      return this.barrier(async (ts) => ts.slice(Math.max(0, ts.length - n)));
    }
    const [lo, hi] = o.name === 'limit' ? [0, int(a[0], 'limit()')] : [int(a[0], 'range()'), int(a[1], 'range()')];
    const ctx = this.ctx;
    return async function* (input, scope) {
      const seen = new Map<number, number>();
      let finished = 0;
      for await (const b of input) {
        await ctx.tick();
        const out: Batch = [];
        for (const t of b) {
          const n = seen.get(t.tag) ?? 0;
          seen.set(t.tag, n + 1);
          if (n >= lo && (hi < 0 || n < hi)) out.push(t);
          if (hi >= 0 && n + 1 === hi) finished++;
        }
        if (out.length > 0) yield out;
        // Every tag has all it needs: stop pulling (this ends the scan upstream).
        if (hi >= 0 && finished >= scope.length) return;
      }
    };
  }

  dedupStep(o: Op): Pipe {
    const ctx = this.ctx;
    const labels = o.args.filter((x): x is string => typeof x === 'string');
    const by = o.by[0];
    const self = this;
    return async function* (input) {
      const seen = new Map<number, Set<string>>();
      for await (const b of input) {
        await ctx.tick();
        let keys: (Value | undefined)[];
        if (labels.length > 0) keys = b.map((t) => labels.map((l) => selectLabel(t, l, 'last') ?? null));
        else keys = await self.byValues(by, b);
        const out: Batch = [];
        b.forEach((t, i) => {
          const k = keys[i];
          if (k === undefined) return;
          let s = seen.get(t.tag);
          if (!s) {
            s = new Set();
            seen.set(t.tag, s);
          }
          const key = keyOf(k);
          if (s.has(key)) return;
          s.add(key);
          out.push(t);
        });
        if (out.length > 0) yield out;
      }
    };
  }

  orderStep(o: Op): Pipe {
    const local = o.args[0] instanceof Token && o.args[0].name === 'local';
    const bys = o.by.length > 0 ? o.by : [{ kind: 'identity' } as ByMod];
    const cmpFor = (by: ByMod) => (x: Value, y: Value) => {
      const c = orderValues(x, y);
      return by.order === 'desc' ? -c : c;
    };
    if (local) {
      return this.mapBatch(
        async (b) =>
          b.map((t) => {
            const v = t.obj;
            if (Array.isArray(v)) return [...v].sort(cmpFor(bys[0]!));
            if (v instanceof GMap) {
              const by = bys[0]!;
              const col = by.kind === 'token' && by.token.type === 'Column' ? by.token.name : 'keys';
              const entries = [...v.entries()].sort((p, q) =>
                cmpFor(by)(col === 'keys' ? p[0] : p[1], col === 'keys' ? q[0] : q[1]),
              );
              return GMap.of(entries);
            }
            return v;
          }),
        false,
      );
    }
    return this.barrier(async (ts) => {
      if (bys.some((b) => b.order === 'shuffle')) {
        const a = [...ts];
        for (let i = a.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [a[i], a[j]] = [a[j]!, a[i]!];
        }
        return a;
      }
      const cols = await Promise.all(bys.map((by) => this.byValues(by, ts)));
      const idx = ts.map((_, i) => i).filter((i) => cols.every((c) => c[i] !== undefined));
      idx.sort((i, j) => {
        for (let k = 0; k < bys.length; k++) {
          const c = cmpFor(bys[k]!)(cols[k]![i]!, cols[k]![j]!);
          if (c !== 0) return c;
        }
        return i - j;
      });
      return idx.map((i) => ts[i]!);
    });
  }

  repeatStep(o: Op): Pipe {
    const ctx = this.ctx;
    const body = this.compile(travArg(o.args[0], 'repeat()').steps);
    const timesArg = o.mods.get('times')?.[0]?.[0];
    const times = timesArg !== undefined ? int(timesArg, 'times()') : undefined;
    const cond = (key: string): { present: boolean; pipe?: Pipe; pred?: Pred } => {
      const m = o.mods.get(key);
      if (!m) return { present: false };
      const x = m[0]?.[0];
      if (x === undefined) return { present: true };
      if (x instanceof Traversal) return { present: true, pipe: this.compile(x.steps) };
      if (x instanceof Pred) return { present: true, pred: x };
      throw new MalformedQueryException(`${key.replace(':first', '')}() takes a traversal`);
    };
    const until = cond('until');
    const untilFirst = o.mods.has('until:first');
    const emit = cond('emit');
    const emitFirst = o.mods.has('emit:first');
    const check = async (c: { pipe?: Pipe; pred?: Pred }, ts: Trav[]): Promise<boolean[]> => {
      if (c.pred) return ts.map((t) => c.pred!.test(t.obj));
      if (!c.pipe) return ts.map(() => true);
      return (await this.runChild(c.pipe, ts)).map((r) => r.length > 0);
    };
    return async function* (input, scope) {
      for await (const b of input) {
        let frontier: Trav[] = b.map((t) => ({ ...t, loops: 0 }));
        const startOut: Trav[] = [];
        if (untilFirst && until.present) {
          const stop = await check(until, frontier);
          startOut.push(...frontier.filter((_, i) => stop[i]));
          frontier = frontier.filter((_, i) => !stop[i]);
        }
        if (emitFirst && emit.present) {
          const em = await check(emit, frontier);
          startOut.push(...frontier.filter((_, i) => em[i]));
        }
        if (startOut.length > 0) yield startOut;
        while (frontier.length > 0) {
          await ctx.tick();
          // DEVIATION(neptune): the body runs once per loop, so a stateful step inside it
          // (dedup(), limit()) applies per loop rather than across all loops.
          const next: Trav[] = [];
          for await (const nb of body(once(frontier), scope)) {
            for (const t of nb) next.push({ ...t, loops: t.loops + 1 });
            ctx.guardBarrier(next.length);
          }
          const out: Trav[] = [];
          let cont: Trav[] = [];
          const done = times !== undefined ? next.map((t) => t.loops >= times) : next.map(() => false);
          if (until.present) {
            const stop = await check(until, next);
            stop.forEach((s, i) => {
              if (s) done[i] = true;
            });
          }
          const rest = next.filter((_, i) => !done[i]);
          next.forEach((t, i) => {
            if (done[i]) out.push(t);
          });
          if (emit.present && rest.length > 0) {
            const em = await check(emit, rest);
            rest.forEach((t, i) => {
              if (em[i]) out.push(t);
            });
          }
          cont = rest;
          if (out.length > 0) yield out;
          frontier = cont;
          ctx.guardBarrier(frontier.length);
        }
      }
    };
  }

  selectStep(o: Op): Pipe {
    const a = o.args;
    let pop = 'last';
    const keys: string[] = [];
    let column: string | undefined;
    for (const x of a) {
      if (x instanceof Token && x.type === 'Pop') pop = x.name;
      else if (x instanceof Token && x.type === 'Column') column = x.name;
      else keys.push(str(x, 'select()'));
    }
    if (column) {
      return this.mapBatch(async (b) =>
        b.map((t) => {
          const v = t.obj;
          if (v instanceof GMap) {
            const es = [...v.entries()];
            return es.map(([k, x]) => (column === 'keys' ? k : x));
          }
          return undefined;
        }),
      );
    }
    if (keys.length === 0) throw new MalformedQueryException('select() needs a key');
    return this.mapBatch(async (b) => {
      const picked = b.map((t) => keys.map((k) => selectLabel(t, k, pop)));
      const cols = await Promise.all(
        keys.map((_, i) =>
          this.byValues(
            o.by.length ? o.by[i % o.by.length] : undefined,
            picked.map((p, r) => ({ ...b[r]!, obj: p[i] ?? null })),
          ),
        ),
      );
      return b.map((_, r) => {
        if (picked[r]!.some((x) => x === undefined)) return undefined;
        const vals = keys.map((_, i) => cols[i]![r]);
        if (vals.some((v) => v === undefined)) return undefined;
        if (keys.length === 1) return vals[0]!;
        return GMap.of(keys.map((k, i) => [k, vals[i]!] as [Value, Value]));
      });
    });
  }

  whereStep(o: Op): Pipe {
    const a = o.args;
    if (a[0] instanceof Traversal) {
      const pipe = this.compile(a[0].steps);
      return this.filterBatch(async (b) => (await this.runChild(pipe, b)).map((r) => r.length > 0));
    }
    // where(P) compares the current object with a labelled one; where('a', P) a labelled one with another.
    const [left, p] = a[0] instanceof Pred ? [undefined, a[0]] : [str(a[0], 'where()'), a[1]];
    if (!(p instanceof Pred)) throw new MalformedQueryException('where() takes a traversal or a predicate');
    const target = p.value;
    if (typeof target !== 'string')
      throw new MalformedQueryException('where(P) compares with a step label: use a string');
    const byL = o.by[0];
    const byR = o.by[1] ?? o.by[0];
    return this.filterBatch(async (b) => {
      const lhs = b.map((t) => (left === undefined ? t.obj : selectLabel(t, left, 'last')));
      const rhs = b.map((t) => selectLabel(t, target, 'last'));
      const lv = await this.byValues(
        byL,
        b.map((t, i) => ({ ...t, obj: lhs[i] ?? null })),
      );
      const rv = await this.byValues(
        byR,
        b.map((t, i) => ({ ...t, obj: rhs[i] ?? null })),
      );
      return b.map((_, i) => {
        if (lhs[i] === undefined || rhs[i] === undefined || lv[i] === undefined || rv[i] === undefined) return false;
        return new Pred(p.op, rv[i]!, p.other).test(lv[i]!);
      });
    });
  }

  branchStep(o: Op): Pipe {
    const ctx = this.ctx;
    const cond = o.name === 'choose' && o.args[0] instanceof Pred ? o.args[0] : undefined;
    const pipes = o.args.filter((_, i) => !(cond && i === 0)).map((x) => this.compile(travArg(x, `${o.name}()`).steps));
    if (pipes.length === 0) throw new MalformedQueryException(`${o.name}() needs a traversal`);
    if (o.name === 'choose' && o.args.length < 2)
      throw new MalformedQueryException(
        'choose() takes a condition and one or two traversals (option() is not supported)',
      );
    const self = this;
    return async function* (input) {
      for await (const b of input) {
        await ctx.tick();
        const restore = (parent: Trav, r: Trav): Trav => ({ ...r, tag: parent.tag });
        const out: Batch = [];
        switch (o.name) {
          case 'not': {
            const res = await self.runChild(pipes[0]!, b);
            b.forEach((t, i) => {
              if (res[i]!.length === 0) out.push(t);
            });
            break;
          }
          case 'optional':
          case 'local': {
            const res = await self.runChild(pipes[0]!, b);
            b.forEach((t, i) => {
              if (res[i]!.length > 0) for (const r of res[i]!) out.push(restore(t, r));
              else if (o.name === 'optional') out.push(t);
            });
            break;
          }
          case 'coalesce': {
            // Each traverser takes the first branch that yields anything.
            const answers: Trav[][] = b.map(() => []);
            let pending = b.map((_, i) => i);
            for (const pipe of pipes) {
              if (pending.length === 0) break;
              const res = await self.runChild(
                pipe,
                pending.map((i) => b[i]!),
              );
              const still: number[] = [];
              pending.forEach((i, k) => {
                if (res[k]!.length > 0) answers[i] = res[k]!;
                else still.push(i);
              });
              pending = still;
            }
            b.forEach((t, i) => {
              for (const r of answers[i]!) out.push(restore(t, r));
            });
            break;
          }
          case 'map':
          case 'flatMap': {
            // A map step appends the child's result to the path, not the child's own steps.
            const res = await self.runChild(pipes[0]!, b);
            b.forEach((t, i) => {
              const rs = o.name === 'map' ? res[i]!.slice(0, 1) : res[i]!;
              for (const r of rs) out.push(extend(t, r.obj));
            });
            break;
          }
          case 'filter':
          case 'sideEffect': {
            const res = await self.runChild(pipes[0]!, b);
            b.forEach((t, i) => {
              if (o.name === 'sideEffect' || res[i]!.length > 0) out.push(t);
            });
            break;
          }
          case 'choose': {
            // choose(condition, whenTrue[, whenFalse]): a predicate on the object, or a traversal
            // that yields something; without whenFalse the traverser passes unchanged.
            const [test, yes, no] = cond ? [undefined, pipes[0]!, pipes[1]] : [pipes[0]!, pipes[1]!, pipes[2]];
            const truth = test
              ? (await self.runChild(test, b)).map((r) => r.length > 0)
              : b.map((t) => cond!.test(t.obj));
            const ti = b.flatMap((_, i) => (truth[i] ? [i] : []));
            const fi = b.flatMap((_, i) => (truth[i] ? [] : [i]));
            const tr = await self.runChild(
              yes,
              ti.map((i) => b[i]!),
            );
            const fr = no
              ? await self.runChild(
                  no,
                  fi.map((i) => b[i]!),
                )
              : fi.map((i) => [b[i]!]);
            const per: Trav[][] = b.map(() => []);
            ti.forEach((i, k) => {
              per[i] = tr[k]!;
            });
            fi.forEach((i, k) => {
              per[i] = fr[k]!;
            });
            b.forEach((t, i) => {
              for (const r of per[i]!) out.push(restore(t, r));
            });
            break;
          }
          case 'union': {
            // DEVIATION(neptune): branches run per traverser (each traverser's results, branch by
            // branch, in order), so a reducing step inside a branch (union(count(), ...)) reduces
            // that traverser's results, where TinkerPop's global branches would reduce them all.
            const res = await Promise.all(pipes.map((p) => self.runChild(p, b)));
            b.forEach((t, i) => {
              for (const branch of res) for (const r of branch[i]!) out.push(restore(t, r));
            });
            break;
          }
        }
        if (out.length > 0) yield out;
      }
    };
  }

  groupStep(o: Op): Pipe {
    const keyBy = o.by[0];
    const valBy = o.name === 'group' ? o.by[1] : undefined;
    return this.barrier(async (ts, tag) => {
      const keys = await this.byValues(keyBy, ts);
      const groups = new Map<string, { key: Value; members: Trav[] }>();
      ts.forEach((t, i) => {
        const k = keys[i];
        if (k === undefined) return;
        const kk = keyOf(k);
        let g = groups.get(kk);
        if (!g) {
          g = { key: k, members: [] };
          groups.set(kk, g);
        }
        g.members.push(t);
      });
      const m = new GMap();
      if (o.name === 'groupCount') {
        for (const g of groups.values()) m.set(g.key, Num.long(g.members.length));
        return [fresh(m, tag)];
      }
      const gs = [...groups.values()];
      if (valBy?.kind !== 'trav') {
        for (const g of gs) {
          const vals = await this.byValues(valBy, g.members);
          m.set(
            g.key,
            vals.filter((v): v is Value => v !== undefined),
          );
        }
        return [fresh(m, tag)];
      }
      // A value traversal runs over each group's members together (one tag per group): it
      // reduces them when it ends in a reducing step, else its results are folded.
      const base = this.ctx.tags(gs.length);
      const input = gs.flatMap((g, i) => g.members.map((t) => ({ ...t, tag: base + i })));
      const res: Value[][] = gs.map(() => []);
      for await (const b of valBy.pipe(
        once(input),
        gs.map((_, i) => base + i),
      ))
        for (const t of b) res[t.tag - base]!.push(t.obj);
      gs.forEach((g, i) => {
        if (valBy.reducing) {
          if (res[i]!.length > 0) m.set(g.key, res[i]![0]!);
        } else m.set(g.key, res[i]!);
      });
      return [fresh(m, tag)];
    });
  }

  mutationStep(o: Op): Pipe {
    const ctx = this.ctx;
    const self = this;
    const a = o.args;
    switch (o.name) {
      case 'addV': {
        const label = a.length > 0 ? str(a[0], 'addV()') : 'vertex';
        return this.mapBatch(async (b) => {
          const out: Value[] = [];
          for (const _ of b) {
            const id = randomUUID();
            await ctx.store.addVertex(id, label.split('::'));
            out.push(ctx.vertex(id, label));
          }
          return out;
        });
      }
      case 'addE': {
        const label = str(a[0], 'addE()');
        const end = (which: 'from' | 'to') => {
          const m = o.mods.get(which)?.[0]?.[0];
          if (m === undefined) return undefined;
          if (typeof m === 'string') return { label: m };
          if (m instanceof Traversal) return { pipe: this.compile(m.steps) };
          if (m instanceof Vertex) return { vertex: m };
          throw new MalformedQueryException(`${which}() takes a step label, a traversal or a vertex`);
        };
        const from = end('from');
        const to = end('to');
        const resolve = async (spec: ReturnType<typeof end>, b: Batch): Promise<(Value | undefined)[]> => {
          if (!spec) return b.map((t) => t.obj);
          if ('label' in spec) return b.map((t) => selectLabel(t, spec.label!, 'last'));
          if ('vertex' in spec) return b.map(() => spec.vertex);
          return (await this.runChild(spec.pipe!, b)).map((r) => r[0]?.obj);
        };
        return this.mapBatch(async (b) => {
          const fs = await resolve(from, b);
          const tos = await resolve(to, b);
          const out: (Value | undefined)[] = [];
          for (let i = 0; i < b.length; i++) {
            const f = fs[i];
            const t = tos[i];
            if (!(f instanceof Vertex) || !(t instanceof Vertex))
              throw new ConstraintViolationException('addE() needs a from and a to vertex');
            const exists = await ctx.store.existingVertices([f.id, t.id]);
            if (exists.length < (f.id === t.id ? 1 : 2))
              throw new ConstraintViolationException('addE(): the from or to vertex does not exist');
            const id = randomUUID();
            await ctx.store.addEdge(id, label, f.id, t.id);
            out.push(new Edge(id, label, f, t));
          }
          return out;
        });
      }
      case 'property': {
        let single = false;
        let rest = a;
        if (a[0] instanceof Token && a[0].type === 'Cardinality') {
          single = a[0].name === 'single';
          rest = a.slice(1);
        }
        if (rest.length < 2 || rest.length % 2 !== 0)
          throw new MalformedQueryException('property() takes key, value pairs');
        const pairs: [Arg, Arg][] = [];
        for (let i = 0; i < rest.length; i += 2) pairs.push([rest[i]!, rest[i + 1]!]);
        const valuePipes = pairs.map(([, v]) => (v instanceof Traversal ? this.compile(v.steps) : undefined));
        return async function* (input) {
          for await (const b of input) {
            await ctx.tick();
            for (let p = 0; p < pairs.length; p++) {
              const [k, v] = pairs[p]!;
              const vals = valuePipes[p]
                ? (await self.runChild(valuePipes[p]!, b)).map((r) => r[0]?.obj)
                : b.map(() => v as Value);
              for (let i = 0; i < b.length; i++) {
                const e = b[i]!.obj;
                const val = vals[i];
                if (val === undefined || val === null) continue;
                if (k instanceof Token) {
                  // DEVIATION(neptune): ids are set when the element is created; property(T.id, x)
                  // right after addV()/addE() renames it here instead.
                  if (k.name === 'id' && isElement(e)) {
                    await renameElement(ctx, e, String(val instanceof Num ? val.v : val));
                    continue;
                  }
                  throw new MalformedQueryException(`property() cannot set ${k.type}.${k.name}`);
                }
                const key = str(k, 'property()');
                if (e instanceof Vertex) await ctx.store.setVertexProp(e.id, key, val, single);
                else if (e instanceof Edge) await ctx.store.setEdgeProp(e.id, key, val);
              }
            }
            yield b;
          }
        };
      }
      default: {
        // drop(): elements and properties; yields nothing.
        return async function* (input) {
          for await (const b of input) {
            await ctx.tick();
            const vs = b.map((t) => t.obj).filter((x): x is Vertex => x instanceof Vertex);
            const es = b.map((t) => t.obj).filter((x): x is Edge => x instanceof Edge);
            if (vs.length) await ctx.store.dropVertices(vs.map((v) => v.id));
            if (es.length) await ctx.store.dropEdges(es.map((e) => e.id));
            for (const t of b) {
              if (t.obj instanceof VertexProperty)
                await ctx.store.dropVertexProp(t.obj.element.id, t.obj.key, t.obj.value);
              else if (t.obj instanceof Property) await ctx.store.dropEdgeProp(t.obj.element.id, t.obj.key);
            }
          }
        };
      }
    }
  }
}

async function renameElement(ctx: Ctx, e: Vertex | Edge, id: string): Promise<void> {
  const q = ctx.store.q;
  if (e instanceof Vertex) {
    const clash = await q.get('SELECT id FROM graph_vertices WHERE id = ?', [id]);
    if (clash) throw new ConstraintViolationException(`Vertex with id already exists: ${id}`);
    for (const [t, c] of [
      ['graph_vertices', 'id'],
      ['graph_vertex_labels', 'vertex_id'],
      ['graph_vertex_props', 'vertex_id'],
      ['graph_edges', 'from_id'],
      ['graph_edges', 'to_id'],
    ] as const) {
      await q.run(`UPDATE ${t} SET ${c} = ? WHERE ${c} = ?`, [id, e.id]);
    }
  } else {
    const clash = await q.get('SELECT id FROM graph_edges WHERE id = ?', [id]);
    if (clash) throw new ConstraintViolationException(`Edge with id already exists: ${id}`);
    await q.run('UPDATE graph_edges SET id = ? WHERE id = ?', [id, e.id]);
    await q.run('UPDATE graph_edge_props SET edge_id = ? WHERE edge_id = ?', [id, e.id]);
  }
  (e as { id: string }).id = id;
}

const vpId = (vertexId: string, r: PropRow): number =>
  int32Hash(`${vertexId}\u0000${r.name}\u0000${r.type}\u0000${r.value}`);

function selectLabel(t: Trav, label: string, pop: string): Value | undefined {
  const hits: Value[] = [];
  for (let n = t.path; n; n = n.prev) if (n.labels.includes(label)) hits.push(n.obj);
  if (hits.length > 0) {
    if (pop === 'first') return hits[hits.length - 1]!;
    if (pop === 'all') return hits.reverse();
    return hits[0]!;
  }
  if (t.obj instanceof GMap) return t.obj.get(label);
  return undefined;
}

function numericReduce(name: string, items: readonly Value[]): Value | undefined {
  const nums = items.filter((x): x is Num => x instanceof Num);
  if (name === 'min' || name === 'max') {
    if (items.length === 0) return undefined;
    let best: Value = items[0]!;
    for (const x of items) {
      const c = orderValues(x, best);
      if ((name === 'min' && c < 0) || (name === 'max' && c > 0)) best = x;
    }
    return best;
  }
  if (nums.length !== items.length)
    throw new MalformedQueryException(`${name}() needs numbers, found ${show(items.find((x) => !(x instanceof Num)))}`);
  if (nums.length === 0) return undefined;
  const total = nums.reduce((s, x) => s + x.v, 0);
  if (name === 'mean') return Num.double(total / nums.length);
  // sum keeps the widest input type: Integer + Integer stays Integer unless it overflows.
  const wide = nums.some((x) => x.t === 'double' || x.t === 'float')
    ? 'double'
    : nums.some((x) => x.t === 'long') || total > 2147483647 || total < -2147483648
      ? 'long'
      : 'int';
  return new Num(total, wide);
}

/** Every vertex inside a result value (paths, maps, lists, edge ends), for label resolution. */
function collectVertices(v: Value, out: Vertex[]): void {
  if (v instanceof Vertex) out.push(v);
  else if (v instanceof Edge) out.push(v.inV, v.outV);
  else if (v instanceof Path) for (const x of v.objects) collectVertices(x, out);
  else if (v instanceof GMap)
    for (const [k, x] of v.entries()) {
      collectVertices(k, out);
      collectVertices(x, out);
    }
  else if (Array.isArray(v)) for (const x of v) collectVertices(x, out);
}

/**
 * Runs parsed statements against the graph database: reads stream batch by batch from the
 * database handle; a query that writes runs in one transaction (Neptune's per-request
 * transaction) and its results are collected inside it.
 */
export class GremlinEngine {
  constructor(
    private readonly db: Database,
    private readonly limits: EngineLimits = DEFAULT_LIMITS,
  ) {}

  /** Result batches of the last statement, labels resolved, within the limits. */
  async *stream(statements: readonly (readonly Step[])[], limits: Partial<EngineLimits> = {}): AsyncGenerator<Value[]> {
    const lim = { ...this.limits, ...limits };
    if (isMutating(statements)) {
      const all = await this.db.transaction((tx) => this.#collect(tx, statements, lim));
      for (let i = 0; i < all.length; i += 256) yield all.slice(i, i + 256);
      return;
    }
    yield* this.#run(this.db, statements, lim);
  }

  /** All results of the last statement. */
  async execute(statements: readonly (readonly Step[])[], limits: Partial<EngineLimits> = {}): Promise<Value[]> {
    const out: Value[] = [];
    for await (const b of this.stream(statements, limits)) out.push(...b);
    return out;
  }

  async #collect(q: Queryable, statements: readonly (readonly Step[])[], lim: EngineLimits): Promise<Value[]> {
    const out: Value[] = [];
    for await (const b of this.#run(q, statements, lim)) out.push(...b);
    return out;
  }

  async *#run(q: Queryable, statements: readonly (readonly Step[])[], lim: EngineLimits): AsyncGenerator<Value[]> {
    const ctx = new Ctx(q, lim);
    const compiler = new Compiler(ctx);
    const pipes = statements.map((s) => compiler.compile(s, true));
    for (let s = 0; s < pipes.length; s++) {
      const results = pipes[s]!(once([{ obj: null, path: null, loops: 0, tag: 0 }]), [0]);
      const last = s === pipes.length - 1;
      let n = 0;
      for await (const b of results) {
        if (!last) continue;
        n += b.length;
        if (n > lim.maxResults)
          throw new MemoryLimitExceededException(
            `The query returns more than ${lim.maxResults} results; add limit() or narrow it with has().`,
          );
        const vals = b.map((t) => t.obj);
        const vs: Vertex[] = [];
        for (const v of vals) collectVertices(v, vs);
        await ctx.resolveLabels(vs);
        yield vals;
      }
    }
  }
}

/** Validates a parsed query without running it (unsupported steps fail here, not mid-stream). */
export function checkSteps(statements: readonly (readonly Step[])[]): void {
  const walk = (steps: readonly Step[]) => {
    for (const s of steps) {
      if (!KNOWN.has(s.name)) unsupported(s.name);
      for (const a of s.args) walkArg(a);
    }
  };
  const walkArg = (a: Arg) => {
    if (a instanceof Traversal) walk(a.steps);
    else if (Array.isArray(a)) a.forEach(walkArg);
  };
  statements.forEach(walk);
}

const KNOWN = new Set([
  'V',
  'E',
  'inject',
  'out',
  'in',
  'both',
  'outE',
  'inE',
  'bothE',
  'outV',
  'inV',
  'bothV',
  'otherV',
  'values',
  'properties',
  'key',
  'value',
  'id',
  'label',
  'valueMap',
  'elementMap',
  'path',
  'constant',
  'identity',
  'barrier',
  'none',
  'as',
  'has',
  'hasLabel',
  'hasId',
  'hasNot',
  'is',
  'count',
  'sum',
  'min',
  'max',
  'mean',
  'fold',
  'unfold',
  'limit',
  'range',
  'tail',
  'dedup',
  'order',
  'simplePath',
  'cyclicPath',
  'repeat',
  'times',
  'until',
  'emit',
  'loops',
  'select',
  'project',
  'where',
  'not',
  'optional',
  'coalesce',
  'union',
  'local',
  'map',
  'flatMap',
  'filter',
  'sideEffect',
  'choose',
  'group',
  'groupCount',
  'addV',
  'addE',
  'property',
  'drop',
  'by',
  'with',
  'from',
  'to',
  'hasNext',
]);
