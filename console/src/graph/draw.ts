// Draws a scene on a Canvas 2D context. The picture (drawScene) is one pass: edges and arrowheads
// as one path, nodes as one path per kind, then the text that is readable at this zoom, only for
// what falls inside the visible area. What the selection and the pointer point at (drawFocus) goes
// on a canvas of its own over the picture, so hovering redraws a handful of elements, not all of
// them. The view draws the screen with these, the PNG export the whole picture.
import { Labels, type Measure, type Placed, covered, font, placeSceneLabels } from './labels.js';
import type { Scene, SceneEdge, SceneNode, Shape } from './scene.js';
import { edgeEnds } from './scene.js';

/** Screen position of a picture point: point × zoom + (x, y), in CSS pixels. */
export interface Viewport {
  readonly zoom: number;
  readonly x: number;
  readonly y: number;
}

/** The area to draw, in CSS pixels: what lies outside it is skipped. */
export interface Area {
  readonly width: number;
  readonly height: number;
}

export interface Focus {
  readonly selected?: string;
  readonly hovered?: string;
  readonly hoveredEdge?: string;
}

export interface Drawn {
  readonly nodes: number;
  readonly edges: number;
  /** Whether every visible node's name was drawn (not only the start's). */
  readonly names: boolean;
  /** The text drawn, where it was drawn (the focus layer hides what its own text would cover). */
  readonly labels: readonly Placed[];
}

/** Text sizes in picture units; on screen they scale with the zoom. */
const NAME_SIZE = 12;
const EDGE_SIZE = 10;
/** Text smaller than this on screen is not drawn: it cannot be read. */
const MIN_TEXT = 7;
/** Names are drawn for every node from this zoom on. */
export const NAMES_FROM_ZOOM = MIN_TEXT / NAME_SIZE;
/** Past this many visible edges, only the edges of the selected or hovered entity are labelled. */
const EDGE_LABELS = 250;
/** Nodes are never drawn smaller than this radius, in screen pixels. */
const MIN_RADIUS = 2.5;
const PAD = 60;

const EDGE = '#b6bcc6';
const EDGE_HOT = '#475569';
const START_RING = '#111827';
const SELECTED_RING = '#f43f5e';
const HOVER_RING = '#64748b';

const HEXAGON = Array.from(
  { length: 6 },
  (_, i) => [Math.cos((Math.PI / 3) * i), Math.sin((Math.PI / 3) * i)] as const,
);

/**
 * Adds a node's outline to a path. Filled outlines are left open (a fill closes them): Chromium's
 * closePath costs microseconds, which for every node and arrowhead of a large picture was most
 * of a frame. `outline` closes them, for strokes.
 */
export function addShape(
  p: Path2D | CanvasRenderingContext2D,
  shape: Shape,
  x: number,
  y: number,
  r: number,
  outline = false,
): void {
  switch (shape) {
    case 'round-rectangle':
      // Rounded corners cannot be seen on a few pixels, and roundRect is slow.
      if (r < 4) p.rect(x - r, y - r, 2 * r, 2 * r);
      else p.roundRect(x - r, y - r, 2 * r, 2 * r, r / 3);
      return;
    case 'diamond':
      p.moveTo(x, y - r);
      p.lineTo(x + r, y);
      p.lineTo(x, y + r);
      p.lineTo(x - r, y);
      if (outline) p.closePath();
      return;
    case 'hexagon':
      p.moveTo(x + r, y);
      for (let i = 1; i < 6; i++) p.lineTo(x + r * HEXAGON[i]![0], y + r * HEXAGON[i]![1]);
      if (outline) p.closePath();
      return;
    default:
      p.moveTo(x + r, y);
      p.arc(x, y, r, 0, 2 * Math.PI);
  }
}

const outside = (a: Area, x1: number, y1: number, x2: number, y2: number) =>
  Math.max(x1, x2) < -PAD ||
  Math.min(x1, x2) > a.width + PAD ||
  Math.max(y1, y2) < -PAD ||
  Math.min(y1, y2) > a.height + PAD;

/** An edge's ends on the screen, or undefined when it lies outside the area or its nodes touch. */
function place(e: SceneEdge, vp: Viewport, a: Area): [number, number, number, number] | undefined {
  const ends = edgeEnds(e);
  if (!ends) return undefined;
  const { zoom } = vp;
  const [x1, y1, x2, y2] = [ends.x1 * zoom + vp.x, ends.y1 * zoom + vp.y, ends.x2 * zoom + vp.x, ends.y2 * zoom + vp.y];
  return outside(a, x1, y1, x2, y2) ? undefined : [x1, y1, x2, y2];
}

