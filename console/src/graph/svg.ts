// The picture as an SVG document: every node (its whole name as its title), every edge, the names
// and association types that fit without overlapping (placed as on screen and in the PNG), and a
// legend of the kinds.
import { Labels, type Measure, type ShownEdge, type ShownNode, placeSceneLabels } from './labels.js';
import { FONT_FAMILY, type Scene, type Shape, edgeEnds, exportFrame, legendEntries, polygon } from './scene.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (n: number) => n.toFixed(1);

/** A node's outline as an SVG element; `attrs` fills or strokes it. */
export function svgShape(kind: Shape, x: number, y: number, r: number, attrs: string): string {
  switch (kind) {
    case 'round-rectangle':
      return `<rect x="${f(x - r)}" y="${f(y - r)}" width="${f(2 * r)}" height="${f(2 * r)}" rx="${f(r / 3)}" ${attrs}/>`;
    case 'diamond':
    case 'hexagon':
      return `<polygon points="${polygon(kind, x, y, r)
        .map(([px, py]) => `${f(px)},${f(py)}`)
        .join(' ')}" ${attrs}/>`;
    default:
      return `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r)}" ${attrs}/>`;
  }
}

/**
 * Widths when no canvas is at hand (unit tests): a generous average glyph width, so a text is never
 * thought narrower than it is.
 */
const roughMeasure: Measure = (font, text) => text.length * Number.parseFloat(/([\d.]+)px/.exec(font)?.[1] ?? '12') * 0.62;

/** Sizes as in the PNG export (draw.ts at zoom 1). */
const NAME_SIZE = 12;
const EDGE_SIZE = 10;

/**
 * The picture as SVG. Names and association types are placed as on screen, leaving out one that
 * would overlap another (each node keeps its whole name as its title); `measure` gives text widths
 * (the view passes a canvas's).
 */
export function toSvg(scene: Scene, measure: Measure = roughMeasure): string {
  const { width: w, height: h, dx, dy, legendY } = exportFrame(scene);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(w)}" height="${Math.ceil(h)}" viewBox="0 0 ${Math.ceil(w)} ${Math.ceil(h)}" font-family="${esc(FONT_FAMILY)}">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#9ca3af"/></marker></defs>',
    `<rect width="${Math.ceil(w)}" height="${Math.ceil(h)}" fill="#ffffff"/>`,
  ];
  let lx = 20;
  for (const { kind, color, shape: s } of legendEntries(scene)) {
    out.push(svgShape(s, lx + 6, legendY, 6, `fill="${color}"`));
    out.push(`<text x="${lx + 16}" y="${legendY + 4}" font-size="12" fill="#4b5563">${esc(kind)}</text>`);
    lx += 16 + measure('12px sans-serif', kind) + 16;
  }
  const edges: ShownEdge[] = [];
  for (const e of scene.edges()) {
    const ends = edgeEnds(e);
    if (!ends) continue;
    const at: ShownEdge['at'] = [ends.x1 + dx, ends.y1 + dy, ends.x2 + dx, ends.y2 + dy];
    edges.push({ e, at });
    out.push(
      `<line x1="${f(at[0])}" y1="${f(at[1])}" x2="${f(at[2])}" y2="${f(at[3])}" stroke="#9ca3af" stroke-width="1.5" marker-end="url(#arrow)"/>`,
    );
  }
  const nodes: ShownNode[] = [];
  for (const n of scene.nodes.values()) {
    if (!Number.isFinite(n.x)) continue;
    const [x, y] = [n.x + dx, n.y + dy];
    nodes.push({ n, x, y, r: n.r });
    out.push(`<g><title>${esc(`${n.kind}: ${n.full}`)}</title>`);
    out.push(svgShape(n.shape, x, y, n.r, `fill="${n.color}"${n.start ? ' stroke="#111827" stroke-width="3"' : ''}`));
    out.push('</g>');
  }
  const labels = new Labels(measure);
  placeSceneLabels(labels, nodes, edges, { names: true, edges: true, nameSize: NAME_SIZE, edgeSize: EDGE_SIZE });
  for (const t of labels.placed) {
    const attrs = `font-size="${t.size}" fill="${t.color}" text-anchor="middle" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"${t.font.startsWith('600') ? ' font-weight="600"' : ''}`;
    if (t.angle === 0) out.push(`<text x="${f(t.x)}" y="${f(t.y + t.size * 0.85)}" ${attrs}>${esc(t.text)}</text>`);
    else {
      const deg = f((t.angle * 180) / Math.PI);
      out.push(`<text x="${f(t.x)}" y="${f(t.y - 2)}" ${attrs} transform="rotate(${deg} ${f(t.x)} ${f(t.y)})">${esc(t.text)}</text>`);
    }
  }
  out.push('</svg>');
  return out.join('\n');
}
