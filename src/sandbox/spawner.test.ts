// The process spawner: children are forked by the helper, not by this process, and what they
// write from their first instant reaches this process whole, on every pipe; their exit, a kill and
// a program that cannot start come back as from child_process; a dead helper ends its children.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { after, test } from 'node:test';
import { type Child, Spawner } from './spawner.js';

const spawner = Spawner.start();
after(() => spawner.close());

const text = (s: Readable | null | undefined): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = '';
    s!.setEncoding('utf8');
    s!.on('data', (d: string) => (out += d));
    s!.once('end', () => resolve(out));
    s!.once('error', reject);
  });

const closed = (c: Child): Promise<[number | null, NodeJS.Signals | null]> =>
  new Promise((r) => c.once('close', (code, signal) => r([code, signal])));

const ppid = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);

test('the helper forks the child, and everything it writes at once arrives on every pipe', async () => {
  for (let i = 0; i < 20; i++) {
    // Writes before anything is read: bytes the helper's own end took would be missing here.
    const c = await spawner.spawn(
      '/bin/sh',
      ['-c', 'echo out-$$; echo err >&2; printf big%.0s $(seq 2000) >&5; cat <&3 >&4; sleep 0.05'],
      { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] },
    );
    if (i === 0) assert.equal(ppid(c.pid), spawner.pid, "the child's parent is the helper, not this process");
    const done = closed(c);
    (c.stdio[3] as NodeJS.WritableStream).end(`input-${i}`);
    const [out, err, echoed, big] = await Promise.all([
      text(c.stdout),
      text(c.stderr),
      text(c.stdio[4] as Readable),
      text(c.stdio[5] as Readable),
    ]);
    assert.equal(out, `out-${c.pid}\n`);
    assert.equal(err, 'err\n');
    assert.equal(echoed, `input-${i}`);
    assert.equal(big, 'big'.repeat(2000));
    assert.deepEqual(await done, [0, null]);
    assert.equal(c.exitCode, 0);
  }
});

test('stdin, exit codes, kill and a program that cannot start', async () => {
  const cat = await spawner.spawn('/bin/sh', ['-c', 'cat; exit 3'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const out = text(cat.stdout);
  cat.stdin!.end('through stdin');
  assert.equal(await out, 'through stdin');
  assert.deepEqual(await closed(cat), [3, null]);

  const sleeper = await spawner.spawn('/bin/sleep', ['30'], { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
  const exit = new Promise((r) => sleeper.once('exit', (code, signal) => r([code, signal])));
  assert.equal(sleeper.kill('SIGKILL'), true);
  assert.deepEqual(await exit, [null, 'SIGKILL']);
  assert.equal(sleeper.kill('SIGKILL'), false, 'an ended child is not signalled again');

  await assert.rejects(
    spawner.spawn('/nonexistent/program', [], {}),
    (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
  );
});

test('the environment, working directory, uid and nice value reach the child', async () => {
  const c = await spawner.spawn('/bin/sh', ['-c', 'sleep 0.05; echo "$MARK $(pwd) $(id -u) $(nice)"'], {
    env: { MARK: 'marked', PATH: '/usr/bin:/bin' },
    cwd: '/tmp',
    stdio: ['ignore', 'pipe', 'ignore'],
    nice: 19,
  });
  assert.equal(await text(c.stdout), `marked /tmp ${process.getuid!()} 19\n`);
});

test("a signal to the server's process group leaves the helper to the server", async () => {
  process.kill(spawner.pid!, 'SIGTERM');
  process.kill(spawner.pid!, 'SIGINT');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(spawner.alive, true);
  // It waits for its input, so it is still there to be asked who its parent is.
  const c = await spawner.spawn('/bin/sh', ['-c', 'read x; echo still'], { stdio: ['pipe', 'pipe', 'ignore'] });
  assert.equal(ppid(c.pid), spawner.pid);
  c.stdin!.end('\n');
  assert.equal(await text(c.stdout), 'still\n');
});

test('a helper that dies ends its children and reports them killed; spawns then happen here', async () => {
  const own = Spawner.start();
  const child = await own.spawn('/bin/sleep', ['30'], { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
  const exit = new Promise((r) => child.once('exit', (code, signal) => r([code, signal])));
  process.kill(own.pid!, 'SIGKILL');
  assert.deepEqual(await exit, [null, 'SIGKILL']);
  await new Promise((r) => setTimeout(r, 50));
  // Gone, or a zombie its new parent has not reaped yet.
  let state = 'gone';
  try {
    state = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {}
  assert.ok(state === 'gone' || state === 'Z', `the orphaned child was ended (state ${state})`);
  assert.equal(own.alive, false);
  const here = await own.spawn('/bin/sh', ['-c', 'read x; echo here'], { stdio: ['pipe', 'pipe', 'ignore'] });
  assert.equal(ppid(here.pid), process.pid);
  here.stdin!.end('\n');
  assert.equal(await text(here.stdout), 'here\n');
});

test('an idle helper does not keep its process alive', () => {
  const module = join(dirname(fileURLToPath(import.meta.url)), 'spawner.js');
  const script = `import(${JSON.stringify(module)}).then(async (m) => { const s = m.startSpawner(); const c = await m.spawnChild('/bin/true', [], {}); await new Promise((r) => c.once('exit', r)); console.log('spawned by', s.pid); });`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.signal, null, 'the process ended by itself');
  assert.match(r.stdout, /^spawned by \d+/);
});

test('a server killed with SIGKILL: its helper ends what it started, then itself', async () => {
  const module = join(dirname(fileURLToPath(import.meta.url)), 'spawner.js');
  const script = `import(${JSON.stringify(module)}).then(async (m) => { const s = m.startSpawner(); const c = await m.spawnChild('/bin/sleep', ['30'], { stdio: ['ignore', 'ignore', 'ignore'], detached: true }); c.unref?.(); console.log(s.pid, c.pid); setInterval(() => {}, 1000); });`;
  const server = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [helper, child] = (
    await new Promise<string>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(d.toString())))
  )
    .trim()
    .split(' ')
    .map(Number) as [number, number];
  server.kill('SIGKILL');
  await new Promise((r) => server.once('exit', r));
  const gone = (pid: number): boolean => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] === 'Z';
    } catch {
      return true;
    }
  };
  const deadline = Date.now() + 5000;
  while (!(gone(helper) && gone(child)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(gone(helper), 'the helper ended');
  assert.ok(gone(child), "the helper's child ended");
});
