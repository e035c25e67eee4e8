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
