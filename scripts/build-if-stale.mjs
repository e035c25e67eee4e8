// `npm start`'s prestart: builds only when a source is newer than the last build, so that starting
// again (or `npm start -- --help`) does not wait for a build that would change nothing. A fresh
// clone has no dist/ and builds: with esbuild (scripts/build-start.mjs, about a second), not tsc's
// type-checked build of everything (`npm run build`, what tests and CI run).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const mtime = (p) => {
  try {
    return statSync(join(root, p)).mtimeMs;
  } catch {
    return undefined;
  }
};
/** The newest modification time under `dir` (0 when it does not exist). */
function newest(dir) {
  let max = 0;
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    // tests are not part of what `npm start` runs (scripts/build-start.mjs leaves them out)
    if (!e.isDirectory() && e.name.endsWith('.test.ts')) continue;
    max = Math.max(max, e.isDirectory() ? newest(p) : (mtime(p) ?? 0));
  }
  return max;
}

// What the build writes last: the console's page (after tsc's output).
const built = mtime('dist/public/console/index.html');
const sources = Math.max(
  newest('src'),
  newest('console'),
  newest('bin'),
  mtime('scripts/build-console.mjs') ?? 0,
  mtime('tsconfig.json') ?? 0,
  mtime('package.json') ?? 0,
);
if (built === undefined || sources > built) {
  const r = spawnSync(process.execPath, [join(root, 'scripts/build-start.mjs')], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
