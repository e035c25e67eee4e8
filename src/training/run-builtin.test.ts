import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { JobLog } from './job-output.js';
import { idleTrainers, prewarmTrainer, runBuiltinXGBoost } from './run-builtin.js';

test('prewarmTrainer readies one trainer thread, once, without keeping the process alive', async () => {
  assert.equal(idleTrainers(), 0);
  prewarmTrainer();
  prewarmTrainer(); // a second call while the first warms does nothing
  const until = Date.now() + 60_000;
  while (idleTrainers() === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.equal(idleTrainers(), 1, 'the warmed thread waits for a job');
  prewarmTrainer(); // a thread already waits
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(idleTrainers(), 1);

  // The warmed thread trains the next job (it is taken from the pool) and is given back after it.
  const dir = mkdtempSync(join(tmpdir(), 'slipway-prewarm-'));
  try {
    const train = join(dir, 'train.csv');
    writeFileSync(train, Array.from({ length: 200 }, (_, i) => `${i % 7},${i % 3},${(i * 7) % 11}`).join('\n'));
    const lines: string[] = [];
    const log = new JobLog(async () => {}, { accountId: '000000000000', region: 'us-east-1' }, 'g', 's');
    const job = runBuiltinXGBoost({
      image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      hyperparameters: { num_round: '3', objective: 'reg:squarederror' },
      channels: { train: { files: ['/opt/ml/input/data/train/train.csv'], contentType: 'text/csv' } },
      open: async () => createReadStream(train),
      threads: 1,
      log,
      onLine: (l) => lines.push(l),
      signal: new AbortController().signal,
    });
    assert.equal(idleTrainers(), 0, 'the job took the warmed thread');
    const model = await job;
    await log.close();
    assert.equal(lines.length, 3, 'one evaluation line a round');
    assert.equal(model.fileName, 'xgboost-model');
    assert.ok(model.bytes.length > 100, 'the model file comes back');
    assert.equal(idleTrainers(), 1, 'and gave it back');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trainer threads run at nice 19 and, where chrt exists, under SCHED_IDLE', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { readdirSync, readFileSync } = await import('node:fs');
  const hasChrt = (() => {
    try {
      execFileSync('chrt', ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!hasChrt) t.skip('no chrt on this machine');
  // The thread warmed up by the previous test waits in the pool: find it among this process's tasks.
  const tasks = readdirSync('/proc/self/task');
  const idle = tasks.filter((tid) => {
    const policy = execFileSync('chrt', ['--pid', tid], { encoding: 'utf8' });
    return /SCHED_IDLE/.test(policy);
  });
  assert.ok(idle.length >= 1, 'a trainer thread is SCHED_IDLE');
  for (const tid of idle) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    assert.equal(Number(stat[16]), 19, 'and nice 19'); // field 19 of stat: nice
  }
});

test('a stop ends training at the next round and keeps the trainer thread warm', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-stop-'));
  try {
    const train = join(dir, 'train.csv');
    writeFileSync(
      train,
      Array.from({ length: 2000 }, (_, i) => `${i % 7},${i % 3},${(i * 7) % 11},${i % 5}`).join('\n'),
    );
    const before = idleTrainers();
    const controller = new AbortController();
    const lines: string[] = [];
    const log = new JobLog(async () => {}, { accountId: '000000000000', region: 'us-east-1' }, 'g', 's');
    const job = runBuiltinXGBoost({
      image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      hyperparameters: { num_round: '100000', objective: 'reg:squarederror', max_depth: '6' },
      channels: { train: { files: ['/opt/ml/input/data/train/train.csv'], contentType: 'text/csv' } },
      open: async () => createReadStream(train),
      threads: 1,
      log,
      onLine: (l) => {
        lines.push(l);
        if (lines.length === 3) controller.abort(new Error('Stop requested.'));
      },
      signal: controller.signal,
    });
    const t0 = Date.now();
    await assert.rejects(job, /Stop requested/);
    await log.close();
    assert.ok(Date.now() - t0 < 1500, `stopped within a round or so (${Date.now() - t0} ms)`);
    assert.equal(lines.length, 3, 'no line after the stop is the job’s');
    assert.equal(idleTrainers(), Math.max(before, 1), 'the thread went back to the pool');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
