// Text on the picture: names under nodes and association types along edges. Labels are offered in
// order of importance and one that would cover an entity or a label placed before it is left out
// (pointing at the entity or the edge shows it in the tooltip); then all are drawn with a white
// halo, so they stay readable over edges.
import { FONT_FAMILY } from './scene.js';

export const NAME_COLOR = '#111827';
export const EDGE_TEXT_COLOR = '#374151';

export const font = (size: number, bold = false) => `${bold ? '600 ' : ''}${size.toFixed(1)}px ${FONT_FAMILY}`;

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

interface Placed {
  readonly font: string;
  readonly size: number;
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly angle: number;
  readonly color: string;
  /** Width of a white plate drawn under the text (names over the picture, on the focus layer). */
  readonly plate?: number;
}

export class Labels {
  private readonly boxes = new Boxes();
  private readonly placed: Placed[] = [];
  private measuring = '';

  constructor(private readonly ctx: CanvasRenderingContext2D) {}

  private width(f: string, text: string): number {
    const key = `${f}|${text}`;
    let w = widths.get(key);
    if (w === undefined) {
      if (widths.size > 20_000) widths.clear();
      if (f !== this.measuring) {
        this.ctx.font = f;
        this.measuring = f;
      }
      w = this.ctx.measureText(text).width;
      widths.set(key, w);
    }
    return w;
  }

  /** Keeps text off a node at (x, y), radius r (screen pixels). */
  reserve(x: number, y: number, r: number): void {
    this.boxes.claim(x - r, y - r, x + r, y + r);
  }

  /** A name centred under a node at (x, y) of radius r; `plate` hides what is drawn under it. */
  name(text: string, x: number, y: number, r: number, size: number, bold = false, plate = false): void {
    const f = font(size, bold);
    const w = this.width(f, text);
    if (this.boxes.claim(x - w / 2, y + r + 2, x + w / 2, y + r + 4 + size))
      this.placed.push({
        font: f,
        size,
        text,
        x,
        y: y + r + 3,
        angle: 0,
        color: NAME_COLOR,
        plate: plate ? w : undefined,
      });
  }

  /** An edge's association type, along the edge from (x1, y1) to (x2, y2), just above it. */
  along(text: string, x1: number, y1: number, x2: number, y2: number, size: number, plate = false): void {
    if (!text) return;
    const f = font(size);
    let a = Math.atan2(y2 - y1, x2 - x1);
    if (a > Math.PI / 2 || a < -Math.PI / 2) a += Math.PI;
    const w = this.width(f, text);
    // The label's box, turned along the edge, as an upright box.
    const [mx, my] = [(x1 + x2) / 2 + (Math.sin(a) * size) / 2, (y1 + y2) / 2 - (Math.cos(a) * size) / 2];
    const [c, s] = [Math.abs(Math.cos(a)), Math.abs(Math.sin(a))];
    const [hx, hy] = [(c * w + s * size) / 2, (s * w + c * size) / 2];
    if (this.boxes.claim(mx - hx, my - hy, mx + hx, my + hy))
      this.placed.push({
        font: f,
        size,
        text,
        x: (x1 + x2) / 2,
        y: (y1 + y2) / 2,
        angle: a,
        color: EDGE_TEXT_COLOR,
        plate: plate ? w : undefined,
      });
  }

  /** Draws every label placed. */
  draw(): void {
    const { ctx } = this;
    ctx.lineJoin = 'round';
    ctx.textAlign = 'center';
    ctx.strokeStyle = 'rgba(255,255,255,0.92)';
    ctx.lineWidth = 3;
    let current = '';
    for (const t of this.placed) {
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
}
