// The picture as an SVG document: every node with its name (the whole name as its title), every
// edge with its association type, and a legend of the kinds, laid out as on screen.
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

export function toSvg(scene: Scene): string {
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
    lx += 16 + kind.length * 7 + 16;
  }
  for (const e of scene.edges()) {
    const ends = edgeEnds(e);
    if (!ends) continue;
    const [x1, y1, x2, y2] = [ends.x1 + dx, ends.y1 + dy, ends.x2 + dx, ends.y2 + dy];
    out.push(
      `<line x1="${f(x1)}" y1="${f(y1)}" x2="${f(x2)}" y2="${f(y2)}" stroke="#9ca3af" stroke-width="1.5" marker-end="url(#arrow)"/>`,
    );
    if (!e.label) continue;
    let a = (Math.atan2(y2 - y1, x2 - x1) * 180) / Math.PI;
    if (a > 90 || a < -90) a += 180;
    const [mx, my] = [(x1 + x2) / 2, (y1 + y2) / 2];
    out.push(
      `<text x="${f(mx)}" y="${f(my - 2)}" font-size="9" fill="#374151" text-anchor="middle" transform="rotate(${f(a)} ${f(mx)} ${f(my)})">${esc(e.label)}</text>`,
    );
  }
  for (const n of scene.nodes.values()) {
    if (!Number.isFinite(n.x)) continue;
    const [x, y] = [n.x + dx, n.y + dy];
    out.push(`<g><title>${esc(`${n.kind}: ${n.full}`)}</title>`);
    out.push(svgShape(n.shape, x, y, n.r, `fill="${n.color}"${n.start ? ' stroke="#111827" stroke-width="3"' : ''}`));
    out.push(
      `<text x="${f(x)}" y="${f(y + n.r + 13)}" font-size="11" fill="#111827" text-anchor="middle">${esc(n.label)}</text></g>`,
    );
  }
  out.push('</svg>');
  return out.join('\n');
}
