// A new user's first minutes (issue 35), timed as they live them on a fresh clone: `npm ci`, then
// `npm start` until the server answers /_slipway/health, then `npx slipway demo` until it prints its
// console links. The clone is made from this repository's HEAD (git clone of the local checkout);
// `npm ci` needs the npm registry (or its cache). The figure is the user's time from `npm start` to
// a console full of a trained, registered, deployed model (the issue asks for under a minute), with
// `npm ci` reported beside it.
// Usage: npm run build && node dist/bench/first-hour.js [--skip-ci DIR_WITH_NODE_MODULES]
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const work = mkdtempSync(join(tmpdir(), 'slipway-first-hour-'));
const clone = join(work, 'slipway');
let server: ChildProcess | undefined;
try {
  const cloned = spawnSync('git', ['clone', '--quiet', root, clone], { stdio: 'inherit' });
  if (cloned.status !== 0) throw new Error('git clone failed');

  // 1. npm ci (or a node_modules from elsewhere, to time the rest without the network).
  let ciMs: number | undefined;
  const reuse = arg('skip-ci');
  if (reuse) symlinkSync(join(reuse, 'node_modules'), join(clone, 'node_modules'));
  else {
    const t = performance.now();
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'ignore' });
    if (ci.status !== 0) throw new Error('npm ci failed');
    ciMs = performance.now() - t;
  }

  // 2. npm start, until /_slipway/health answers 200 (the build runs first on a fresh clone).
  const port = 24810 + Math.floor(Math.random() * 1000);
  const started = performance.now();
  server = spawn('npm', ['start', '--', '--port', String(port), '--graph-port', String(port + 1)], {
    cwd: clone,
    stdio: 'ignore',
    detached: true,
  });
  const endpoint = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${endpoint}/_slipway/health`)).ok) break;
    } catch {}
    if (performance.now() - started > 300_000) throw new Error('the server did not answer within 5 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  const readyMs = performance.now() - started;

  // 3. npx slipway demo, until it has printed its links.
  const demoStart = performance.now();
  const demo = spawnSync('npx', ['slipway', 'demo', '--endpoint', endpoint], { cwd: clone, encoding: 'utf8' });
  if (demo.status !== 0) throw new Error(`the demo failed:\n${demo.stdout}\n${demo.stderr}`);
  const demoMs = performance.now() - demoStart;
  const total = readyMs + demoMs;

  console.log(
    `first hour on a fresh clone of ${spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()}`,
  );
  console.log(
    `  npm ci                          ${ciMs === undefined ? 'skipped (node_modules reused)' : seconds(ciMs)}`,
  );
  console.log(`  npm start → health 200          ${seconds(readyMs)} (includes the first build)`);
  console.log(`  npx slipway demo → links        ${seconds(demoMs)}`);
  console.log(`  user's time, start → console    ${seconds(total)} (target < 60 s)`);
} finally {
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {}
  }
  await new Promise((r) => setTimeout(r, 500));
  rmSync(work, { recursive: true, force: true });
}
