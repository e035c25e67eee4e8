// Traversers and the pipes they flow through: a traverser is an object with its path, its loop
// count and the tag of the child-traversal run it belongs to; a step is a Pipe over batches of them.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#_the_traverser
import { GMap, type Value } from '../values.js';

export interface PathNode {
  readonly obj: Value;
  readonly labels: readonly string[];
  readonly prev: PathNode | null;
}

/** One traverser. `tag` says which invocation of a local child traversal it belongs to. */
export interface Trav {
  readonly obj: Value;
  readonly path: PathNode | null;
  readonly loops: number;
  readonly tag: number;
}

export type Batch = Trav[];
/** The tags a pipe's reducing steps answer for (count() of nothing is 0 for each of them). */
export type Scope = readonly number[];
export type Pipe = (input: AsyncIterable<Batch>, scope: Scope) => AsyncIterable<Batch>;

/** The traverser moved on to `obj`: its path grows by one. */
export const extend = (t: Trav, obj: Value): Trav => ({
  obj,
  path: { obj, labels: [], prev: t.path },
  loops: t.loops,
  tag: t.tag,
});

/** A traverser that starts a path (a reducing step's result, a modulator's input). */
export const fresh = (obj: Value, tag: number): Trav => ({ obj, path: { obj, labels: [], prev: null }, loops: 0, tag });

export async function* once(b: Batch): AsyncIterable<Batch> {
  if (b.length > 0) yield b;
}

/** Two pipes one after the other. */
export const chain =
  (first: Pipe, second: Pipe): Pipe =>
  (input, scope) =>
    second(first(input, scope), scope);

/** The path's nodes, first to last. */
export function pathNodes(t: Trav): PathNode[] {
  const nodes: PathNode[] = [];
  for (let n = t.path; n; n = n.prev) nodes.push(n);
  return nodes.reverse();
}

/** The object(s) labelled `label` on the path (Pop first/last/all), else the key of a map. */
export function selectLabel(t: Trav, label: string, pop: string): Value | undefined {
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
