// The interactive graph picture, shared by the lineage and Gremlin pages: canvases drawn at the next
// animation frame, only when something changed (surface.ts, draw.ts). Wheel zooms at the pointer, dragging
// the background pans and dragging a node moves it, a click selects, a double click expands, the
// pointer over a node or an edge shows its whole name or association type. A legend of the kinds
// and zoom/fit buttons sit on the picture; the entities are also a list of buttons for keyboards
// and screen readers. Exports: PNG (the same drawing, every name) and SVG (svg.ts).
import { type Drawn, NAMES_FROM_ZOOM, type Viewport, canvasMeasure, drawLegend, drawScene } from './draw.js';
import { layered } from './layered.js';
import { type GraphEdge, type GraphNode, Scene, type SceneNode, exportFrame, legendEntries } from './scene.js';
import { Surface } from './surface.js';
import { svgShape, toSvg } from './svg.js';

export type { GraphEdge, GraphNode } from './scene.js';
export { KIND_COLORS, colorOf } from './scene.js';

export interface GraphView {
  /** Adds nodes and edges (those already there are kept); they are drawn at the next layout(). */
  add(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): void;
  relabel(labels: ReadonlyMap<string, string>): void;
  /**
   * Lays the picture out again at the next frame and fits it; when the user has moved the view,
   * keeps their zoom and centres `focus` (the entity just expanded) instead.
   */
  layout(focus?: string): void;
  fit(): void;
  /** Selects an entity (undefined: none), bringing it into view if it is outside. */
  select(id: string | undefined): void;
  size(): { nodes: number; edges: number };
  /** The whole picture with every name, twice its size where browsers allow a canvas that large. */
  png(): Promise<Blob>;
  svg(): string;
  destroy(): void;
}

export interface GraphEvents {
  select(id: string | undefined): void;
  expand?(id: string): void;
  /** After each frame that drew the picture: what was drawn, of how many nodes in the picture. */
  drawn?(d: Drawn, total: number): void;
}

const MIN_ZOOM = 0.02;
const MAX_ZOOM = 4;
/** A handful of nodes is not blown up past this zoom to fill the canvas. */
const FIT_MAX = 1.2;
/** Pointer slack in screen pixels: tiny nodes at a low zoom stay easy to hit. */
const HIT = 6;
/** Exported PNGs: twice the picture's size, within what browsers allocate for a canvas. */
const PNG_SCALE = 2;
const PNG_MAX_SIDE = 8192;
const PNG_MAX_PIXELS = 16e6;
/** The entity list (for keyboards and screen readers) is built this long after the last addition. */
const LIST_AFTER = 300;
/** A pan or zoom is over when the pointer or the wheel has been still this long (ms). */
const SETTLE = 150;

