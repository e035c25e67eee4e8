// The graph as it is laid out, written as an SVG document (cytoscape draws on a canvas and has
// no SVG export of its own; the plug-in that adds one is GPL, which this project cannot ship).
import type { Core, NodeSingular } from 'cytoscape';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function shape(n: NodeSingular, x: number, y: number, r: number, fill: string, stroke: string): string {
  const attrs = `fill="${fill}" stroke="${stroke}" stroke-width="${stroke === 'none' ? 0 : 3}"`;
  switch (n.style('shape')) {
    case 'round-rectangle':
      return `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="${r / 3}" ${attrs}/>`;
    case 'diamond':
      return `<polygon points="${x},${y - r} ${x + r},${y} ${x},${y + r} ${x - r},${y}" ${attrs}/>`;
    case 'hexagon': {
      const pts = Array.from({ length: 6 }, (_, i) => {
        const a = (Math.PI / 3) * i;
        return `${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`;
      });
      return `<polygon points="${pts.join(' ')}" ${attrs}/>`;
    }
    default:
      return `<circle cx="${x}" cy="${y}" r="${r}" ${attrs}/>`;
  }
}

export function toSvg(cy: Core): string {
  const bb = cy.elements().boundingBox({});
  const pad = 20;
  const w = Math.ceil(bb.w + 2 * pad);
  const h = Math.ceil(bb.h + 2 * pad);
  const dx = pad - bb.x1;
  const dy = pad - bb.y1;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#9ca3af"/></marker></defs>',
    `<rect width="${w}" height="${h}" fill="#ffffff"/>`,
  ];
  for (const e of cy.edges()) {
    const s = e.sourceEndpoint();
    const t = e.targetEndpoint();
    const [x1, y1, x2, y2] = [s.x + dx, s.y + dy, t.x + dx, t.y + dy];
    out.push(`<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="#9ca3af" stroke-width="1.5" marker-end="url(#arrow)"/>`);
    const label = String(e.data('label') ?? '');
    if (label)
      out.push(`<text x="${((x1 + x2) / 2).toFixed(1)}" y="${((y1 + y2) / 2).toFixed(1)}" font-size="8" fill="#4b5563" text-anchor="middle">${esc(label)}</text>`);
  }
  for (const n of cy.nodes()) {
    const p = n.position();
    const x = p.x + dx;
    const y = p.y + dy;
    const r = n.width() / 2;
    out.push(shape(n, x, y, r, String(n.style('background-color')), n.data('start') ? '#111827' : 'none'));
    out.push(`<text x="${x.toFixed(1)}" y="${(y + r + 12).toFixed(1)}" font-size="10" fill="#111827" text-anchor="middle">${esc(String(n.data('full') ?? n.data('label') ?? ''))}</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}
