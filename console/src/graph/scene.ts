// What a graph picture holds, apart from how it is drawn: nodes with a kind (colour and shape), a
// label and a position, the edges between them, and a grid over the positions so the entity under
// the pointer is found without looking at every node. No DOM here: the canvas view, the SVG export
// and the unit tests share it.
import type { Point } from './layered.js';

export interface GraphNode {
  readonly id: string;
  readonly label: string;
  /** Colour group: Artifact, Action, Context, TrialComponent, or any Gremlin label. */
  readonly kind: string;
  readonly start?: boolean;
}

export interface GraphEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly label: string;
}

export type Shape = 'round-rectangle' | 'diamond' | 'ellipse' | 'hexagon';

export const KIND_COLORS: Record<string, string> = {
  Artifact: '#2563eb',
  Action: '#d97706',
  Context: '#059669',
  TrialComponent: '#7c3aed',
};
/**
 * Colours for any other kind (Gremlin labels), handed out in the order kinds appear so no two
 * kinds of one picture share one: far from the lineage colours and from each other.
 */
const PALETTE = ['#0891b2', '#db2777', '#65a30d', '#dc2626', '#a16207', '#475569', '#c026d3', '#7c2d12'];
const SHAPES: Record<string, Shape> = {
  Artifact: 'round-rectangle',
  Action: 'diamond',
  Context: 'ellipse',
  TrialComponent: 'hexagon',
};
/** Past the palette, other kinds take the next shape with the colours again. */
const OTHER_SHAPES: readonly Shape[] = ['ellipse', 'diamond', 'round-rectangle', 'hexagon'];

/**
 * The lineage kind a label names, whatever its case and separators: the lineage exporter writes
 * Neptune vertices labelled `artifact`, `action`, `context` and `trial_component`, and those are
 * drawn as the lineage page draws Artifact, Action, Context and TrialComponent.
 */
export function lineageKind(kind: string): string | undefined {
  const k = kind.toLowerCase().replace(/[^a-z]/g, '');
  return Object.keys(KIND_COLORS).find((name) => name.toLowerCase() === k);
}

/** Node radius in picture units; the start entity is drawn larger. */
export const RADIUS = 13;
export const START_RADIUS = 17;

/** A lineage kind's colour (grey for other kinds, whose colour depends on their picture: Scene.styleOf). */
export function colorOf(kind: string): string {
  const l = lineageKind(kind);
  return l ? KIND_COLORS[l]! : '#6b7280';
}

/** Names longer than this are clipped in the picture (the whole name is in the tooltip and exports' titles). */
const NAME_CHARS = 30;
export const clip = (s: string) => (s.length > NAME_CHARS ? `${s.slice(0, NAME_CHARS - 1)}…` : s);

export interface SceneNode {
  readonly id: string;
  readonly kind: string;
  readonly color: string;
  readonly shape: Shape;
  /** The whole label, and the one drawn (clipped). */
  full: string;
  label: string;
  start: boolean;
  r: number;
  /** NaN until laid out. */
  x: number;
  y: number;
}

export interface SceneEdge {
  readonly id: string;
  readonly source: SceneNode;
  readonly target: SceneNode;
  readonly label: string;
}

/** Grid cell size in picture units: larger than any node, so a point is checked against 3×3 cells. */
const CELL = 64;
const cellKey = (cx: number, cy: number) => (cx + 2 ** 24) * 2 ** 25 + (cy + 2 ** 24);

export class Scene {
  readonly nodes = new Map<string, SceneNode>();
  private readonly edgeDefs = new Map<string, GraphEdge>();
  /** Edges whose two ends are both in the picture (an edge may arrive before one of its ends). */
  private linked: SceneEdge[] | undefined;
  /** The linked edges by id and by the nodes they touch. */
  private byId = new Map<string, SceneEdge>();
  private touching = new Map<string, SceneEdge[]>();
  private grid = new Map<number, SceneNode[]>();
  /** Colour and shape per kind, in the order kinds appeared: two kinds never look alike. */
  private readonly styles = new Map<string, { color: string; shape: Shape }>();
  private others = 0;

