// Trainer figures (issue 14): our TypeScript XGBoost trainer side by side with xgboost 1.7.4
// (/usr/bin/python3), each run in its own process so peak RSS is its own. Times cover train() only.
// Usage: npm run build && node dist/bench/xgboost-train/bench.js [--quick] [--only notebook|TEXT] [--runs N]
//   [--warm | --prewarm] [--threads 1,2]
// With N > 2, a row with the median of the pairs' ratios follows each figure's runs.

import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateHyperparameters } from '../../src/training/xgboost/hyperparameters/index.js';
import { train } from '../../src/training/xgboost/train.js';
import { warmUpTrainer } from '../../src/training/xgboost/warm-up.js';
import type { TrainParams } from '../../src/training/xgboost/types.js';
import { median } from '../support.js';

const SELF = fileURLToPath(import.meta.url);

/** xgboost 1.7's defaults (as hyperparameter validation fills them) with the brief's settings. */
const BASE: TrainParams = {
  ...validateHyperparameters({ num_round: '100', tree_method: 'hist' }).params,
  nthread: 1,
};

/** float32 standard normal features, y = 2·x0 + sin(3·x1) + x2·x3 + noise (fixed seed) */
function synth(n: number, d: number, file: string): void {
  let s = 12345;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const X = new Float32Array(n * d);
  const y = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < d; c++) X[r * d + c] = normal();
    const b = r * d;
    y[r] = 2 * X[b] + Math.sin(3 * X[b + 1]) + X[b + 2] * X[b + 3] + 0.3 * normal();
  }
  const head = Buffer.from(new Int32Array([n, d]).buffer);
  writeFileSync(file, Buffer.concat([head, Buffer.from(X.buffer), Buffer.from(y.buffer)]));
}

/**
 * The file's matrix and labels in shared memory, as the channel readers (readChannel) give them to
 * a training: its threads read the matrix where it is.
 */
function readData(file: string) {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    for (let at = 0; at < size; ) at += readSync(fd, bytes, at, size - at, at);
    const [n, d] = new Int32Array(bytes.buffer, 0, 2);
    const body = new Float32Array(bytes.buffer, 8, n * d + n);
    return { numRows: n, numCols: d, data: body.subarray(0, n * d), labels: body.subarray(n * d) };
  } finally {
    closeSync(fd);
  }
}

