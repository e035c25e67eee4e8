// The interactive graph picture (cytoscape), shared by the lineage and Gremlin pages. This module
// and cytoscape load only when a page draws a graph.
import cytoscape, { type Core, type ElementDefinition } from 'cytoscape';
import { layered } from './layered';
import { toSvg } from './svg';

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

export const KIND_COLORS: Record<string, string> = {
  Artifact: '#2563eb',
  Action: '#d97706',
  Context: '#059669',
  TrialComponent: '#7c3aed',
};
const PALETTE = ['#0891b2', '#db2777', '#65a30d', '#9333ea', '#ea580c', '#0d9488', '#4f46e5'];
const SHAPES: Record<string, cytoscape.Css.NodeShape> = {
  Artifact: 'round-rectangle',
  Action: 'diamond',
  Context: 'ellipse',
  TrialComponent: 'hexagon',
};

/**
 * Labels are clipped here rather than with cytoscape's `text-wrap: ellipsis`, which measures the
 * text again for every character it drops: seconds for the first frame of 500 labelled nodes.
 */
/** Pictures with more edges than this label only the selected entity's edges. */
const EDGE_LABELS = 150;

/**
 * Node names are styled from this zoom on: 10 px text is drawn only from 6 px on screen
 * ('min-zoomed-font-size'), so below it a name would be measured and never shown.
 */
const NAMES_FROM_ZOOM = 0.6;

const clip = (s: string) => (s.length > 30 ? `${s.slice(0, 29)}…` : s);

export function colorOf(kind: string): string {
  if (KIND_COLORS[kind]) return KIND_COLORS[kind]!;
  let h = 0;
  for (const c of kind) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

/**
 * Fits the picture from node positions alone: cy.fit() would measure every label's text first,
 * which for hundreds of labels costs more than everything else together.
 */
function fitPositions(cy: Core, positions: Map<string, { x: number; y: number }>): void {
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of positions.values()) {
    x1 = Math.min(x1, p.x);
    y1 = Math.min(y1, p.y);
    x2 = Math.max(x2, p.x);
    y2 = Math.max(y2, p.y);
  }
  if (!Number.isFinite(x1)) return;
  // Room for the labels (up to 30 characters) under the outermost nodes.
  const [padX, padY] = [110, 50];
  const [w, h] = [cy.width(), cy.height()];
  // A handful of nodes would otherwise be blown up to fill the canvas.
  const zoom = Math.min(1.2, (w - 2 * padX) / Math.max(1, x2 - x1), (h - 2 * padY) / Math.max(1, y2 - y1));
  cy.viewport({ zoom, pan: { x: w / 2 - zoom * ((x1 + x2) / 2), y: h / 2 - zoom * ((y1 + y2) / 2) } });
}

export interface GraphView {
  add(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): void;
  relabel(labels: ReadonlyMap<string, string>): void;
  layout(): void;
  select(id: string | undefined): void;
  size(): { nodes: number; edges: number };
  png(): string;
  svg(): string;
  destroy(): void;
}

