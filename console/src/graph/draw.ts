// Draws a scene on a Canvas 2D context in one pass: edges and arrowheads as one path per style,
// nodes as one path per kind, then the text that is readable at this zoom. Only what falls inside
// the visible area is drawn, so a frame of a few thousand entities takes milliseconds. The view
// draws the screen with it, the PNG export the whole picture.
import {
  FONT_FAMILY as FONT,
  type Scene,
  type SceneEdge,
  type SceneNode,
  type Shape,
  edgeEnds,
  polygon,
} from './scene.js';

/** Screen position of a picture point: point × zoom + (x, y), in CSS pixels. */
export interface Viewport {
  readonly zoom: number;
  readonly x: number;
  readonly y: number;
}

export interface DrawOptions {
  /** The area to draw, in CSS pixels (what lies outside is skipped). */
  readonly width: number;
  readonly height: number;
  readonly selected?: string;
  readonly hovered?: string;
  readonly hoveredEdge?: string;
  /** 'all': every name and edge label whatever the zoom (exports). */
  readonly text?: 'auto' | 'all';
}

export interface Drawn {
  readonly nodes: number;
  readonly edges: number;
  /** Whether every visible node's name was drawn (not only the start's and the selected one's). */
  readonly names: boolean;
}

/** Text sizes in picture units; on screen they scale with the zoom. */
const NAME_SIZE = 12;
const EDGE_SIZE = 10;
/** Text smaller than this on screen is not drawn: it cannot be read. */
export const MIN_TEXT = 7;
/** Names are drawn for every node from this zoom on. */
export const NAMES_FROM_ZOOM = MIN_TEXT / NAME_SIZE;
/** Past this many visible edges, only the edges of the selected or hovered entity are labelled. */
const EDGE_LABELS = 250;

const EDGE = '#b6bcc6';
const EDGE_HOT = '#475569';
const START_RING = '#111827';
const SELECTED_RING = '#f43f5e';
const HOVER_RING = '#64748b';
const TEXT = '#111827';
const EDGE_TEXT = '#374151';

/** Adds a node's outline to a path. */
export function addShape(p: Path2D | CanvasRenderingContext2D, shape: Shape, x: number, y: number, r: number): void {
  switch (shape) {
    case 'round-rectangle':
      p.roundRect(x - r, y - r, 2 * r, 2 * r, r / 3);
      return;
    case 'diamond':
    case 'hexagon': {
      const pts = polygon(shape, x, y, r);
      p.moveTo(pts[0]![0], pts[0]![1]);
      for (let i = 1; i < pts.length; i++) p.lineTo(pts[i]![0], pts[i]![1]);
      p.closePath();
      return;
    }
    default:
      p.moveTo(x + r, y);
      p.arc(x, y, r, 0, 2 * Math.PI);
  }
}

function haloText(ctx: CanvasRenderingContext2D, text: string, x: number, y: number): void {
  ctx.strokeText(text, x, y);
  ctx.fillText(text, x, y);
}

interface Placed {
  readonly e: SceneEdge;
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  readonly hot: boolean;
}

