// The sandbox runner: a script written for /opt/ml runs unchanged, its output arrives line by line
// with backpressure, a stop ends it, and what it may see and do is what the README promises.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hostCaps, jobLimits } from './limits.js';
import { reapStraySandboxes, Sandbox, runUnsandboxed } from './sandbox.js';

const dirs: string[] = [];
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const dataDir = temp('slipway-sandbox-data-');
const sandbox = await Sandbox.open({ dataDir, required: false, host: hostCaps({ maxMemoryMB: 512 }) });
after(() => {
  sandbox.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const skip = () => !sandbox.available && !process.env.CI;

const limits = () => jobLimits('ml.t3.medium', 1, sandbox.host);

function jobRoot(): string {
  const root = temp('slipway-sandbox-job-');
  mkdirSync(join(root, 'input/config'), { recursive: true });
  mkdirSync(join(root, 'model'), { recursive: true });
  writeFileSync(join(root, 'input/config/hyperparameters.json'), '{"eta":"0.2"}');
  return root;
}

async function run(script: string, o: { network?: 'none' | 'outbound'; code?: string[]; cwd?: string } = {}) {
  const lines: string[] = [];
  const notes: string[] = [];
  const root = jobRoot();
  const exit = await sandbox.runJob(
    {
      argv: ['sh', '-c', script],
      cwd: o.cwd,
      code: o.code,
      mlRoot: root,
      env: (ml) => ({ SM_MODEL_DIR: `${ml}/model` }),
      network: o.network ?? 'none',
      limits: limits(),
    },
    { onLine: (l, s) => void lines.push(`${s}:${l}`), onNote: (n) => notes.push(n) },
  );
  return { exit, lines, notes, root };
}

test('the sandbox starts on this host', { skip: !process.env.CI && !sandbox.available }, () => {
  assert.ok(sandbox.available, `the sandbox must work in CI: ${sandbox.describe()}`);
});

test('a script sees the container paths, writes into the job directory, and its exit code comes back', {
  skip: skip(),
}, async () => {
  const { exit, lines, notes, root } = await run(
    'cat /opt/ml/input/config/hyperparameters.json; echo; echo saved > /opt/ml/model/out.txt; echo warn >&2; echo "root=$SM_MODEL_DIR"; exit 3',
  );
  assert.equal(exit.sandboxed, true);
  assert.equal(exit.code, 3);
  assert.deepEqual(
    lines.filter((l) => l.startsWith('stdout')),
    ['stdout:{"eta":"0.2"}', 'stdout:root=/opt/ml/model'],
  );
  assert.deepEqual(
    lines.filter((l) => l.startsWith('stderr')),
    ['stderr:warn'],
  );
  assert.equal(readFileSync(join(root, 'model/out.txt'), 'utf8'), 'saved\n');
  assert.match(notes.join('\n'), /seccomp/);
  assert.match(notes.join('\n'), /limits through (cgroup v[12]|rlimits)/);
});

test('inside: not root, no capabilities, no_new_privs, seccomp, its own PID namespace', { skip: skip() }, async () => {
  const { lines } = await run(
    'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status; ls /proc | grep -cE "^[0-9]+$"',
  );
  const out = lines.map((l) => l.replace(/^stdout:/, ''));
  assert.notEqual(out[0], '0');
  assert.ok(out.includes('CapEff:\t0000000000000000'), out.join('\n'));
  assert.ok(out.includes('CapBnd:\t0000000000000000'));
  assert.ok(out.includes('NoNewPrivs:\t1'));
  assert.ok(out.includes('Seccomp:\t2'));
  // bwrap's init, the shell, grep/ls: a handful, never the host's hundreds.
  assert.ok(Number(out.at(-1)) < 10, `processes visible: ${out.at(-1)}`);
});

test("the host's secrets are not there: /root, /home, the data directory, /etc/shadow", { skip: skip() }, async () => {
  writeFileSync(join(dataDir, 'slipway.db'), 'secret-db');
  const { lines } = await run(
    `for p in /root /home /etc/shadow /etc/sudoers ${dataDir}/slipway.db /work /sys; do [ -e "$p" ] && echo "present $p" || echo "absent $p"; done; touch /usr/x 2>/dev/null && echo wrote-usr; touch /x 2>/dev/null && echo wrote-root; true`,
  );
  assert.equal(lines.length, 7, lines.join('\n'));
  for (const l of lines) assert.match(l, /^stdout:absent /);
});

test('a directory the program lives in is shown read-only, and the data directory under it is covered', {
  skip: skip(),
}, async () => {
  const code = temp('slipway-code-');
  chmodSync(code, 0o755);
  writeFileSync(
    join(code, 'train.sh'),
    'echo from-script; touch here 2>/dev/null && echo wrote; cat data/x 2>/dev/null || echo hidden',
  );
  mkdirSync(join(code, 'data'));
  writeFileSync(join(code, 'data/x'), 'secret');
  const s2 = await Sandbox.open({ dataDir: join(code, 'data'), required: false, host: sandbox.host });
  const lines: string[] = [];
  const exit = await s2.runJob(
    {
      argv: ['sh', 'train.sh'],
      cwd: code,
      code: [code],
      mlRoot: jobRoot(),
      env: () => ({}),
      network: 'none',
      limits: limits(),
    },
    { onLine: (l) => void lines.push(l) },
  );
  assert.equal(exit.code, 0, lines.join('\n'));
  assert.deepEqual(lines, ['from-script', 'hidden']);
});

test('/tmp itself, /home or / are never bound whole', { skip: skip() }, async () => {
  for (const dir of ['/tmp', '/home', '/']) {
    const exit = await sandbox.runJob(
      { argv: ['true'], cwd: dir, code: [dir], mlRoot: jobRoot(), env: () => ({}), network: 'none', limits: limits() },
      { onLine: () => {} },
    );
    assert.match(exit.startError ?? '', /cannot be shown to a sandbox/, dir);
  }
});

test('a stop ends the program and everything it started', async () => {
  const stop = new AbortController();
  const started = Date.now();
  const exit = await sandbox.runJob(
    {
      argv: ['sh', '-c', 'sleep 30 & echo started; wait'],
      mlRoot: jobRoot(),
      env: () => ({}),
      network: 'none',
      limits: limits(),
    },
    {
      onLine: (l) => {
        if (l === 'started') stop.abort();
      },
      signal: stop.signal,
      graceMs: 500,
    },
  );
  assert.ok(Date.now() - started < 5000, 'stopped well before the sleep ends');
  assert.ok(exit.signal !== null || exit.code !== 0);
});

test('a command that does not exist is reported, not thrown', async () => {
  const exit = await runUnsandboxed(
    { argv: ['/nonexistent/train'], mlRoot: jobRoot(), env: () => ({}), network: 'none', limits: limits() },
    { onLine: () => {} },
  );
  assert.match(exit.startError ?? '', /could not be started: ENOENT/);
});

test('a sandbox left by a previous run of the server on the same data directory is reaped', {
  skip: skip(),
}, async () => {
  const stopped = new AbortController();
  const running = sandbox.runJob(
    { argv: ['sh', '-c', 'echo up; sleep 60'], mlRoot: jobRoot(), env: () => ({}), network: 'none', limits: limits() },
    { onLine: () => void stopped.abort(), signal: undefined },
  );
  while (!stopped.signal.aborted) await new Promise((r) => setTimeout(r, 20));
  assert.equal(reapStraySandboxes(temp('slipway-other-')), 0);
  assert.ok(reapStraySandboxes(dataDir) >= 1);
  const exit = await running;
  assert.notEqual(exit.code, 0);
});

test('output is read with backpressure: a slow log pauses the program instead of buffering', {
  skip: skip(),
}, async () => {
  let seen = 0;
  let release: (() => void) | undefined;
  const exit = sandbox.runJob(
    {
      argv: ['sh', '-c', 'i=0; while [ $i -lt 200000 ]; do echo line-$i; i=$((i+1)); done; echo done'],
      mlRoot: jobRoot(),
      env: () => ({}),
      network: 'none',
      limits: limits(),
    },
    {
      onLine: () => {
        seen++;
        if (seen === 10) return new Promise<void>((r) => (release = r));
      },
    },
  );
  await new Promise((r) => setTimeout(r, 300));
  // Paused at the 10th line: the pipe (64 KiB) and one chunk hold the rest, not the server.
  assert.ok(seen < 20_000, `lines read while paused: ${seen}`);
  release!();
  assert.equal((await exit).code, 0);
  assert.equal(seen, 200_001);
});

test('a plain process, for Docker runs: the SM_* environment carries the job directory', async () => {
  const root = jobRoot();
  const lines: string[] = [];
  const exit = await runUnsandboxed(
    {
      argv: ['sh', '-c', 'echo "root=$SM_MODEL_DIR"; echo saved > "$SM_MODEL_DIR/out.txt"'],
      mlRoot: root,
      env: (ml) => ({ SM_MODEL_DIR: `${ml}/model` }),
      network: 'none',
      limits: limits(),
    },
    { onLine: (l) => void lines.push(l) },
  );
  assert.equal(exit.sandboxed, false);
  assert.ok(lines.includes(`root=${root}/model`));
  assert.equal(readFileSync(join(root, 'model/out.txt'), 'utf8'), 'saved\n');
});

test('a stop that races the start ends the whole sandbox at once', { skip: skip() }, async () => {
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController();
    const started = Date.now();
    const exit = sandbox.runJob(
      { argv: ['sleep', '60'], mlRoot: jobRoot(), env: () => ({}), network: 'none', limits: limits() },
      { onLine: () => {}, signal: controller.signal, graceMs: 500 },
    );
    // bwrap is still setting its sandbox up: the stop must not leave the sandbox running.
    controller.abort();
    await exit;
    assert.ok(Date.now() - started < 5000, `ended after ${Date.now() - started} ms`);
  }
  assert.equal(reapStraySandboxes(dataDir), 0, 'a sandbox outlived the stop');
  // Stopped before it started: nothing runs at all.
  const aborted = new AbortController();
  aborted.abort();
  const exit = await sandbox.runJob(
    { argv: ['sleep', '60'], mlRoot: jobRoot(), env: () => ({}), network: 'none', limits: limits() },
    { onLine: () => {}, signal: aborted.signal },
  );
  assert.equal(exit.code, null);
});