export function createGraphView(
  container: HTMLElement,
  on: { select(id: string | undefined): void; expand?(id: string): void },
): GraphView {
  const cy: Core = cytoscape({
    container,
    wheelSensitivity: 0.3,
    minZoom: 0.05,
    maxZoom: 4,
    // Past a few hundred elements, draw plain shapes while panning and zooming.
    hideEdgesOnViewport: false,
    textureOnViewport: true,
    style: [
      {
        selector: 'node',
        style: {
          // Plain data fields, not mapper functions: styling 500 nodes stays cheap.
          'background-color': 'data(color)',
          shape: 'data(shape)' as unknown as cytoscape.Css.NodeShape,
          width: 26,
          height: 26,
        },
      },
      // Names only where they can be read (see NAMES_FROM_ZOOM): a label costs a text measurement
      // per node in the first frame even when it is too small to be drawn.
      {
        selector: 'node.named',
        style: {
          label: 'data(label)',
          'font-size': 10,
          color: '#111827',
          'text-valign': 'bottom',
          'text-margin-y': 4,
          'min-zoomed-font-size': 6,
        },
      },
      { selector: 'node[?start]', style: { 'border-width': 4, 'border-color': '#111827', width: 34, height: 34 } },
      { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#f43f5e' } },
      {
        selector: 'edge',
        style: {
          width: 1.5,
          'line-color': '#9ca3af',
          'target-arrow-color': '#9ca3af',
          'target-arrow-shape': 'triangle',
          // Straight edges: bezier control points for every edge cost the first frame dearly.
          'curve-style': 'straight',
        },
      },
      // Edge labels cost the first frame a measurement each: shown in small pictures, and around
      // the selected entity in large ones.
      {
        selector: 'edge.labelled',
        style: { label: 'data(label)', 'font-size': 8, color: '#4b5563', 'text-rotation': 'autorotate', 'min-zoomed-font-size': 7 },
      },
    ],
  });
  cy.on('tap', 'node', (e) => on.select(e.target.id()));
  cy.on('tap', (e) => {
    if (e.target === cy) on.select(undefined);
  });
  cy.on('dbltap', 'node', (e) => on.expand?.(e.target.id()));
  let named = false;
  const nameIfReadable = () => {
    const want = cy.zoom() >= NAMES_FROM_ZOOM;
    if (want === named) return;
    named = want;
    cy.batch(() => (want ? cy.nodes().addClass('named') : cy.nodes().removeClass('named')));
  };
  cy.on('zoom', nameIfReadable);
  return {
    add(nodes, edges) {
      const els: ElementDefinition[] = [];
      for (const n of nodes) {
        const have = cy.getElementById(n.id);
        if (have.nonempty()) {
          if (n.start) have.data('start', true);
          continue;
        }
        els.push({
          group: 'nodes',
          data: { ...n, label: clip(n.label), full: n.label, color: colorOf(n.kind), shape: SHAPES[n.kind] ?? 'ellipse' },
          classes: named ? 'named' : undefined,
        });
      }
      for (const e of edges) {
        if (cy.getElementById(e.id).nonempty()) continue;
        if (cy.getElementById(e.source).empty() && !nodes.some((n) => n.id === e.source)) continue;
        if (cy.getElementById(e.target).empty() && !nodes.some((n) => n.id === e.target)) continue;
        els.push({ group: 'edges', data: { ...e } });
      }
      cy.add(els);
      cy.edges().toggleClass('labelled', cy.edges().length <= EDGE_LABELS);
    },
    relabel(labels) {
      if (labels.size === 0) return;
      cy.batch(() => {
        for (const [id, label] of labels) cy.getElementById(id).data({ label: clip(label), full: label });
      });
    },
    layout() {
      const start = cy.nodes('[?start]').first();
      const ids = cy.nodes().map((n) => n.id());
      const positions = layered(
        ids,
        cy.edges().map((e) => ({ source: e.data('source') as string, target: e.data('target') as string })),
        start.nonempty() ? start.id() : (ids[0] ?? ''),
      );
      cy.batch(() => {
        for (const n of cy.nodes()) {
          const p = positions.get(n.id());
          if (p) n.position({ x: p.x, y: p.y });
        }
      });
      fitPositions(cy, positions);
      nameIfReadable();
      cy.one('render', () => {
        if (performance.getEntriesByName('lineage:start').length) performance.measure('lineage:rendered', 'lineage:start');
      });
    },
    select(id) {
      cy.$(':selected').unselect();
      if (cy.edges().length > EDGE_LABELS) cy.edges('.labelled').removeClass('labelled');
      if (id) {
        const n = cy.getElementById(id);
        n.select();
        n.connectedEdges().addClass('labelled');
      }
    },
    size: () => ({ nodes: cy.nodes().length, edges: cy.edges().length }),
    png: () => {
      // The picture carries every name, whatever the zoom on screen.
      if (named) return cy.png({ full: true, scale: 2, bg: '#ffffff' });
      cy.nodes().addClass('named');
      const url = cy.png({ full: true, scale: 2, bg: '#ffffff' });
      cy.nodes().removeClass('named');
      return url;
    },
    svg: () => toSvg(cy),
    destroy: () => cy.destroy(),
  };
}
