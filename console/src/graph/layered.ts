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

const COLUMN = 220;
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
  // An edge between two entities of one column (an image and the model both fed a deployment, and
  // the image also fed the model) is drawn between columns instead: upstream of the start a source
  // moves left of its target, downstream a target right of its source. Bounded passes: lineage may
  // hold cycles.
  for (let pass = 0; pass < 20; pass++) {
    let moved = false;
    for (const e of edges) {
      const s = layer.get(e.source);
      const t = layer.get(e.target);
      if (s === undefined || t === undefined || s < t) continue;
      if (t <= 0 && e.source !== start) {
        layer.set(e.source, t - 1);
        moved = true;
      } else if (s >= 0 && e.target !== start) {
        layer.set(e.target, s + 1);
        moved = true;
      }
    }
    if (!moved) break;
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
    const side = [...columns.keys()].filter((l) => Math.sign(l) === dir).sort((a, b) => Math.abs(a) - Math.abs(b));
    let x = 0;
    let prev = 0;
    for (const l of side) {
      const wraps = Math.ceil((columns.get(prev)?.length ?? 1) / MAX_ROWS) - 1;
      x += dir * (COLUMN * Math.abs(l - prev) + wraps * WRAP * (prev === 0 ? 0.5 : 1));
      offsets.set(l, x);
      prev = l;
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
      // Every other column sits a little lower, so an edge that skips a column does not run
      // straight through the entities between its ends.
      const zigzag = Math.abs(l) % 2 === 1 ? ROW * 0.9 : 0;
      positions.set(id, { x: base + dx, y: ((i % MAX_ROWS) - (rows - 1) / 2) * ROW + zigzag });
    });
  }
  return positions;
}
