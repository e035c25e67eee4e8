// The trainer thread's warm-up (run-builtin.ts starts one thread ahead of the first job): small
// synthetic sets trained with the exact and the hist method, nothing written; the last trainings
// run hist on every core, so the team's worker threads are started and warm too (hist-team.ts
// keeps them for the next training). A fresh thread's first training spends more time in V8's
// compilers than in training (the notebook's job: ~300 ms cold, ~100 ms warm); after this the
// job's training runs compiled code. The trainer bench's --prewarm mode calls this same function,
// so its figure is what a training job gets.
//
// What V8 compiles is only as good as what it has seen run. Code compiled before a path first runs
// is thrown away when the job takes that path, and compiled again while the job's threads want
// both cores (a 200k-row job on two threads spent ~700 ms of CPU in the optimizing compiler). So
// the warm-up takes every path a job takes, in the order that keeps the compiled code: the
// single-thread trainings first; then a team over enough rows that nodes below the root are built
// by row blocks (hist-tasks.ts BUILD_BLOCK), with a row count that is no multiple of a block; then
// a second team (every team has its own kernel functions: the call sites must have seen more
// than one) for as many rounds as a job has, so the per-tree code is hot by the end.
import { availableParallelism } from 'node:os';
import { validateHyperparameters } from './hyperparameters/index.js';
import { prestartWorkers } from './hist-team.js';
import { BUILD_BLOCK } from './hist-tasks.js';
import { readChannel } from './input/index.js';
import { parseThreads } from './parse-threads.js';
import { train } from './train.js';
import type { DMatrix } from './types.js';

/**
 * A job's channel reading: CSV and libsvm text parsed here and, in blocks, on the histogram
 * threads, so each has compiled the parsers before a job's megabytes arrive.
 */
async function warmUpReading(threads: number): Promise<void> {
  const csv: string[] = [];
  const libsvm: string[] = [];
  for (let r = 0; r < 3000; r++) {
    const cells = Array.from({ length: 12 }, (_, c) => ((((r * 31 + c * 17) % 997) - 498) / 97).toFixed(6));
    csv.push(`${r % 5},${cells.join(',')}`);
    libsvm.push(`${r % 5} ${cells.map((v, c) => `${c}:${v}`).join(' ')}`);
  }
  const file = (text: string) => ({
    name: 'warm-up',
    open: async () =>
      (async function* () {
        yield new TextEncoder().encode(`${text}\n`);
      })(),
  });
  const pool = threads > 1 ? parseThreads(threads) : undefined;
  try {
    for (const threadsOf of [undefined, pool]) {
      await readChannel([file(csv.join('\n'))], { contentType: 'text/csv', threads: threadsOf, blockBytes: 16384 });
      await readChannel([file(libsvm.join('\n'))], { contentType: 'libsvm', threads: threadsOf, blockBytes: 16384 });
    }
  } finally {
    pool?.close();
  }
}

export async function warmUpTrainer(): Promise<void> {
  // 4.5 blocks: the root's smaller child has two or more blocks
  const big = BUILD_BLOCK * 4.5;
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
    // both signs: the sketch orders negative floats by other bit operations than positive ones
    for (let c = 0; c < cols; c++) data[r * cols + c] = next() - 0.5;
    labels[r] = 2 * data[r * cols]! + Math.sin(3 * data[r * cols + 1]!) + next() * 0.1;
  }
  // the first rows with some values missing: the trainer takes other paths when a column has gaps
  const gaps = data.subarray(0, rows * cols).map((v, i) => (((i / cols) | 0) % 17 === i % cols ? Number.NaN : v));
  const dense: DMatrix = {
    numRows: rows,
    numCols: cols,
    data: data.subarray(0, rows * cols),
    labels: labels.subarray(0, rows),
  };
  const sparse: DMatrix = { numRows: rows, numCols: cols, data: gaps, labels: labels.subarray(0, rows) };
  const single = async (tree_method: 'exact' | 'hist', dtrain: DMatrix) => {
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
  };
  await single('exact', dense);
  await single('exact', sparse);
  await single('hist', sparse);
  // the threads up first: a thread the training started would still be booting while the main
  // thread did the whole sketch and binning, and a job's first sketch would then run cold there;
  // as many as a job parses its channels on
  const threads = availableParallelism();
  await prestartWorkers(threads);
  await warmUpReading(threads);
  const hist = (rounds: number) => ({
    ...validateHyperparameters({ num_round: String(rounds), max_depth: '6', tree_method: 'hist' }).params,
    nthread: threads,
  });
  await train(hist(10), { numRows: big, numCols: cols, data, labels }, []);
  const half = BUILD_BLOCK * 2 + 1000;
  await train(
    hist(100),
    { numRows: half, numCols: cols, data: data.subarray(0, half * cols), labels: labels.subarray(0, half) },
    [],
  );
  // the exact method last again: code V8 compiled for an earlier training's objects is dropped
  // once the collector has freed them, and the teams' trainings above gave it time to
  await single('exact', dense);
  await single('exact', sparse);
}