export function drawScene(ctx: CanvasRenderingContext2D, scene: Scene, vp: Viewport, o: DrawOptions): Drawn {
  const { zoom } = vp;
  const all = o.text === 'all';
  const pad = 60;
  const outside = (x1: number, y1: number, x2: number, y2: number) =>
    Math.max(x1, x2) < -pad ||
    Math.min(x1, x2) > o.width + pad ||
    Math.max(y1, y2) < -pad ||
    Math.min(y1, y2) > o.height + pad;
  const focus = (n: SceneNode) => n.id === o.selected || n.id === o.hovered;

  // Edges: plain ones in one path, the selected or hovered entity's in another, drawn over them.
  const lines = new Path2D();
  const heads = new Path2D();
  const hotLines = new Path2D();
  const hotHeads = new Path2D();
  const head = Math.max(3, Math.min(8, 7 * zoom));
  const placed: Placed[] = [];
  for (const e of scene.edges()) {
    const ends = edgeEnds(e);
    if (!ends) continue;
    const [x1, y1, x2, y2] = [
      ends.x1 * zoom + vp.x,
      ends.y1 * zoom + vp.y,
      ends.x2 * zoom + vp.x,
      ends.y2 * zoom + vp.y,
    ];
    if (outside(x1, y1, x2, y2)) continue;
    const hot = focus(e.source) || focus(e.target) || e.id === o.hoveredEdge;
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
    const line = hot ? hotLines : lines;
    line.moveTo(x1, y1);
    line.lineTo(x2 - ux * head * 0.8, y2 - uy * head * 0.8);
    const arrow = hot ? hotHeads : heads;
    arrow.moveTo(x2, y2);
    arrow.lineTo(x2 - ux * head - uy * head * 0.5, y2 - uy * head + ux * head * 0.5);
    arrow.lineTo(x2 - ux * head + uy * head * 0.5, y2 - uy * head - ux * head * 0.5);
    arrow.closePath();
    placed.push({ e, x1, y1, x2, y2, hot });
  }
  ctx.lineCap = 'round';
  ctx.lineWidth = Math.max(0.8, Math.min(1.5, 1.5 * zoom));
  ctx.strokeStyle = EDGE;
  ctx.fillStyle = EDGE;
  ctx.stroke(lines);
  ctx.fill(heads);
  ctx.lineWidth = 2;
  ctx.strokeStyle = EDGE_HOT;
  ctx.fillStyle = EDGE_HOT;
  ctx.stroke(hotLines);
  ctx.fill(hotHeads);

  // Nodes: one path per kind, then the rings of the start, selected and hovered entities.
  const kinds = new Map<string, { color: string; path: Path2D }>();
  const shown: { n: SceneNode; x: number; y: number; r: number }[] = [];
  for (const n of scene.nodes.values()) {
    if (!Number.isFinite(n.x)) continue;
    const [x, y] = [n.x * zoom + vp.x, n.y * zoom + vp.y];
    const r = Math.max(2.5, n.r * zoom);
    if (outside(x - r, y - r, x + r, y + r)) continue;
    let k = kinds.get(n.color + n.shape);
    if (!k) {
      k = { color: n.color, path: new Path2D() };
      kinds.set(n.color + n.shape, k);
    }
    addShape(k.path, n.shape, x, y, r);
    shown.push({ n, x, y, r });
  }
  for (const { color, path } of kinds.values()) {
    ctx.fillStyle = color;
    ctx.fill(path);
  }
  for (const { n, x, y, r } of shown) {
    const ring =
      n.id === o.selected ? SELECTED_RING : n.id === o.hovered ? HOVER_RING : n.start ? START_RING : undefined;
    if (!ring) continue;
    ctx.beginPath();
    addShape(ctx, n.shape, x, y, r + 2.5);
    ctx.lineWidth = 3;
    ctx.strokeStyle = ring;
    ctx.stroke();
  }

  // Text: names under the nodes and association types along the edges, where they can be read. A
  // label that would cover an entity or a label placed before it is left out (pointing at the
  // entity or the edge shows it), in this order: the start's, the selected and the hovered
  // entity's names, the other names, the selected and hovered entity's edges' types, the others.
  const names = all || zoom >= NAMES_FROM_ZOOM;
  const nameSize = all ? NAME_SIZE : Math.min(15, NAME_SIZE * zoom);
  const edgeSize = all ? EDGE_SIZE : Math.min(12, EDGE_SIZE * zoom);
  const labelEdges = all || (edgeSize >= MIN_TEXT && placed.length <= EDGE_LABELS);
  const leadFont = `600 ${Math.max(nameSize, 12).toFixed(1)}px ${FONT}`;
  const nameFont = `${nameSize.toFixed(1)}px ${FONT}`;
  const hotEdgeFont = `${Math.max(edgeSize, 10).toFixed(1)}px ${FONT}`;
  const edgeFont = `${edgeSize.toFixed(1)}px ${FONT}`;
  const textWidth = measurer(ctx);
  const taken = new Boxes();
  const free = (x1: number, y1: number, x2: number, y2: number) => taken.claim(x1, y1, x2, y2);
  // Text never covers an entity.
  for (const { x, y, r } of shown) taken.claim(x - r, y - r, x + r, y + r);
  const texts: { font: string; text: string; x: number; y: number; angle: number; color: string }[] = [];
  const name = (n: SceneNode, x: number, y: number, r: number, font: string, size: number) => {
    const w = textWidth(font, n.label);
    if (free(x - w / 2, y + r + 2, x + w / 2, y + r + 4 + size))
      texts.push({ font, text: n.label, x, y: y + r + 3, angle: 0, color: TEXT });
  };
  const edgeLabel = (p: Placed, font: string, size: number) => {
    if (!p.e.label) return;
    let a = Math.atan2(p.y2 - p.y1, p.x2 - p.x1);
    if (a > Math.PI / 2 || a < -Math.PI / 2) a += Math.PI;
    const w = textWidth(font, p.e.label);
    // The label's box, turned along the edge, as an upright box; it sits just above the line.
    const [mx, my] = [(p.x1 + p.x2) / 2 + (Math.sin(a) * size) / 2, (p.y1 + p.y2) / 2 - (Math.cos(a) * size) / 2];
    const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
    const [hx, hy] = [(c * w + s * size) / 2, (s * w + c * size) / 2];
    if (free(mx - hx, my - hy, mx + hx, my + hy))
      texts.push({ font, text: p.e.label, x: (p.x1 + p.x2) / 2, y: (p.y1 + p.y2) / 2, angle: a, color: EDGE_TEXT });
  };
  const leads = shown.filter(({ n }) => n.start || focus(n));
  for (const { n, x, y, r } of leads) name(n, x, y, r, leadFont, Math.max(nameSize, 12));
  if (names) for (const { n, x, y, r } of shown) if (!(n.start || focus(n))) name(n, x, y, r, nameFont, nameSize);
  for (const p of placed) if (p.hot) edgeLabel(p, hotEdgeFont, Math.max(edgeSize, 10));
  if (labelEdges) for (const p of placed) if (!p.hot) edgeLabel(p, edgeFont, edgeSize);

  ctx.lineJoin = 'round';
  ctx.textAlign = 'center';
  ctx.strokeStyle = 'rgba(255,255,255,0.92)';
  ctx.lineWidth = 3;
  let font = '';
  for (const t of texts) {
    if (t.font !== font) ctx.font = font = t.font;
    ctx.fillStyle = t.color;
    if (t.angle === 0) {
      ctx.textBaseline = 'top';
      haloText(ctx, t.text, t.x, t.y);
      continue;
    }
    ctx.textBaseline = 'bottom';
    ctx.save();
    ctx.translate(t.x, t.y);
    ctx.rotate(t.angle);
    haloText(ctx, t.text, 0, -1);
    ctx.restore();
  }
  return { nodes: shown.length, edges: placed.length, names };
}

