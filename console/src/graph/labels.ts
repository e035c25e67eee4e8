// Text on the picture: names under nodes and association types along edges. Labels are offered in
// order of importance and one that would cover an entity or a label placed before it is left out
// (pointing at the entity or the edge shows it in the tooltip); then all are drawn with a white
// halo, so they stay readable over edges. The screen, the PNG and the SVG export place them alike
// (no DOM here: draw.ts draws them on a canvas, svg.ts writes them).
import { FONT_FAMILY, type SceneEdge, type SceneNode } from './scene.js';

export const NAME_COLOR = '#111827';
export const EDGE_TEXT_COLOR = '#374151';

export const font = (size: number, bold = false) => `${bold ? '600 ' : ''}${size.toFixed(1)}px ${FONT_FAMILY}`;

/** Boxes on the screen, in a grid of cells: whether a new one would overlap any placed before. */
class Boxes {
  private static readonly CELL = 64;
  private readonly cells = new Map<number, number[]>();

  /** Whether the box overlaps one placed before. */
  hits(x1: number, y1: number, x2: number, y2: number): boolean {
    const C = Boxes.CELL;
    const [cx1, cx2, cy1, cy2] = [Math.floor(x1 / C), Math.floor(x2 / C), Math.floor(y1 / C), Math.floor(y2 / C)];
    for (let cx = cx1; cx <= cx2; cx++)
      for (let cy = cy1; cy <= cy2; cy++) {
        const b = this.cells.get(cx * 100_003 + cy);
        if (!b) continue;
        for (let i = 0; i < b.length; i += 4)
          if (x1 < b[i + 2]! && x2 > b[i]! && y1 < b[i + 3]! && y2 > b[i + 1]!) return true;
      }
    return false;
  }

  add(x1: number, y1: number, x2: number, y2: number): void {
    const C = Boxes.CELL;
    const [cx1, cx2, cy1, cy2] = [Math.floor(x1 / C), Math.floor(x2 / C), Math.floor(y1 / C), Math.floor(y2 / C)];
    for (let cx = cx1; cx <= cx2; cx++)
      for (let cy = cy1; cy <= cy2; cy++) {
        const k = cx * 100_003 + cy;
        const b = this.cells.get(k);
        if (b) b.push(x1, y1, x2, y2);
        else this.cells.set(k, [x1, y1, x2, y2]);
      }
  }
}

/** How wide a text is in a font (CSS pixels). */
export type Measure = (font: string, text: string) => number;

/** A text placed on the picture. */
export interface Placed {
  readonly font: string;
  readonly size: number;
  readonly text: string;
  /** Name: the top centre of the text. Edge label: the middle of the edge (text above it). */
  readonly x: number;
  readonly y: number;
  readonly angle: number;
  readonly color: string;
  readonly width: number;
  /** Width of a white plate drawn under the text (names over the picture, on the focus layer). */
  readonly plate?: number;
  /** The box the text takes, upright (for tests and for exports). */
  readonly box: readonly [number, number, number, number];
}

/**
 * Places labels one after another, leaving out one that would overlap a node or a label placed
 * before it; the canvas (draw) and the SVG export (svg.ts) draw what was placed.
 */
export class Labels {
  private readonly boxes = new Boxes();
  /** Text already on the picture under this text: avoided where possible, covered where not. */
  private readonly under = new Boxes();
  readonly placed: Placed[] = [];

  constructor(private readonly width: Measure) {}

  /** Keeps text off a node at (x, y), radius r (screen pixels). */
  reserve(x: number, y: number, r: number): void {
    this.boxes.add(x - r, y - r, x + r, y + r);
  }

  /** Text drawn before, on a layer beneath: placed around where it can be (see covered()). */
  avoid(labels: readonly Placed[]): void {
    for (const t of labels) this.under.add(...t.box);
  }

  /** Takes a box if it is free: of the text beneath too, unless `over`. */
  private claim(box: Placed['box'], over: boolean): boolean {
    if (this.boxes.hits(...box) || (!over && this.under.hits(...box))) return false;
    this.boxes.add(...box);
    return true;
  }

