// Compiles a step list into one pipe: modulators folded into their steps, a root V()/E() scan
// given the filters it can take, then each step's pipe from the registry, chained.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#traversal
import type { Step } from '../steps.js';
import { decodeStored } from '../store-access.js';
import { GMap, isElement, type Value } from '../values.js';
import type { QueryContext } from './context.js';
import { props, tokenValue } from './elements.js';
import { foldModulators } from './modulators.js';
import { stepImpl } from './registry.js';
import { rootScan } from './source-steps.js';
import type { ByMod, Compiler } from './step-api.js';
import { type Batch, once, type Pipe, type Trav } from './traverser.js';

/**
 * Steps between two stack breaks. A pipe pulls from the one before it, so a chain of n steps
 * nests n generator calls on one stack: past a few thousand, V8's stack overflows. Every SEGMENT
 * steps the pull crosses a microtask (see `decouple`), which starts on an empty stack, so the depth
 * stays bounded however long the traversal (QueryLimitException still bounds its length).
 */
const SEGMENT = 128;

/** `input`, pulled from a fresh stack: each next() of the pipe below runs in its own microtask. */
async function* decouple(input: AsyncIterable<Batch>): AsyncIterable<Batch> {
  const it = input[Symbol.asyncIterator]();
  let done = false;
  try {
    for (;;) {
      const r = await new Promise<IteratorResult<Batch>>((resolve, reject) =>
        queueMicrotask(() => it.next().then(resolve, reject)),
      );
      if (r.done) {
        done = true;
        return;
      }
      yield r.value;
    }
  } finally {
    // The consumer stopped early (limit(), an error): let the steps below clean up too.
    if (!done) await it.return?.();
  }
}

export class TraversalCompiler implements Compiler {
  constructor(readonly ctx: QueryContext) {}

  compile(steps: readonly Step[], root = false): Pipe {
    const ops = foldModulators(steps, (s) => this.compile(s));
    const pipes: Pipe[] = [];
    let i = 0;
    const scan = root ? rootScan(this.ctx, ops) : undefined;
    if (scan) {
      pipes.push(scan.pipe);
      i = scan.next;
    }
    for (; i < ops.length; i++) pipes.push(stepImpl(ops[i]!.name)(this, ops[i]!, i === 0 && root));
    return (input, scope) => {
      let it = input;
      for (let k = 0; k < pipes.length; k++) {
        if (k > 0 && k % SEGMENT === 0) it = decouple(it);
        it = pipes[k]!(it, scope);
      }
      return it;
    };
  }

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

  async byValues(by: ByMod | undefined, travs: readonly Trav[]): Promise<(Value | undefined)[]> {
    if (!by || by.kind === 'identity') return travs.map((t) => t.obj);
    if (by.kind === 'token') return Promise.all(travs.map((t) => tokenValue(this.ctx, by.token, t.obj)));
    if (by.kind === 'key') {
      const rowsOf = await props(this.ctx, travs.map((t) => t.obj).filter(isElement), [by.key]);
      return travs.map((t) => {
        if (t.obj instanceof GMap) return t.obj.get(by.key);
        if (isElement(t.obj)) {
          const rows = rowsOf.get(t.obj);
          return rows && rows.length > 0 ? decodeStored(rows[0]!.type, rows[0]!.value) : undefined;
        }
        return undefined;
      });
    }
    const results = await this.runChild(by.pipe, travs);
    return results.map((r) => (r.length > 0 ? r[0]!.obj : undefined));
  }
}