  styleOf(kind: string): { color: string; shape: Shape } {
    let s = this.styles.get(kind);
    if (!s) {
      const l = lineageKind(kind);
      if (l) s = { color: KIND_COLORS[l]!, shape: SHAPES[l]! };
      else {
        const i = this.others++;
        s = { color: PALETTE[i % PALETTE.length]!, shape: OTHER_SHAPES[Math.floor(i / PALETTE.length) % OTHER_SHAPES.length]! };
      }
      this.styles.set(kind, s);
    }
    return s;
  }

  /** Adds what is new; returns the nodes added. A node already there can only become the start. */
  add(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): SceneNode[] {
    const fresh: SceneNode[] = [];
    for (const n of nodes) {
      const have = this.nodes.get(n.id);
      if (have) {
        if (n.start && !have.start) {
          have.start = true;
          have.r = START_RADIUS;
        }
        continue;
      }
      const node: SceneNode = {
        id: n.id,
        kind: n.kind,
        ...this.styleOf(n.kind),
        full: n.label,
        label: clip(n.label),
        start: n.start === true,
        r: n.start ? START_RADIUS : RADIUS,
        x: Number.NaN,
        y: Number.NaN,
      };
      this.nodes.set(n.id, node);
      fresh.push(node);
    }
    for (const e of edges) if (!this.edgeDefs.has(e.id)) this.edgeDefs.set(e.id, e);
    this.linked = undefined;
    return fresh;
  }

  /** Sets new labels; returns the nodes whose label changed. */
  relabel(labels: ReadonlyMap<string, string>): SceneNode[] {
    const changed: SceneNode[] = [];
    for (const [id, full] of labels) {
      const n = this.nodes.get(id);
      if (!n || n.full === full) continue;
      n.full = full;
      n.label = clip(full);
      changed.push(n);
    }
    return changed;
  }

  edges(): readonly SceneEdge[] {
    if (!this.linked) {
      this.linked = [];
      this.byId = new Map();
      this.touching = new Map();
      const touch = (id: string, e: SceneEdge) => {
        const l = this.touching.get(id);
        if (l) l.push(e);
        else this.touching.set(id, [e]);
      };
      for (const d of this.edgeDefs.values()) {
        const source = this.nodes.get(d.source);
        const target = this.nodes.get(d.target);
        if (!source || !target) continue;
        const e = { id: d.id, source, target, label: d.label };
        this.linked.push(e);
        this.byId.set(e.id, e);
        touch(source.id, e);
        if (target !== source) touch(target.id, e);
      }
    }
    return this.linked;
  }

  edge(id: string): SceneEdge | undefined {
    this.edges();
    return this.byId.get(id);
  }

  /** The edges into and out of a node. */
  edgesOf(id: string): readonly SceneEdge[] {
    this.edges();
    return this.touching.get(id) ?? [];
  }

  /** The first start node, or the first node. */
  start(): SceneNode | undefined {
    let first: SceneNode | undefined;
    for (const n of this.nodes.values()) {
      if (n.start) return n;
      first ??= n;
    }
    return first;
  }

  /** Moves nodes to laid-out positions and indexes them for hit-testing. */
  place(positions: ReadonlyMap<string, Point>): void {
    for (const [id, p] of positions) {
      const n = this.nodes.get(id);
      if (n) {
        n.x = p.x;
        n.y = p.y;
      }
    }
    this.reindex();
  }

  /** Rebuilds the grid (after nodes moved). Linear in the number of nodes. */
  reindex(): void {
    this.grid = new Map();
    for (const n of this.nodes.values()) {
      if (!Number.isFinite(n.x)) continue;
      const k = cellKey(Math.floor(n.x / CELL), Math.floor(n.y / CELL));
      const cell = this.grid.get(k);
      if (cell) cell.push(n);
      else this.grid.set(k, [n]);
    }
  }

  /**
   * The node under a point (picture units): the nearest whose shape, or the circle of `slack`
   * around its centre (tiny nodes at a low zoom stay clickable), holds the point.
   */
  nodeAt(x: number, y: number, slack = 0): SceneNode | undefined {
    const reach = Math.max(START_RADIUS, slack);
    const [cx1, cx2] = [Math.floor((x - reach) / CELL), Math.floor((x + reach) / CELL)];
    const [cy1, cy2] = [Math.floor((y - reach) / CELL), Math.floor((y + reach) / CELL)];
    let best: SceneNode | undefined;
    let bestD = Infinity;
    for (let cx = cx1; cx <= cx2; cx++)
      for (let cy = cy1; cy <= cy2; cy++)
        for (const n of this.grid.get(cellKey(cx, cy)) ?? []) {
          const d = Math.hypot(n.x - x, n.y - y);
          if (d <= Math.max(n.r, slack) && d < bestD) {
            best = n;
            bestD = d;
          }
        }
    return best;
  }

