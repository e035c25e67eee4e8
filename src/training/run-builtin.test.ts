import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idleTrainers, prewarmTrainer } from './run-builtin.js';

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
