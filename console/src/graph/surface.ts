// The two canvases a graph view draws on: the picture and, over it, the focus (the selection and
// what the pointer is on). The picture is drawn again only when it changed. While the user pans or
// zooms a picture that is slow to draw (thousands of entities in a software-rendered browser),
// the last one is moved and scaled instead, and drawn properly once the motion stops.
import { type Area, type Drawn, type Focus, type Viewport, drawFocus, drawScene } from './draw.js';
import type { Scene } from './scene.js';

/** A picture that took longer than this (ms) is moved as an image during pans and zooms. */
const SLOW = 12;

export class Surface {
  private snapshot: HTMLCanvasElement | undefined;
  /** The viewport the picture (and its snapshot) was drawn at. */
  private drawnAt: Viewport | undefined;
  private stale = true;
  private cost = 0;
  /** The text of the picture as last drawn. */
  private labels: Drawn['labels'] = [];

  constructor(
    readonly picture: HTMLCanvasElement,
    readonly focus: HTMLCanvasElement,
  ) {}

  /** The picture must be drawn again (entities added, moved or renamed). */
  invalidate(): void {
    this.stale = true;
  }

  /** Draws one frame; returns what the picture held when it was drawn again. */
  render(scene: Scene, vp: Viewport, area: Area, f: Focus, moving: boolean): Drawn | undefined {
    const dpr = globalThis.devicePixelRatio || 1;
    const [w, h] = [Math.round(area.width * dpr), Math.round(area.height * dpr)];
    for (const c of [this.picture, this.focus])
      if (c.width !== w || c.height !== h) {
        c.width = w;
        c.height = h;
        this.stale = true;
      }
    const at = this.drawnAt;
    const moved = !at || at.zoom !== vp.zoom || at.x !== vp.x || at.y !== vp.y;
    let drawn: Drawn | undefined;
    if (this.stale || (moved && !(moving && this.snapshot && this.cost > SLOW)))
      drawn = this.paint(scene, vp, area, dpr);
    else if (moved && at && this.snapshot) this.move(at, vp, dpr);
    const ctx = this.focus.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    // While the picture is moved as an image its text is not where it was placed.
    const still = drawn !== undefined || !moved;
    drawFocus(ctx, scene, vp, area, f, still ? this.labels : []);
    return drawn;
  }

  private paint(scene: Scene, vp: Viewport, area: Area, dpr: number): Drawn {
    const started = performance.now();
    const ctx = this.picture.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.picture.width, this.picture.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const drawn = drawScene(ctx, scene, vp, area);
    this.labels = drawn.labels;
    this.drawnAt = vp;
    this.stale = false;
    this.cost = performance.now() - started;
    if (this.cost > SLOW) {
      this.snapshot ??= this.picture.ownerDocument.createElement('canvas');
      this.snapshot.width = this.picture.width;
      this.snapshot.height = this.picture.height;
      this.snapshot.getContext('2d')!.drawImage(this.picture, 0, 0);
    } else this.snapshot = undefined;
    return drawn;
  }

  /** The last picture, moved from where it was drawn to the viewport now. */
  private move(at: Viewport, vp: Viewport, dpr: number): void {
    const k = vp.zoom / at.zoom;
    const ctx = this.picture.getContext('2d')!;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.picture.width, this.picture.height);
    ctx.setTransform(k, 0, 0, k, dpr * (vp.x - at.x * k), dpr * (vp.y - at.y * k));
    ctx.drawImage(this.snapshot!, 0, 0);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }
}
