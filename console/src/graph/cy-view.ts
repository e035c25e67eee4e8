// The interactive graph picture (cytoscape), shared by the lineage and Gremlin pages. This module
// and cytoscape load only when a page draws a graph.
import cytoscape, { type Core, type ElementDefinition } from 'cytoscape';
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

export function colorOf(kind: string): string {
  if (KIND_COLORS[kind]) return KIND_COLORS[kind]!;
  let h = 0;
  for (const c of kind) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}

export interface GraphView {
  add(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): void;
  relabel(id: string, label: string): void;
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
          'background-color': (n: cytoscape.NodeSingular) => colorOf(n.data('kind')),
          shape: (n: cytoscape.NodeSingular) => SHAPES[n.data('kind') as string] ?? 'ellipse',
          label: 'data(label)',
          'font-size': 10,
          color: '#111827',
          'text-valign': 'bottom',
          'text-margin-y': 4,
          'text-wrap': 'ellipsis',
          'text-max-width': '140px',
          width: 26,
          height: 26,
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
          'curve-style': 'bezier',
          label: 'data(label)',
          'font-size': 8,
          color: '#4b5563',
          'text-rotation': 'autorotate',
          'text-background-color': '#ffffff',
          'text-background-opacity': 0.8,
          'min-zoomed-font-size': 7,
        },
      },
    ],
  });
  cy.on('tap', 'node', (e) => on.select(e.target.id()));
  cy.on('tap', (e) => {
    if (e.target === cy) on.select(undefined);
  });
  cy.on('dbltap', 'node', (e) => on.expand?.(e.target.id()));
  return {
    add(nodes, edges) {
      const els: ElementDefinition[] = [];
      for (const n of nodes) {
        const have = cy.getElementById(n.id);
        if (have.nonempty()) {
          if (n.start) have.data('start', true);
          continue;
        }
        els.push({ group: 'nodes', data: { ...n } });
      }
      for (const e of edges) {
        if (cy.getElementById(e.id).nonempty()) continue;
        if (cy.getElementById(e.source).empty() && !nodes.some((n) => n.id === e.source)) continue;
        if (cy.getElementById(e.target).empty() && !nodes.some((n) => n.id === e.target)) continue;
        els.push({ group: 'edges', data: { ...e } });
      }
      cy.add(els);
    },
    relabel(id, label) {
      cy.getElementById(id).data('label', label);
    },
    layout() {
      const roots = cy.nodes('[?start]');
      cy.layout({
        name: 'breadthfirst',
        directed: false,
        roots: roots.nonempty() ? roots : undefined,
        spacingFactor: 1.1,
        animate: false,
        fit: true,
        padding: 30,
      } as cytoscape.LayoutOptions).run();
      // A handful of nodes would otherwise be blown up to fill the canvas.
      if (cy.zoom() > 1.2) {
        cy.zoom(1.2);
        cy.center();
      }
    },
    select(id) {
      cy.$(':selected').unselect();
      if (id) cy.getElementById(id).select();
    },
    size: () => ({ nodes: cy.nodes().length, edges: cy.edges().length }),
    png: () => cy.png({ full: true, scale: 2, bg: '#ffffff' }),
    svg: () => toSvg(cy),
    destroy: () => cy.destroy(),
  };
}
