// The console's graph view alone, at the sizes a lineage page reaches after "Load more" (issue 19:
// usable at 100,000 lineage entities, read 1,000 at a time): how long the first picture takes, and
// how long a frame takes while the pointer moves over it, while the wheel zooms, once the zoom
// settles, and after a new layout. The view (console/src/graph/view.ts) is bundled with esbuild
// into a page of its own, in Debian's headless Chromium; the picture is a lineage-shaped star (one
// endpoint context, deployments of 49 artifacts each).
// Run: npm run build && node dist/bench/console-graph.js [--entities 1000,10000,20000] [--runs 3]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { launchChromium } from '../test/support/browser.js';

const { values: args } = parseArgs({
  options: { entities: { type: 'string', default: '1000,10000,20000' }, runs: { type: 'string', default: '3' } },
});

// In the page: build the picture, then time frames. Each figure is from an event to two animation
// frames later (the frame that draws it has then been painted).
const PAGE_SCRIPT = `
import { createGraphView } from './console/src/graph/view.ts';
const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
globalThis.measure = async (n) => {
  const host = document.getElementById('host');
  host.replaceChildren();
  const view = createGraphView(host, { select() {} });
  const nodes = [{ id: 'c', label: 'Endpoint: big', kind: 'Context', start: true }];
  const edges = [];
  for (let a = 0; nodes.length <= n; a++) {
    nodes.push({ id: 'a' + a, label: 'ModelDeployment: deploy-' + a, kind: 'Action' });
    edges.push({ id: 'a' + a + '>c', source: 'a' + a, target: 'c', label: 'AssociatedWith' });
    for (let i = 0; i < 49 && nodes.length <= n; i++) {
      nodes.push({ id: 'm' + a + '_' + i, label: 'Model: s3://models/' + a + '/' + i + '/model.tar.gz', kind: 'Artifact' });
      edges.push({ id: 'm' + a + '_' + i + '>a' + a, source: 'm' + a + '_' + i, target: 'a' + a, label: 'ContributedTo' });
    }
  }
  const t0 = performance.now();
  view.add(nodes, edges);
  view.layout();
  await frames();
  const first = performance.now() - t0;
  const canvas = host.querySelector('canvas.graph-picture');
  const box = canvas.getBoundingClientRect();
  const timed = async (fire, k = 20) => {
    const times = [];
    for (let i = 0; i < k; i++) {
      const t = performance.now();
      fire(i);
      await frames();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  };
  const at = (i) => ({ clientX: box.left + 40 + ((i * 37) % (box.width - 80)), clientY: box.top + 40 + ((i * 53) % (box.height - 80)), bubbles: true });
  const hover = await timed((i) => canvas.dispatchEvent(new PointerEvent('pointermove', at(i))));
  const wheel = await timed((i) => canvas.dispatchEvent(new WheelEvent('wheel', { ...at(0), deltaY: i < 10 ? -60 : 60, cancelable: true })));
  const s = performance.now();
  await new Promise((r) => setTimeout(r, 200));
  await frames();
  const settled = performance.now() - s - 200;
  const r = performance.now();
  view.layout();
  await frames();
  const relayout = performance.now() - r;
  view.destroy();
  return { first, hover, wheel, settled, relayout };
};
`;

const root = new URL('../..', import.meta.url).pathname;
const bundle = await esbuild.build({
  stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'js' },
  bundle: true,
  format: 'esm',
  minify: true,
  write: false,
  logLevel: 'warning',
});
const js = bundle.outputFiles[0]!.text;
const css = readFileSync(`${root}console/src/styles.css`, 'utf8');
const html = `<!doctype html><html><head><style>${css}</style></head><body><main><div class="graph-host" id="host" style="width: 930px"></div></main><script type="module" src="/page.js"></script></body></html>`;
const server = createServer((req, res) => {
  const isJs = req.url === '/page.js';
  res.writeHead(200, { 'content-type': isJs ? 'text/javascript' : 'text/html' });
  res.end(isJs ? js : html);
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const browser = await launchChromium();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  console.log('entities | first picture | pointer move | wheel (moving) | zoom settled | new layout   (ms, medians)');
  for (const n of args.entities.split(',').map(Number)) {
    const rows: Record<string, number>[] = [];
    for (let run = 0; run < Number(args.runs); run++) {
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      page.on('pageerror', (e) => console.error('page error:', e.message));
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => 'measure' in globalThis);
      rows.push(
        await page.evaluate(
          (k) => (globalThis as unknown as { measure(n: number): Record<string, number> }).measure(k),
          n,
        ),
      );
      await page.close();
    }
    const m = (k: string) =>
      median(rows.map((r) => r[k]!))
        .toFixed(0)
        .padStart(6);
    console.log(
      `${String(n).padStart(8)} | ${m('first')}        | ${m('hover')}       | ${m('wheel')}         | ${m('settled')}       | ${m('relayout')}`,
    );
  }
} finally {
  await browser.close();
  server.close();
}