/** A line and an arrowhead at its end. Fills close the triangles: no closePath (see addShape). */
function addEdge(lines: Path2D, heads: Path2D, [x1, y1, x2, y2]: readonly number[], head: number): void {
  const len = Math.hypot(x2! - x1!, y2! - y1!) || 1;
  const [ux, uy] = [(x2! - x1!) / len, (y2! - y1!) / len];
  lines.moveTo(x1!, y1!);
  lines.lineTo(x2! - ux * head * 0.8, y2! - uy * head * 0.8);
  heads.moveTo(x2!, y2!);
  heads.lineTo(x2! - ux * head - uy * head * 0.5, y2! - uy * head + ux * head * 0.5);
  heads.lineTo(x2! - ux * head + uy * head * 0.5, y2! - uy * head - ux * head * 0.5);
}

const headSize = (zoom: number) => Math.max(3, Math.min(8, 7 * zoom));
const screenRadius = (n: SceneNode, zoom: number) => Math.max(MIN_RADIUS, n.r * zoom);

function ring(ctx: CanvasRenderingContext2D, n: SceneNode, x: number, y: number, r: number, color: string): void {
  ctx.beginPath();
  addShape(ctx, n.shape, x, y, r + 2.5, true);
  ctx.lineWidth = 3;
  ctx.strokeStyle = color;
  ctx.stroke();
}

