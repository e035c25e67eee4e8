// `npm start` as a supervisor runs it (docker, systemd, a process manager): SIGTERM or SIGINT to
// npm stops the server with it, and nothing is left running. npm forwards the signal to its
// script's process, which `exec` made the server itself (package.json "start").
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { tempDir } from '../support/server.js';

function alive(pid: number): boolean {
  try {
    // A zombie has exited: only its parent has not read its status yet.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every process below `pid` (children, grandchildren...). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let level = [pid];
  while (level.length > 0) {
    const next: number[] = [];
    for (const p of level) {
      let kids: number[] = [];
      try {
        kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(p)], { encoding: 'utf8' })
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        // ps exits 1 when there are none
      }
      next.push(...kids);
    }
    out.push(...next);
    level = next;
  }
  return out;
}

describe('npm start under a supervisor', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to npm stops the server and leaves no process`, async () => {
      const dataDir = tempDir();
      dirs.push(dataDir);
      // --ignore-scripts skips only "prestart" (the build, which the test run has done already): the
      // start script runs exactly as `npm start` runs it.
      const npm = spawn(
        'npm',
        ['start', '--silent', '--ignore-scripts', '--', '--port', '0', '--graph-port', '0', '--data-dir', dataDir],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise<number | string>((resolve) =>
        npm.on('exit', (code, sig) => resolve(code ?? sig ?? -1)),
      );
      const lines = createInterface({ input: npm.stdout! });
      const stopped = new Promise<boolean>((resolve) => {
        lines.on('line', (line) => {
          if (line.includes('"msg":"stopped"')) resolve(true);
        });
        void exited.then(() => resolve(false));
      });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('npm start did not listen within 30 s')), 30_000);
        lines.on('line', (line) => {
          if (line.includes('"msg":"listening"')) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then((code) => reject(new Error(`npm exited (${code}) before the server listened`)));
      });
      const below = descendants(npm.pid!);
      const server = below.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('slipway.js'));
      assert.ok(server, 'the server runs under npm');
      try {
        npm.kill(signal);
        assert.equal(await exited, 0, 'npm exits 0 once the server has stopped cleanly');
        assert.equal(await stopped, true, 'the server logged its clean stop');
        for (const pid of [server, ...below]) assert.equal(alive(pid), false, `process ${pid} is still running`);
      } finally {
        for (const pid of below) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {}
        }
      }
    });
  }
});