/** Boxes on the screen, in a grid of cells: whether a new one would overlap any placed before. */
class Boxes {
  private static readonly CELL = 64;
  private readonly cells = new Map<number, number[]>();

  /** Places the box if it overlaps none; says whether it did. */
  claim(x1: number, y1: number, x2: number, y2: number): boolean {
    const C = Boxes.CELL;
    const [cx1, cx2, cy1, cy2] = [Math.floor(x1 / C), Math.floor(x2 / C), Math.floor(y1 / C), Math.floor(y2 / C)];
    for (let cx = cx1; cx <= cx2; cx++)
      for (let cy = cy1; cy <= cy2; cy++) {
        const b = this.cells.get(cx * 100_003 + cy);
        if (!b) continue;
        for (let i = 0; i < b.length; i += 4)
          if (x1 < b[i + 2]! && x2 > b[i]! && y1 < b[i + 3]! && y2 > b[i + 1]!) return false;
      }
    for (let cx = cx1; cx <= cx2; cx++)
      for (let cy = cy1; cy <= cy2; cy++) {
        const k = cx * 100_003 + cy;
        const b = this.cells.get(k);
        if (b) b.push(x1, y1, x2, y2);
        else this.cells.set(k, [x1, y1, x2, y2]);
      }
    return true;
  }
}

/** Text widths by font, measured once: the same association types and names recur frame after frame. */
const widths = new Map<string, number>();
function measurer(ctx: CanvasRenderingContext2D): (font: string, text: string) => number {
  let current = '';
  return (font, text) => {
    const key = `${font}|${text}`;
    let w = widths.get(key);
    if (w === undefined) {
      if (widths.size > 20_000) widths.clear();
      if (font !== current) ctx.font = current = font;
      w = ctx.measureText(text).width;
      widths.set(key, w);
    }
    return w;
  };
}

/** A legend row (a shape and its kind's name per kind) at (x, y); returns its width. For exports. */
export function drawLegend(
  ctx: CanvasRenderingContext2D,
  entries: readonly { kind: string; color: string; shape: Shape }[],
  x: number,
  y: number,
): number {
  ctx.font = `12px ${FONT}`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  let at = x;
  for (const { kind, color, shape } of entries) {
    ctx.beginPath();
    addShape(ctx, shape, at + 6, y, 6);
    ctx.fillStyle = color;
    ctx.fill();
    ctx.fillStyle = '#4b5563';
    ctx.fillText(kind, at + 16, y);
    at += 16 + ctx.measureText(kind).width + 16;
  }
  return at - x;
}
