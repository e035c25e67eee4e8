// The Gremlin traversal engine over the graph store: steps compile to async generators over
// batches of traversers (object + path + loop count), so a scan streams page by page, a step
// reads the store once per batch, and limit()/count() stop or avoid the scan. The traversal
// core and the step families are in traversal/ (see ../README.md).
// https://tinkerpop.apache.org/docs/3.7.2/reference/#traversal
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-gremlin-differences.html
import { MemoryLimitExceededException } from '../../generated/neptunedata/errors.js';
import type { Database, Queryable } from '../../storage/db/types.js';
import { type Arg, type Step, Traversal } from './steps.js';
import { DEFAULT_LIMITS, type EngineLimits, QueryContext } from './traversal/context.js';
import { TraversalCompiler } from './traversal/compiler.js';
import { isKnownStep, MUTATING } from './traversal/registry.js';
import { unsupported } from './traversal/step-api.js';
import { once } from './traversal/traverser.js';
import { Edge, GMap, Path, type Value, Vertex } from './values.js';

export { DEFAULT_LIMITS, type EngineLimits } from './traversal/context.js';

/** Calls f on every step of the statements and of the traversals nested in their arguments. */
function someStep(statements: readonly (readonly Step[])[], f: (s: Step) => boolean): boolean {
  const walk = (steps: readonly Step[]): boolean => steps.some((s) => f(s) || s.args.some(inArg));
  const inArg = (a: Arg): boolean =>
    a instanceof Traversal ? walk(a.steps) : Array.isArray(a) ? a.some(inArg) : false;
  return statements.some(walk);
}

/** Whether any statement (or nested traversal) writes. */
export function isMutating(statements: readonly (readonly Step[])[]): boolean {
  return someStep(statements, (s) => MUTATING.has(s.name));
}

/** What a query does beyond reading, for authorization: writes (addV, addE, property) and deletes (drop). */
export function queryEffects(statements: readonly (readonly Step[])[]): { write: boolean; drop: boolean } {
  return {
    write: someStep(statements, (s) => s.name !== 'drop' && MUTATING.has(s.name)),
    drop: someStep(statements, (s) => s.name === 'drop'),
  };
}

/** Validates a parsed query without running it (unsupported steps fail here, not mid-stream). */
export function checkSteps(statements: readonly (readonly Step[])[]): void {
  someStep(statements, (s) => !isKnownStep(s.name) && unsupported(s.name));
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
    const ctx = new QueryContext(q, lim);
    const compiler = new TraversalCompiler(ctx);
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