  /**
   * A name centred under a node at (x, y) of radius r; `plate` hides what is drawn under it (and
   * the name is placed even over text beneath).
   */
  name(text: string, x: number, y: number, r: number, size: number, bold = false, plate = false): void {
    const f = font(size, bold);
    const w = this.width(f, text);
    const box = [x - w / 2, y + r + 2, x + w / 2, y + r + 4 + size] as const;
    if (this.claim(box, plate))
      this.placed.push({
        box,
        font: f,
        size,
        text,
        x,
        y: y + r + 3,
        angle: 0,
        color: NAME_COLOR,
        width: w,
        plate: plate ? w : undefined,
      });
  }

  /**
   * An edge's association type, along the edge from (x1, y1) to (x2, y2), just above it: at its
   * middle, or where it fits nearer one end. With `plate`, where it covers no text beneath if it
   * can, else over it.
   */
  along(text: string, x1: number, y1: number, x2: number, y2: number, size: number, plate = false): void {
    if (!text) return;
    const f = font(size);
    let a = Math.atan2(y2 - y1, x2 - x1);
    if (a > Math.PI / 2 || a < -Math.PI / 2) a += Math.PI;
    const w = this.width(f, text);
    const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
    const [hx, hy] = [(c * w + s * size) / 2, (s * w + c * size) / 2];
    const len = Math.hypot(x2 - x1, y2 - y1);
    // Room along the edge for the text: a short edge has only its middle.
    const room = len - w;
    const spots = room > 0 ? ALONG.filter((t) => Math.abs(t - 0.5) * len <= room / 2) : [0.5];
    for (const over of plate ? [false, true] : [false])
      for (const t of spots) {
        const [px, py] = [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t];
        // The label's box, turned along the edge, as an upright box.
        const [mx, my] = [px + (Math.sin(a) * size) / 2, py - (Math.cos(a) * size) / 2];
        const box = [mx - hx, my - hy, mx + hx, my + hy] as const;
        if (!this.claim(box, over)) continue;
        this.placed.push({
          box,
          font: f,
          size,
          text,
          x: px,
          y: py,
          angle: a,
          color: EDGE_TEXT_COLOR,
          width: w,
          plate: plate ? w : undefined,
        });
        return;
      }
  }
}

/** Where along an edge (0 its source, 1 its target) its label is tried, in order. */
const ALONG = [0.5, 0.38, 0.62, 0.27, 0.73];

/** A node where it is drawn, and its radius there. */
export interface ShownNode {
  readonly n: SceneNode;
  readonly x: number;
  readonly y: number;
  readonly r: number;
}

/** An edge and its two ends where it is drawn. */
export interface ShownEdge {
  readonly e: SceneEdge;
  readonly at: [number, number, number, number];
}

/**
 * The picture's text, most important first: the start's name (bold), the other names (when
 * `names`), then the association types (when `edges`). Every node's area is kept clear first.
 */
export function placeSceneLabels(
  labels: Labels,
  nodes: readonly ShownNode[],
  edges: readonly ShownEdge[],
  o: { names: boolean; edges: boolean; nameSize: number; edgeSize: number },
): void {
  for (const { x, y, r } of nodes) labels.reserve(x, y, r);
  for (const { n, x, y, r } of nodes) if (n.start) labels.name(n.label, x, y, r, Math.max(o.nameSize, 12), true);
  if (o.names) for (const { n, x, y, r } of nodes) if (!n.start) labels.name(n.label, x, y, r, o.nameSize);
  if (o.edges) for (const { e, at } of edges) labels.along(e.label, ...at, o.edgeSize);
}

const overlaps = (a: Placed['box'], b: Placed['box']) => a[0] < b[2] && a[2] > b[0] && a[1] < b[3] && a[3] > b[1];

/**
 * The picture's labels that labels drawn over it (the selection's and the pointer's) would cover:
 * those are hidden whole rather than left half covered.
 */
export function covered(picture: readonly Placed[], over: readonly Placed[]): Placed[] {
  if (over.length === 0) return [];
  return picture.filter((p) => over.some((o) => overlaps(p.box, o.box)));
}
