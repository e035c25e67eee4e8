// `npm start`'s build on a fresh clone or after an edit: the server's sources (src/, tests left out)
// transpiled by esbuild into dist/src exactly where tsc puts them (about half a second, against tsc's
// tens of seconds with its type check), then the console. `npm run build` (tsc, type-checked: what
// `npm test` and CI run) writes the same files from the same sources; either may follow the other.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const started = performance.now();
/** Every .ts under `dir` but tests and declarations. */
function sources(dir, out = []) {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}
const entryPoints = sources('src');
await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist/src',
  outbase: 'src',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'error',
  // as tsc emits for target ES2022: class fields with define semantics
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
});
process.stdout.write(
  `slipway: ${entryPoints.length} server sources built in ${Math.round(performance.now() - started)} ms (npm run build type-checks them)\n`,
);
const r = spawnSync(process.execPath, [join(root, 'scripts/build-console.mjs')], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
