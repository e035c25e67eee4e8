// A layered layout for lineage pictures, linear in the graph's size: the start entity in the
// middle, what it came from in columns to its left (one per step upstream) and what came from it
// to its right. A column taller than MAX_ROWS wraps into several, keeping siblings together.
// (cytoscape's general layouts took seconds for 500 entities.)

export interface LayoutEdge {
  readonly source: string;
  readonly target: string;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

const COLUMN = 260;
const WRAP = 150;
const ROW = 56;
const MAX_ROWS = 40;

export function layered(nodes: readonly string[], edges: readonly LayoutEdge[], start: string): Map<string, Point> {
  const out = new Map<string, (LayoutEdge & { up: boolean })[]>();
  const link = (a: string, e: LayoutEdge & { up: boolean }) => {
    const l = out.get(a);
    if (l) l.push(e);
    else out.set(a, [e]);
  };
  for (const e of edges) {
    // From the target, the source is one step upstream; from the source, the target one step down.
    link(e.target, { source: e.target, target: e.source, up: true });
    link(e.source, { source: e.source, target: e.target, up: false });
  }
  // Breadth-first from the start: a signed layer per entity (negative upstream), and its parent's
  // position in the walk so siblings end up next to each other.
  const layer = new Map<string, number>();
  const order = new Map<string, number>();
  const queue: string[] = [];
  const visit = (id: string, l: number) => {
    layer.set(id, l);
    order.set(id, order.size);
    queue.push(id);
  };
  const roots = nodes.includes(start) ? [start, ...nodes] : nodes;
  for (const root of roots) {
    if (layer.has(root)) continue;
    visit(root, 0);
    while (queue.length > 0) {
      const id = queue.shift()!;
      const l = layer.get(id)!;
      for (const e of out.get(id) ?? []) {
        if (layer.has(e.target)) continue;
        const step = e.up ? -1 : 1;
        visit(e.target, l + step);
      }
    }
  }
  const columns = new Map<number, string[]>();
  for (const id of nodes) {
    const l = layer.get(id) ?? 0;
    const c = columns.get(l);
    if (c) c.push(id);
    else columns.set(l, [id]);
  }
  const positions = new Map<string, Point>();
  // Columns further from the start sit further out, widened by the wrapped columns nearer in.
  const offsets = new Map<number, number>();
  for (const dir of [-1, 1]) {
    let x = 0;
    for (let l = dir; columns.has(l); l += dir) {
      const prev = columns.get(l - dir)!;
      x += dir * (COLUMN + (Math.ceil(prev.length / MAX_ROWS) - 1) * WRAP * (l - dir === 0 ? 0.5 : 1));
      offsets.set(l, x);
    }
  }
  offsets.set(0, 0);
  for (const [l, ids] of columns) {
    ids.sort((a, b) => order.get(a)! - order.get(b)!);
    const wraps = Math.ceil(ids.length / MAX_ROWS);
    const rows = Math.min(ids.length, MAX_ROWS);
    const base = offsets.get(l) ?? l * COLUMN;
    ids.forEach((id, i) => {
      const w = Math.floor(i / MAX_ROWS);
      // Wrapped columns grow away from the start.
      const dx = (l < 0 ? -1 : 1) * w * WRAP - (l === 0 ? ((wraps - 1) * WRAP) / 2 : 0);
      positions.set(id, { x: base + dx, y: ((i % MAX_ROWS) - (rows - 1) / 2) * ROW });
    });
  }
  return positions;
}