/** The picture: every edge and node in the area, the start entity ringed, the text readable here. */
export function drawScene(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  vp: Viewport,
  a: Area & { text?: 'auto' | 'all' },
): Drawn {
  const { zoom } = vp;
  const all = a.text === 'all';
  const lines = new Path2D();
  const heads = new Path2D();
  const head = headSize(zoom);
  const placed: { e: SceneEdge; at: [number, number, number, number] }[] = [];
  for (const e of scene.edges()) {
    const at = place(e, vp, a);
    if (!at) continue;
    addEdge(lines, heads, at, head);
    placed.push({ e, at });
  }
  // Thin lines: Skia draws strokes of at most one pixel far faster than wider ones.
  ctx.lineWidth = Math.max(0.8, Math.min(1.5, 1.5 * zoom));
  ctx.strokeStyle = EDGE;
  ctx.fillStyle = EDGE;
  ctx.stroke(lines);
  ctx.fill(heads);

  const kinds = new Map<string, { color: string; path: Path2D }>();
  const shown: { n: SceneNode; x: number; y: number; r: number }[] = [];
  for (const n of scene.nodes.values()) {
    if (!Number.isFinite(n.x)) continue;
    const [x, y, r] = [n.x * zoom + vp.x, n.y * zoom + vp.y, screenRadius(n, zoom)];
    if (outside(a, x - r, y - r, x + r, y + r)) continue;
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
  for (const { n, x, y, r } of shown) if (n.start) ring(ctx, n, x, y, r, START_RING);

  // Text, most important first: the start's name, the other names, the association types.
  const names = all || zoom >= NAMES_FROM_ZOOM;
  const nameSize = all ? NAME_SIZE : Math.min(15, NAME_SIZE * zoom);
  const edgeSize = all ? EDGE_SIZE : Math.min(12, EDGE_SIZE * zoom);
  const labels = new Labels(canvasMeasure(ctx));
  placeSceneLabels(labels, shown, placed, {
    names,
    edges: all || (edgeSize >= MIN_TEXT && placed.length <= EDGE_LABELS),
    nameSize,
    edgeSize,
  });
  drawLabels(ctx, labels.placed);
  return { nodes: shown.length, edges: placed.length, names, labels: labels.placed };
}

/**
 * Over the picture: the selected and the hovered entity ringed and named, their edges (and the
 * hovered edge) darker and labelled with their association types.
 */
export function drawFocus(
  ctx: CanvasRenderingContext2D,
  scene: Scene,
  vp: Viewport,
  a: Area,
  f: Focus,
  under: readonly Placed[] = [],
): void {
  const { zoom } = vp;
  const focused: SceneNode[] = [];
  for (const id of [f.selected, f.hovered]) {
    const n = id === undefined ? undefined : scene.nodes.get(id);
    if (n && !focused.includes(n)) focused.push(n);
  }
  const hot = new Set<SceneEdge>();
  for (const n of focused) for (const e of scene.edgesOf(n.id)) hot.add(e);
  const hoveredEdge = f.hoveredEdge === undefined ? undefined : scene.edge(f.hoveredEdge);
  if (hoveredEdge) hot.add(hoveredEdge);
  if (hot.size === 0 && focused.length === 0) return;

  const lines = new Path2D();
  const heads = new Path2D();
  const placed: { e: SceneEdge; at: [number, number, number, number] }[] = [];
  for (const e of hot) {
    const at = place(e, vp, a);
    if (!at) continue;
    addEdge(lines, heads, at, headSize(zoom));
    placed.push({ e, at });
  }
  // The text first (the names of what is in focus, then the association types of its edges).
  const labels = new Labels(canvasMeasure(ctx));
  labels.avoid(under);
  const nameSize = Math.max(12, Math.min(15, NAME_SIZE * zoom));
  const rings: { n: SceneNode; x: number; y: number; r: number }[] = [];
  for (const n of focused) {
    if (!Number.isFinite(n.x)) continue;
    const [x, y, r] = [n.x * zoom + vp.x, n.y * zoom + vp.y, screenRadius(n, zoom)];
    rings.push({ n, x, y, r });
    labels.reserve(x, y, r + 2.5);
    labels.name(n.label, x, y, r + 2, nameSize, true, true);
  }
  const edgeSize = Math.max(10, Math.min(12, EDGE_SIZE * zoom));
  for (const { e, at } of placed) labels.along(e.label, ...at, edgeSize, true);
  // The picture's text that this text would cover is hidden whole: half a name reads as another.
  ctx.fillStyle = '#ffffff';
  for (const t of covered(under, labels.placed)) {
    ctx.save();
    ctx.translate(t.x, t.y);
    ctx.rotate(t.angle);
    if (t.angle === 0) ctx.fillRect(-t.width / 2 - 3, -2, t.width + 6, t.size + 5);
    else ctx.fillRect(-t.width / 2 - 3, -t.size - 3, t.width + 6, t.size + 4);
    ctx.restore();
  }
  ctx.lineWidth = 2;
  ctx.strokeStyle = EDGE_HOT;
  ctx.fillStyle = EDGE_HOT;
  ctx.stroke(lines);
  ctx.fill(heads);
  for (const { n, x, y, r } of rings) ring(ctx, n, x, y, r, n.id === f.selected ? SELECTED_RING : HOVER_RING);
  drawLabels(ctx, labels.placed);
}

/** A legend row (a shape and its kind's name per kind) at (x, y); returns its width. For exports. */
export function drawLegend(
  ctx: CanvasRenderingContext2D,
  entries: readonly { kind: string; color: string; shape: Shape }[],
  x: number,
  y: number,
): number {
  ctx.font = font(12);
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

/** Text widths by font, measured once: the same association types and names recur frame after frame. */
const widths = new Map<string, number>();

/** Measures with a canvas context, remembering every width. */
export function canvasMeasure(ctx: CanvasRenderingContext2D): Measure {
  let measuring = '';
  return (f, text) => {
    const key = `${f}|${text}`;
    let w = widths.get(key);
    if (w === undefined) {
      if (widths.size > 20_000) widths.clear();
      if (f !== measuring) {
        ctx.font = f;
        measuring = f;
      }
      w = ctx.measureText(text).width;
      widths.set(key, w);
    }
    return w;
  };
}

/** Draws placed labels with a white halo (names over a plate where asked). */
export function drawLabels(ctx: CanvasRenderingContext2D, placed: readonly Placed[]): void {
  ctx.lineJoin = 'round';
  ctx.textAlign = 'center';
  ctx.strokeStyle = 'rgba(255,255,255,0.92)';
  ctx.lineWidth = 3;
  let current = '';
  for (const t of placed) {
    if (t.font !== current) {
      ctx.font = t.font;
      current = t.font;
    }
    if (t.angle === 0) {
      if (t.plate !== undefined) {
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(t.x - t.plate / 2 - 3, t.y - 2, t.plate + 6, t.size + 5);
      }
      ctx.fillStyle = t.color;
      ctx.textBaseline = 'top';
      ctx.strokeText(t.text, t.x, t.y);
      ctx.fillText(t.text, t.x, t.y);
      continue;
    }
    ctx.textBaseline = 'bottom';
    ctx.save();
    ctx.translate(t.x, t.y);
    ctx.rotate(t.angle);
    if (t.plate !== undefined) {
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(-t.plate / 2 - 3, -t.size - 3, t.plate + 6, t.size + 3);
    }
    ctx.fillStyle = t.color;
    ctx.strokeText(t.text, 0, -1);
    ctx.fillText(t.text, 0, -1);
    ctx.restore();
  }
}
