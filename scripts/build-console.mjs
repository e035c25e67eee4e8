// Builds the web console (console/src) into dist/public/console: one esbuild bundle with code
// splitting (the chart library loads only on the pages that draw charts), content-hashed names,
// index.html pointing at them, and .br/.gz copies the server sends to clients that accept them.
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist/public/console');
const started = performance.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The members of each Create*Job request, from the service model tsc just compiled: what a cloned
// job keeps of the job it was cloned from (console/src/pages/job-clone.tsx).
const { model } = await import(join(root, 'dist/src/generated/sagemaker/model.js'));
const createMembers = Object.fromEntries(
  ['CreateTrainingJob', 'CreateTransformJob', 'CreateProcessingJob'].map((op) => [
    op,
    Object.keys(model.shapes[model.operations[op].input].members),
  ]),
);

const entry = 'console/src/main.tsx';
const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: [entry],
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: ['chrome111', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"', __CREATE_MEMBERS__: JSON.stringify(createMembers) },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});

const [js, meta] = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === entry);
// Absolute: index.html is also the answer for deep links such as /console/registry/group/3.
const url = (file) => `/console/${relative(out, join(root, file))}`;
const html = readFileSync(join(root, 'console/index.html'), 'utf8')
  .replace('%SCRIPT%', url(js))
  .replace('%STYLE%', meta.cssBundle ? url(meta.cssBundle) : '');
writeFileSync(join(out, 'index.html'), html);

// Compress every text file once here, so the server never compresses on the request path.
const walk = (dir) =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
for (const file of walk(out)) {
  if (!/\.(js|css|html|svg|json|txt)$/.test(file)) continue;
  const body = readFileSync(file);
  if (body.length < 512) continue;
  const br = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const gz = gzipSync(body, { level: 9 });
  if (br.length < body.length) writeFileSync(`${file}.br`, br);
  if (gz.length < body.length) writeFileSync(`${file}.gz`, gz);
}
console.log(`console built in ${Math.round(performance.now() - started)} ms → ${relative(root, out)}`);