  /** The edge passing within `tolerance` (picture units) of a point, nearest first. */
  edgeAt(x: number, y: number, tolerance: number): SceneEdge | undefined {
    let best: SceneEdge | undefined;
    let bestD = tolerance;
    for (const e of this.edges()) {
      const d = segmentDistance(x, y, e.source.x, e.source.y, e.target.x, e.target.y);
      if (d <= bestD) {
        best = e;
        bestD = d;
      }
    }
    return best;
  }

  /** The box around every laid-out node's centre, or undefined for an empty picture. */
  bounds(): { x1: number; y1: number; x2: number; y2: number } | undefined {
    let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const n of this.nodes.values()) {
      if (!Number.isFinite(n.x)) continue;
      x1 = Math.min(x1, n.x);
      y1 = Math.min(y1, n.y);
      x2 = Math.max(x2, n.x);
      y2 = Math.max(y2, n.y);
    }
    return Number.isFinite(x1) ? { x1, y1, x2, y2 } : undefined;
  }

  /** The kinds in the picture, lineage kinds first, for the legend. */
  kinds(): string[] {
    const seen = new Set<string>();
    for (const n of this.nodes.values()) seen.add(n.kind);
    const order = Object.keys(KIND_COLORS);
    const rank = (k: string) => order.indexOf(lineageKind(k) ?? '') + 1 || 99;
    return [...seen].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }
}

export function segmentDistance(px: number, py: number, x1: number, y1: number, x2: number, y2: number): number {
  const [dx, dy] = [x2 - x1, y2 - y1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / len2));
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}

/**
 * Where an edge starts and ends: on the rim of its two nodes rather than at their centres, so the
 * arrowhead is seen. (A circle of the node's radius around every shape: close enough at these sizes.)
 */
export function edgeEnds(e: SceneEdge): { x1: number; y1: number; x2: number; y2: number } | undefined {
  const { source: s, target: t } = e;
  const [dx, dy] = [t.x - s.x, t.y - s.y];
  const len = Math.hypot(dx, dy);
  if (len <= s.r + t.r) return undefined;
  const [ux, uy] = [dx / len, dy / len];
  return { x1: s.x + ux * s.r, y1: s.y + uy * s.r, x2: t.x - ux * t.r, y2: t.y - uy * t.r };
}

/** The corners of a diamond or a hexagon (flat top), for the canvas and the SVG alike. */
export function polygon(shape: 'diamond' | 'hexagon', x: number, y: number, r: number): [number, number][] {
  if (shape === 'diamond')
    return [
      [x, y - r],
      [x + r, y],
      [x, y + r],
      [x - r, y],
    ];
  return Array.from(
    { length: 6 },
    (_, i) => [x + r * Math.cos((Math.PI / 3) * i), y + r * Math.sin((Math.PI / 3) * i)] as [number, number],
  );
}

export const FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/** One legend entry per kind in the picture. */
export function legendEntries(scene: Scene): { kind: string; color: string; shape: Shape }[] {
  return scene.kinds().map((kind) => ({ kind, ...scene.styleOf(kind) }));
}

/**
 * The frame of an exported picture: room around the nodes for their names (about 7.6 units a
 * character at 12 units, more for the start's bold name) and a band on top for the legend; (dx, dy) moves picture units into it.
 */
export function exportFrame(scene: Scene): { width: number; height: number; dx: number; dy: number; legendY: number } {
  const b = scene.bounds() ?? { x1: 0, y1: 0, x2: 0, y2: 0 };
  let half = 40;
  for (const n of scene.nodes.values()) half = Math.max(half, n.label.length * (n.start ? 4.2 : 3.8));
  const [padX, top, bottom] = [half + 16, 48 + START_RADIUS, START_RADIUS + 30];
  return {
    width: b.x2 - b.x1 + 2 * padX,
    height: b.y2 - b.y1 + top + bottom,
    dx: padX - b.x1,
    dy: top - b.y1,
    legendY: 18,
  };
}