const PY = `
import sys, json, time, resource, numpy as np, xgboost as xgb
file, params, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
n, d = np.fromfile(file, dtype=np.int32, count=2)
a = np.fromfile(file, dtype=np.float32, offset=8)
X = a[:n*d].reshape(n, d); y = a[n*d:n*d+n]
dtr = xgb.DMatrix(X, label=y, nthread=params['nthread'])
rounds = params.pop('num_round')
t = time.perf_counter(); c = time.process_time()
b = xgb.train(params, dtr, rounds)
ms = (time.perf_counter() - t) * 1000; cpu = (time.process_time() - c) * 1000
b.predict(dtr, output_margin=True).astype(np.float32).tofile(out)
print(json.dumps({"ms": ms, "cpuMs": cpu, "rssMB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

type Mode = 'cold' | 'warm' | 'prewarm';

async function child(file: string, params: TrainParams, out: string, mode: Mode): Promise<void> {
  const dm = readData(file);
  // --warm: one untimed training of the same set first, as in a training job's thread after a like job
  if (mode === 'warm') await train(params, dm, []);
  // --prewarm: the trainer thread's own warm-up (synthetic data) first, as a server's first job gets
  if (mode === 'prewarm') await warmUpTrainer();
  const c0 = process.cpuUsage();
  const t = performance.now();
  const res = await train(params, dm, []);
  const ms = performance.now() - t;
  // worker threads count in the process's CPU time
  const cu = process.cpuUsage(c0);
  const cpuMs = (cu.user + cu.system) / 1000;
  // margins of the training rows from the model
  const trees = (res.model.learner.gradient_booster as { model: { trees: Record<string, number[]>[] } }).model.trees;
  const m = new Float32Array(dm.numRows).fill(0.5);
  for (const tr of trees) {
    for (let r = 0; r < dm.numRows; r++) {
      let nid = 0;
      while (tr.left_children[nid] !== -1) {
        const v = dm.data[r * dm.numCols + tr.split_indices[nid]];
        nid = Number.isNaN(v)
          ? tr.default_left[nid]
            ? tr.left_children[nid]
            : tr.right_children[nid]
          : v < tr.split_conditions[nid]
            ? tr.left_children[nid]
            : tr.right_children[nid];
      }
      m[r] += tr.split_conditions[nid];
    }
  }
  writeFileSync(out, Buffer.from(m.buffer));
  console.log(JSON.stringify({ ms, cpuMs, rssMB: process.resourceUsage().maxRSS / 1024 }));
}

function run(cmd: string, args: string[]): { ms: number; cpuMs: number; rssMB: number } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  const last = r.stdout.trim().split('\n').pop() as string;
  return JSON.parse(last);
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    await child(process.argv[3], JSON.parse(process.argv[4]), process.argv[5], process.argv[6] as Mode);
    return;
  }
  const quick = process.argv.includes('--quick');
  // --only notebook: just the 4177 × 8 exact figures; --only TEXT: the figures whose name contains
  // TEXT (e.g. hist, 1000k); --runs N: repeat each case N times; --threads 1,2: these thread counts
  const oi = process.argv.indexOf('--only');
  const only = oi > 0 ? process.argv[oi + 1] : undefined;
  const ri = process.argv.indexOf('--runs');
  const runs = ri > 0 ? Math.max(1, Number(process.argv[ri + 1])) : 1;
  const ti = process.argv.indexOf('--threads');
  const threads = ti > 0 ? process.argv[ti + 1].split(',').map(Number) : undefined;
  // --warm: ours timed on its second training in the process (JIT-compiled code); --prewarm: after
  // the warm-up a server's trainer thread runs before its first job; xgboost as always
  const mode: Mode = process.argv.includes('--warm') ? 'warm' : process.argv.includes('--prewarm') ? 'prewarm' : 'cold';
  const dir = mkdtempSync(join(tmpdir(), 'xgb-bench-'));
  try {
    const abalone = join(process.cwd(), 'test/fixtures/xgboost-train/abalone.bin');
    const sets: { name: string; file: string; params: TrainParams; threads: number[] }[] = [
      {
        name: '4177 × 8, notebook hyperparameters, 50 rounds, exact',
        file: abalone,
        params: {
          ...BASE,
          objective: 'reg:linear',
          tree_method: 'exact',
          num_round: 50,
          max_depth: 5,
          eta: 0.2,
          gamma: 4,
          min_child_weight: 6,
        },
        threads: [1],
      },
    ];
    // the notebook samples rows too; the random streams differ from xgboost's (sampler.ts), so the
    // trees (and the prediction difference) do, the work per round is alike
    sets.push({
      name: '4177 × 8, notebook hyperparameters with subsample 0.7, 50 rounds, exact',
      file: abalone,
      params: { ...sets[0].params, subsample: 0.7 },
      threads: [1],
    });
    for (const n of only === 'notebook' ? [] : quick ? [200_000] : [200_000, 1_000_000]) {
      const file = join(dir, `synth-${n}.bin`);
      synth(n, 28, file);
      sets.push({ name: `${n / 1000}k × 28, 100 rounds, depth 6, hist`, file, params: BASE, threads: [1, 2] });
    }
    console.log(
      '| figure | threads | xgboost 1.7.4 wall (CPU) | ours wall (CPU) | ratio wall (CPU) | peak RSS xgboost / ours | max rel. prediction diff |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const s of sets) {
      if (only !== undefined && only !== 'notebook' && !s.name.includes(only)) continue;
      for (const t of s.threads.filter((x) => threads === undefined || threads.includes(x))) {
        const ratios: number[] = [];
        const cpuRatios: number[] = [];
        for (let rep = 0; rep < runs; rep++) {
          const params = { ...s.params, nthread: t };
          const pyOut = join(dir, 'py.f32');
          const tsOut = join(dir, 'ts.f32');
          const py = run('/usr/bin/python3', [
            '-c',
            PY,
            s.file,
            JSON.stringify({ ...params, lambda: params.lambda, eval_metric: undefined, base_score: 0.5 }),
            pyOut,
          ]);
          const ts = run(process.execPath, [SELF, '--child', s.file, JSON.stringify(params), tsOut, mode]);
          const a = new Float32Array(readFileSync(pyOut).buffer.slice(0));
          const b = new Float32Array(readFileSync(tsOut).buffer.slice(0));
          let maxRel = 0;
          for (let i = 0; i < a.length; i++)
            maxRel = Math.max(maxRel, Math.abs(a[i] - b[i]) / Math.max(Math.abs(a[i]), 1e-6));
          console.log(
            `| ${s.name} | ${t} | ${py.ms.toFixed(0)} (${py.cpuMs.toFixed(0)}) ms | ${ts.ms.toFixed(0)} (${ts.cpuMs.toFixed(0)}) ms | ${(ts.ms / py.ms).toFixed(2)}× (${(ts.cpuMs / py.cpuMs).toFixed(2)}×) | ${py.rssMB.toFixed(0)} / ${ts.rssMB.toFixed(0)} MB | ${maxRel.toExponential(1)} |`,
          );
          ratios.push(ts.ms / py.ms);
          cpuRatios.push(ts.cpuMs / py.cpuMs);
        }
        // each pair runs back to back, so a drifting host moves both; the median of the pairs' ratios
        // is the figure to read when there are several
        if (runs > 2)
          console.log(
            `| ${s.name} | ${t} | median of ${runs} pairs | | ${median(ratios).toFixed(2)}× (${median(cpuRatios).toFixed(2)}×) | | |`,
          );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
