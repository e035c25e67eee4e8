// Runs every compiled test (dist/**/*.test.js) with node's test runner.
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const filters = process.argv.slice(2);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.js') && (filters.length === 0 || filters.some((f) => p.includes(f)))) files.push(p);
  }
}
for (const root of ['dist/src', 'dist/test', 'dist/console']) {
  try {
    walk(root);
  } catch {}
}
files.sort();
if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}
// Tests also check that no database call is made inside a transaction through the wrong handle
// (a guard that costs too much to run in production; see src/storage/db/transaction-scope.ts).
// Servers started by tests do not warm a trainer thread up (a hundred test processes would each
// spend ~0.3 s of CPU on it); run-builtin.test.ts tests the warm-up itself.
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { SLIPWAY_TRAINER_PREWARM: '0', ...process.env, SLIPWAY_CHECK_TX_SCOPE: '1' },
});
process.exit(r.status ?? 1);
