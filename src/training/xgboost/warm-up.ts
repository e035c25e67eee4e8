// The trainer thread's warm-up (run-builtin.ts starts one thread ahead of the first job): a small
// synthetic set trained with the exact and the hist method, nothing written; the first training
// runs hist on every core, so the team's worker threads are started and warm too (hist-team.ts
// keeps them for the next training). A fresh thread's first
// training spends more time in V8's compilers than in training (the notebook's job: ~300 ms cold,
// ~100 ms warm); after this the job's training runs compiled code. The trainer bench's --prewarm
// mode calls this same function, so its figure is what a training job gets.
import { availableParallelism } from 'node:os';
import { validateHyperparameters } from './hyperparameters/index.js';
import { prestartWorkers } from './hist-team.js';
import { train } from './train.js';
import type { DMatrix } from './types.js';

export async function warmUpTrainer(): Promise<void> {
  // 65,536 rows: train() starts threads (hist-team.ts), and each column fills the quantile sketch's
  // queue several times, so its summaries' merging and pruning are compiled too (a 200k-row job's
  // first column otherwise spent ~60 ms in them unoptimized); the first 2048 rows for the rest
  const big = 65536;
  const rows = 2048;
  const cols = 8;
  const data = new Float32Array(big * cols);
  const labels = new Float32Array(big);
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let r = 0; r < big; r++) {
    for (let c = 0; c < cols; c++) data[r * cols + c] = next();
    labels[r] = 2 * data[r * cols]! + Math.sin(3 * data[r * cols + 1]!) + next() * 0.1;
  }
  // the same rows with some values missing: the trainer takes other paths when a column has gaps
  const gaps = data.map((v, i) => (((i / cols) | 0) % 17 === i % cols ? Number.NaN : v));
  const dense: DMatrix = {
    numRows: rows,
    numCols: cols,
    data: data.subarray(0, rows * cols),
    labels: labels.subarray(0, rows),
  };
  const sparse: DMatrix = {
    numRows: rows,
    numCols: cols,
    data: gaps.subarray(0, rows * cols),
    labels: labels.subarray(0, rows),
  };
  // first the threaded hist training, so V8 has compiled its code in the background by the time the
  // small single-thread trainings end (a job straight after the warm-up then meets no compiler)
  const all: DMatrix = { numRows: big, numCols: cols, data, labels };
  const hist = validateHyperparameters({ num_round: '5', max_depth: '6', tree_method: 'hist' });
  // its threads up first: a thread the training started would still be booting while the main
  // thread did the whole sketch and binning, and a job's first sketch would then run cold there
  await prestartWorkers(availableParallelism() - 1);
  await train({ ...hist.params, nthread: availableParallelism() }, all, []);
  for (const [tree_method, dtrain] of [
    ['exact', dense],
    ['exact', sparse],
    ['hist', sparse],
  ] as const) {
    const hp = validateHyperparameters({
      num_round: '30',
      max_depth: '5',
      eta: '0.2',
      gamma: '4',
      min_child_weight: '6',
      subsample: '0.7',
      objective: 'reg:squarederror',
      tree_method,
    });
    await train({ ...hp.params, nthread: 1 }, dtrain, [{ name: 'train', data: dtrain }]);
  }
}