export function createGraphView(container: HTMLElement, on: GraphEvents): GraphView {
  const scene = new Scene();
  const doc = container.ownerDocument;
  const created: HTMLElement[] = [];
  const make = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, parent: HTMLElement = container) => {
    const e = doc.createElement(tag);
    e.className = cls;
    parent.append(e);
    if (parent === container) created.push(e);
    return e;
  };
  const canvas = make('canvas', 'graph-canvas graph-picture');
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'img');
  const surface = new Surface(canvas, make('canvas', 'graph-canvas graph-focus'));
  const legend = make('div', 'graph-legend');
  const controls = make('div', 'graph-controls');
  const hint = make('div', 'graph-hint');
  const tip = make('div', 'graph-tip');
  tip.hidden = true;
  const list = make('ul', 'graph-entities');
  list.setAttribute('aria-label', 'Entities in the picture');
  const items = new Map<string, HTMLButtonElement>();

  let vp: Viewport = { zoom: 1, x: 0, y: 0 };
  let width = container.clientWidth;
  let height = container.clientHeight;
  let selected: string | undefined;
  let hovered: string | undefined;
  let hoveredEdge: string | undefined;
  /** The user panned or zoomed since the last fit: a new layout keeps their view. */
  let touched = false;
  let fitWanted = false;
  let layoutWanted = false;
  let layoutFocus: string | undefined;
  let raf = 0;
  /** A pan or zoom is under way (see Surface): until it settles the picture may be moved as an image. */
  let moving = false;
  let settle: ReturnType<typeof setTimeout> | undefined;
  let names: boolean | undefined;
  let kinds = '';
  let destroyed = false;

  const invalidate = () => {
    if (!raf && !destroyed) raf = requestAnimationFrame(frame);
  };

  /** The viewport is changing under the user's hand. */
  const motion = () => {
    moving = true;
    touched = true;
    clearTimeout(settle);
    settle = setTimeout(() => {
      moving = false;
      invalidate();
    }, SETTLE);
  };

  function frame() {
    raf = 0;
    if (layoutWanted) {
      layoutWanted = false;
      const start = scene.start();
      const edges = scene.edges().map((e) => ({ source: e.source.id, target: e.target.id }));
      scene.place(layered([...scene.nodes.keys()], edges, start?.id ?? ''));
      surface.invalidate();
      const focus = layoutFocus === undefined ? undefined : scene.nodes.get(layoutFocus);
      layoutFocus = undefined;
      if (!touched) fitWanted = true;
      else if (focus) reveal(focus, true);
    }
    // Hidden (the table is shown): drawn again when the size observer sees it back.
    if (width === 0 || height === 0) return;
    if (fitWanted) fitNow();
    const d = surface.render(scene, vp, { width, height }, { selected, hovered, hoveredEdge }, moving);
    if (!d) return;
    canvas.dataset.drawnNodes = String(d.nodes);
    canvas.dataset.drawnEdges = String(d.edges);
    canvas.setAttribute('aria-label', `Graph of ${scene.nodes.size} entities and ${scene.edges().length} associations`);
    if (d.names !== names) {
      names = d.names;
      hint.textContent = `Scroll to zoom, drag to pan, click for details${on.expand ? ', double-click to add neighbours' : ''}${names ? '' : '. Zoom in or point at an entity for its name'}`;
    }
    on.drawn?.(d, scene.nodes.size);
  }

  const resize = new ResizeObserver(([entry]) => {
    if (!entry) return;
    width = entry.contentRect.width;
    height = entry.contentRect.height;
    if (!touched) fitWanted = true;
    invalidate();
  });
  resize.observe(container);

  function fitNow() {
    fitWanted = false;
    touched = false;
    const b = scene.bounds();
    if (!b) return;
    const zoomFor = (padX: number, padY: number) =>
      Math.max(
        MIN_ZOOM,
        Math.min(
          FIT_MAX,
          Math.max(1, width - 2 * padX) / Math.max(1, b.x2 - b.x1),
          Math.max(1, height - 2 * padY) / Math.max(1, b.y2 - b.y1),
        ),
      );
    // Room for the names under the outermost nodes only where names are drawn (the start's, in
    // bold at 12 px or more, may be the widest and at an edge).
    let zoom = zoomFor(30, 30);
    const startName = (scene.start()?.label.length ?? 0) * 3.9 + 12;
    if (zoom >= NAMES_FROM_ZOOM) zoom = Math.max(NAMES_FROM_ZOOM, zoomFor(Math.max(110, startName), 50));
    vp = { zoom, x: width / 2 - (zoom * (b.x1 + b.x2)) / 2, y: height / 2 - (zoom * (b.y1 + b.y2)) / 2 };
  }

  const zoomAt = (sx: number, sy: number, factor: number) => {
    const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, vp.zoom * factor));
    const k = zoom / vp.zoom;
    vp = { zoom, x: sx - (sx - vp.x) * k, y: sy - (sy - vp.y) * k };
    motion();
    invalidate();
  };
  const panBy = (dx: number, dy: number) => {
    vp = { ...vp, x: vp.x + dx, y: vp.y + dy };
    motion();
    invalidate();
  };
  const toPicture = (sx: number, sy: number) => [(sx - vp.x) / vp.zoom, (sy - vp.y) / vp.zoom] as const;
  const nodeAt = (sx: number, sy: number) => scene.nodeAt(...toPicture(sx, sy), HIT / vp.zoom);

  /** Centres a node if it lies outside the visible area (or always, when asked from the list). */
  const reveal = (n: SceneNode, always: boolean) => {
    if (!Number.isFinite(n.x)) return;
    const [sx, sy] = [n.x * vp.zoom + vp.x, n.y * vp.zoom + vp.y];
    if (!always && sx > 20 && sx < width - 20 && sy > 20 && sy < height - 20) return;
    vp = { ...vp, x: width / 2 - n.x * vp.zoom, y: height / 2 - n.y * vp.zoom };
    touched = true;
  };

  const choose = (id: string | undefined) => {
    selected = id;
    invalidate();
    on.select(id);
  };

  const showTip = (sx: number, sy: number, title: string, detail: string) => {
    tip.replaceChildren();
    make('strong', '', tip).textContent = title;
    make('span', '', tip).textContent = detail;
    tip.hidden = false;
    const [tw, th] = [tip.offsetWidth, tip.offsetHeight];
    tip.style.left = `${Math.max(4, Math.min(sx + 14, width - tw - 4))}px`;
    tip.style.top = `${sy + 18 + th > height ? sy - th - 10 : sy + 18}px`;
  };

  const hover = (sx: number, sy: number) => {
    const node = nodeAt(sx, sy);
    const edge = node ? undefined : scene.edgeAt(...toPicture(sx, sy), 5 / vp.zoom);
    if (node?.id !== hovered || edge?.id !== hoveredEdge) {
      hovered = node?.id;
      hoveredEdge = edge?.id;
      invalidate();
    }
    canvas.style.cursor = node ? 'pointer' : 'grab';
    if (node) showTip(sx, sy, node.full, node.kind);
    else if (edge) showTip(sx, sy, edge.label || 'association', `${edge.source.label} → ${edge.target.label}`);
    else tip.hidden = true;
  };

  let drag:
    | {
        pointer: number;
        sx: number;
        sy: number;
        vx: number;
        vy: number;
        node?: SceneNode;
        nx: number;
        ny: number;
        moved: boolean;
      }
    | undefined;
  const listeners: [EventTarget, string, (e: never) => void, AddEventListenerOptions?][] = [
    [
      canvas,
      'pointerdown',
      (e: PointerEvent) => {
        if (e.button !== 0) return;
        const node = nodeAt(e.offsetX, e.offsetY);
        drag = {
          pointer: e.pointerId,
          sx: e.offsetX,
          sy: e.offsetY,
          vx: vp.x,
          vy: vp.y,
          node,
          nx: node?.x ?? 0,
          ny: node?.y ?? 0,
          moved: false,
        };
        canvas.setPointerCapture(e.pointerId);
      },
    ],
    [
      canvas,
      'pointermove',
      (e: PointerEvent) => {
        if (!drag || drag.pointer !== e.pointerId) return hover(e.offsetX, e.offsetY);
        const [dx, dy] = [e.offsetX - drag.sx, e.offsetY - drag.sy];
        if (!drag.moved && Math.hypot(dx, dy) < 4) return;
        drag.moved = true;
        tip.hidden = true;
        canvas.style.cursor = 'grabbing';
        if (drag.node) {
          drag.node.x = drag.nx + dx / vp.zoom;
          drag.node.y = drag.ny + dy / vp.zoom;
          surface.invalidate();
        } else {
          vp = { ...vp, x: drag.vx + dx, y: drag.vy + dy };
          motion();
        }
        invalidate();
      },
    ],
    [
      canvas,
      'pointerup',
      (e: PointerEvent) => {
        const d = drag;
        drag = undefined;
        if (!d || d.pointer !== e.pointerId) return;
        if (d.moved) {
          if (d.node) scene.reindex();
          canvas.style.cursor = 'grab';
          return;
        }
        choose(nodeAt(e.offsetX, e.offsetY)?.id);
      },
    ],
    [canvas, 'pointercancel', () => (drag = undefined)],
    [
      canvas,
      'pointerleave',
      () => {
        tip.hidden = true;
        if (hovered || hoveredEdge) {
          hovered = hoveredEdge = undefined;
          invalidate();
        }
      },
    ],
    [
      canvas,
      'dblclick',
      (e: MouseEvent) => {
        const n = nodeAt(e.offsetX, e.offsetY);
        if (n) on.expand?.(n.id);
      },
    ],
    [
      canvas,
      'wheel',
      (e: WheelEvent) => {
        e.preventDefault();
        const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaMode === 2 ? e.deltaY * height : e.deltaY;
        zoomAt(e.offsetX, e.offsetY, Math.exp(-dy * 0.002));
        hover(e.offsetX, e.offsetY);
      },
      { passive: false },
    ],
    [
      canvas,
      'keydown',
      (e: KeyboardEvent) => {
        const step = 60;
        const keys: Record<string, () => void> = {
          '+': () => zoomAt(width / 2, height / 2, 1.25),
          '=': () => zoomAt(width / 2, height / 2, 1.25),
          '-': () => zoomAt(width / 2, height / 2, 0.8),
          '0': () => view.fit(),
          ArrowLeft: () => panBy(step, 0),
          ArrowRight: () => panBy(-step, 0),
          ArrowUp: () => panBy(0, step),
          ArrowDown: () => panBy(0, -step),
          Escape: () => choose(undefined),
        };
        const act = keys[e.key];
        if (!act) return;
        e.preventDefault();
        act();
      },
    ],
  ];
  for (const [target, type, fn, opts] of listeners) target.addEventListener(type, fn as EventListener, opts);

  for (const [label, text, act] of [
    ['Zoom in', '+', () => zoomAt(width / 2, height / 2, 1.5)],
    ['Zoom out', '−', () => zoomAt(width / 2, height / 2, 1 / 1.5)],
    ['Fit the picture', 'Fit', () => view.fit()],
  ] as const) {
    const b = make('button', '', controls);
    b.type = 'button';
    b.textContent = text;
    b.title = label;
    b.setAttribute('aria-label', label);
    b.addEventListener('click', act);
  }

  const listItem = (n: SceneNode) => {
    const li = doc.createElement('li');
    const b = make('button', '', li);
    b.type = 'button';
    b.dataset.id = n.id;
    b.dataset.kind = n.kind;
    b.textContent = `${n.full} (${n.kind})`;
    // Focus shows where the entity is; Enter or a click selects it.
    b.addEventListener('focus', () => {
      hovered = n.id;
      reveal(n, false);
      invalidate();
    });
    b.addEventListener('blur', () => {
      if (hovered === n.id) hovered = undefined;
      invalidate();
    });
    b.addEventListener('click', () => {
      reveal(n, true);
      choose(n.id);
    });
    items.set(n.id, b);
    return li;
  };

  let unlisted: SceneNode[] = [];
  let listTimer: ReturnType<typeof setTimeout> | undefined;
  const listNew = () => {
    const frag = doc.createDocumentFragment();
    for (const n of unlisted) frag.append(listItem(n));
    unlisted = [];
    list.append(frag);
  };

  const updateLegend = () => {
    const entries = legendEntries(scene);
    const key = entries.map((e) => e.kind).join('\n');
    if (key === kinds) return;
    kinds = key;
    legend.replaceChildren();
    for (const { kind, color, shape } of entries) {
      const s = make('span', '', legend);
      s.innerHTML = `<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">${svgShape(shape, 6, 6, 5.5, `fill="${color}"`)}</svg>`;
      s.append(kind);
    }
    if ([...scene.nodes.values()].some((n) => n.start)) {
      const s = make('span', '', legend);
      s.innerHTML =
        '<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><circle cx="6" cy="6" r="4.5" fill="none" stroke="#111827" stroke-width="2"/></svg>';
      s.append('where it starts');
    }
  };

  const view: GraphView = {
    add(nodes, edges) {
      unlisted.push(...scene.add(nodes, edges));
      // The list is built once the additions stop: while pages of a read arrive, the browser's
      // time goes to the read and the picture.
      clearTimeout(listTimer);
      listTimer = setTimeout(listNew, LIST_AFTER);
      updateLegend();
    },
    relabel(labels) {
      const changed = scene.relabel(labels);
      for (const n of changed) {
        const b = items.get(n.id);
        if (b) b.textContent = `${n.full} (${n.kind})`;
      }
      if (changed.length === 0) return;
      surface.invalidate();
      invalidate();
    },
    layout(focus) {
      layoutWanted = true;
      layoutFocus = focus;
      invalidate();
    },
    fit() {
      fitWanted = true;
      invalidate();
    },
    select(id) {
      if (id === selected) return;
      selected = id;
      const n = id === undefined ? undefined : scene.nodes.get(id);
      if (n && width > 0) reveal(n, false);
      invalidate();
    },
    size: () => ({ nodes: scene.nodes.size, edges: scene.edges().length }),
    png() {
      const fr = exportFrame(scene);
      const scale = Math.min(
        PNG_SCALE,
        PNG_MAX_SIDE / fr.width,
        PNG_MAX_SIDE / fr.height,
        Math.sqrt(PNG_MAX_PIXELS / (fr.width * fr.height)),
      );
      const c = doc.createElement('canvas');
      c.width = Math.ceil(fr.width * scale);
      c.height = Math.ceil(fr.height * scale);
      const ctx = c.getContext('2d')!;
      ctx.scale(scale, scale);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, fr.width, fr.height);
      drawLegend(ctx, legendEntries(scene), 20, fr.legendY);
      drawScene(ctx, scene, { zoom: 1, x: fr.dx, y: fr.dy }, { width: fr.width, height: fr.height, text: 'all' });
      return new Promise((resolve, reject) =>
        c.toBlob(
          (b) => (b ? resolve(b) : reject(new Error('The browser could not encode the picture as PNG.'))),
          'image/png',
        ),
      );
    },
    svg: () => toSvg(scene, canvasMeasure(doc.createElement('canvas').getContext('2d')!)),
    destroy() {
      destroyed = true;
      clearTimeout(listTimer);
      clearTimeout(settle);
      cancelAnimationFrame(raf);
      resize.disconnect();
      for (const [target, type, fn] of listeners) target.removeEventListener(type, fn as EventListener);
      for (const e of created) e.remove();
    },
  };
  return view;
}
