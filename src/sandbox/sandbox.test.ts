// The container contract runner: a script written for /opt/ml runs unchanged in the sandbox, its
// output arrives line by line, and a stop ends it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawn } from 'node:child_process';
import { reapStraySandboxes, runContract, sandboxAvailable } from './sandbox.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function jobRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'slipway-sandbox-'));
  dirs.push(root);
  mkdirSync(join(root, 'input/config'), { recursive: true });
  mkdirSync(join(root, 'model'), { recursive: true });
  writeFileSync(join(root, 'input/config/hyperparameters.json'), '{"eta":"0.2"}');
  return root;
}

const script = (ml: string) =>
  `cat ${ml}/input/config/hyperparameters.json; echo; echo saved > ${ml}/model/out.txt; echo warn >&2; echo "root=$SM_MODEL_DIR"; exit 3`;

test('in the sandbox the script sees the container paths and writes into the job directory', {
  skip: !sandboxAvailable() && !process.env.CI,
}, async () => {
  assert.ok(sandboxAvailable(), 'bubblewrap must be installed (Debian package bubblewrap)');
  const root = jobRoot();
  const lines: string[] = [];
  const exit = await runContract({
    mlRoot: root,
    argv: ['sh', '-c', script('/opt/ml')],
    cwd: tmpdir(),
    env: (ml) => ({ SM_MODEL_DIR: `${ml}/model` }),
    onLine: (l, s) => lines.push(`${s}:${l}`),
  });
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
});

test('without a sandbox the SM_* environment carries the job directory', async () => {
  const root = jobRoot();
  const lines: string[] = [];
  const exit = await runContract({
    mlRoot: root,
    argv: ['sh', '-c', script('$SM_ROOT')],
    cwd: tmpdir(),
    env: (ml) => ({ SM_MODEL_DIR: `${ml}/model`, SM_ROOT: ml }),
    onLine: (l) => lines.push(l),
    sandbox: false,
  });
  assert.equal(exit.sandboxed, false);
  assert.equal(exit.code, 3);
  assert.ok(lines.includes(`root=${root}/model`));
  assert.equal(readFileSync(join(root, 'model/out.txt'), 'utf8'), 'saved\n');
});

test('a stop ends the program and everything it started', async () => {
  const root = jobRoot();
  const stop = new AbortController();
  const started = Date.now();
  const run = runContract({
    mlRoot: root,
    argv: ['sh', '-c', 'sleep 30 & echo started; wait'],
    cwd: tmpdir(),
    env: () => ({}),
    onLine: (l) => {
      if (l === 'started') stop.abort();
    },
    signal: stop.signal,
    graceMs: 500,
  });
  const exit = await run;
  assert.ok(Date.now() - started < 5000, 'stopped well before the sleep ends');
  assert.ok(exit.signal !== null || exit.code !== 0);
});

test('a command that does not exist is reported, not thrown', async () => {
  const exit = await runContract({
    mlRoot: jobRoot(),
    argv: ['/nonexistent/train'],
    cwd: tmpdir(),
    env: () => ({}),
    onLine: () => {},
    sandbox: false,
  });
  assert.match(exit.startError ?? '', /could not be started: ENOENT/);
});

test('a sandbox left by a previous run under the jobs directory is reaped at start', {
  skip: !sandboxAvailable(),
}, async () => {
  const jobs = mkdtempSync(join(tmpdir(), 'slipway-jobs-'));
  dirs.push(jobs);
  mkdirSync(join(jobs, 'old-job'));
  const stray = spawn(
    'bwrap',
    ['--ro-bind', '/', '/', '--tmpfs', '/opt', '--bind', join(jobs, 'old-job'), '/opt/ml', 'sleep', '60'],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  await new Promise((r) => setTimeout(r, 200));
  const gone = new Promise((r) => stray.once('exit', r));
  assert.equal(reapStraySandboxes(join(tmpdir(), 'not-this-dir')), 0);
  assert.equal(reapStraySandboxes(jobs), 1);
  await gone;
});

test("the program's directory stays visible in the sandbox when it is under /tmp", {
  skip: !sandboxAvailable(),
}, async () => {
  const code = mkdtempSync(join(tmpdir(), 'slipway-code-'));
  dirs.push(code);
  writeFileSync(join(code, 'train.sh'), 'echo from-script');
  const lines: string[] = [];
  const exit = await runContract({
    mlRoot: jobRoot(),
    argv: ['sh', 'train.sh'],
    cwd: code,
    env: () => ({}),
    onLine: (l) => lines.push(l),
  });
  assert.equal(exit.code, 0, lines.join('\n'));
  assert.deepEqual(lines, ['from-script']);
});

test('a stop that races the start ends the whole sandbox at once', {
  skip: !sandboxAvailable() && !process.env.CI,
}, async () => {
  for (let i = 0; i < 5; i++) {
    // The job's directory one level down, so that the check below looks at this sandbox only.
    const parent = mkdtempSync(join(tmpdir(), 'slipway-sandbox-race-'));
    dirs.push(parent);
    const root = join(parent, 'job');
    mkdirSync(root);
    const controller = new AbortController();
    const started = Date.now();
    const exit = runContract({
      mlRoot: root,
      argv: ['sleep', '60'],
      cwd: tmpdir(),
      env: () => ({}),
      onLine: () => {},
      signal: controller.signal,
      graceMs: 500,
    });
    // bwrap is still setting its sandbox up: the stop must not leave the sandbox running.
    controller.abort();
    await exit;
    assert.ok(Date.now() - started < 5000, `ended after ${Date.now() - started} ms`);
    assert.equal(reapStraySandboxes(parent), 0, 'a sandbox outlived the stop');
  }
  const aborted = new AbortController();
  aborted.abort();
  const exit = await runContract({
    mlRoot: jobRoot(),
    argv: ['sleep', '60'],
    cwd: tmpdir(),
    env: () => ({}),
    onLine: () => {},
    signal: aborted.signal,
  });
  assert.equal(exit.code, null);
});
