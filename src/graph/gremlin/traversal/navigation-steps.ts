// Steps that move across the graph: vertex to adjacent vertices or incident edges (out, in,
// both, outE, inE, bothE), edge to its vertices (outV, inV, bothV, otherV). One store read per
// batch and direction. https://tinkerpop.apache.org/docs/3.7.2/reference/#vertex-steps
import { Edge, type Value, Vertex } from '../values.js';
import { flatMapBatch } from './pipes.js';
import { type StepImpl, type StepTable, strings } from './step-api.js';

const adjacent: StepImpl = (c, o) => {
  const ctx = c.ctx;
  const labels = strings(o.args, `${o.name}()`);
  const dirs: ('out' | 'in')[] = o.name.startsWith('out') ? ['out'] : o.name.startsWith('in') ? ['in'] : ['out', 'in'];
  const toEdges = o.name.endsWith('E');
  return flatMapBatch(ctx, async (b) => {
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
};

const edgeEnds: StepImpl = (c, o) =>
  flatMapBatch(c.ctx, async (b) =>
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

export const NAVIGATION_STEPS: StepTable = {
  out: adjacent,
  in: adjacent,
  both: adjacent,
  outE: adjacent,
  inE: adjacent,
  bothE: adjacent,
  outV: edgeEnds,
  inV: edgeEnds,
  bothV: edgeEnds,
  otherV: edgeEnds,
};
