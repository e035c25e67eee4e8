// XGBoost runtime bench: prints the figures.
//
//   npm run build && node dist/bench/xgboost/bench.js
//
// 1. accuracy: every fixture in test/fixtures/xgboost vs xgboost's recorded predictions;
// 2. loading the abalone-sized model (50 trees, depth 5) from each format;
// 3. single-row predict on it;
// 4. batch predict of 10,000 rows × 8 features, one thread, for a 50-tree depth-5 and a 500-tree
//    depth-8 model, against xgboost's own C++ predict (nthread=1) measured in the same run by
//    bench/xgboost/xgb_reference.py when python3-xgboost is installed (set XGB_PYTHON to choose the
//    interpreter). Without it, the JS side runs on synthetic models of the same shape.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  extractModelFromTarGzSync,
  loadXGBoostModel,
  type XGBoostModel,
} from '../../src/inference/runtimes/xgboost/index.js';

const ROOT = process.cwd();
const FIX = resolve(ROOT, 'test/fixtures/xgboost');
const now = (): number => Number(process.hrtime.bigint()) / 1e6; // ms

interface Case {
  name: string;
  format: string;
  file: string;
  data: string;
  ref: string;
  ntreeLimit?: number;
}

function relErr(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(got[i]) && Number.isNaN(want[i])) continue;
    const d = Math.abs(got[i] - want[i]) / Math.max(Math.abs(want[i]), 1e-30);
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function line(label: string, value: string, target = ''): void {
  console.log(`${label.padEnd(58)} ${value.padStart(16)}  ${target}`);
}

// ---- 1. accuracy on every fixture ----------------------------------------------------------
const manifest = JSON.parse(readFileSync(join(FIX, 'manifest.json'), 'utf8')) as {
  xgboostVersion: string;
  cases: Case[];
};
let worst = 0;
for (const c of manifest.cases) {
  const model = loadXGBoostModel(extractModelFromTarGzSync(readFileSync(join(FIX, c.file))).bytes);
  const data = JSON.parse(readFileSync(join(FIX, c.data), 'utf8')) as { nFeatures: number; rows: (number | null)[][] };
  const rows = Float32Array.from(data.rows.flat(), (v) => (v === null ? Number.NaN : v));
  const ref = JSON.parse(readFileSync(join(FIX, c.ref), 'utf8')) as { predictions: number[]; margins: number[] };
  const opts = { ntreeLimit: c.ntreeLimit };
  worst = Math.max(
    worst,
    relErr(model.predict(rows, data.rows.length, opts), ref.predictions),
    relErr(model.predict(rows, data.rows.length, { ...opts, outputMargin: true }), ref.margins),
  );
}
console.log(`XGBoost runtime bench (node ${process.version}, one thread)\n`);
line(
  `fixtures: ${manifest.cases.length} cases vs xgboost ${manifest.xgboostVersion}, max rel. error`,
  worst.toExponential(2),
  '(target ≤ 1e-6)',
);

// ---- 2. loading the abalone-sized model ----------------------------------------------------
const abalone = manifest.cases.filter((c) => c.name === 'abalone');
let abaloneModel: XGBoostModel | undefined;
for (const c of abalone) {
  const bytes = extractModelFromTarGzSync(readFileSync(join(FIX, c.file))).bytes;
  for (let i = 0; i < 50; i++) loadXGBoostModel(bytes); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = now();
    abaloneModel = loadXGBoostModel(bytes);
    times.push(now() - t0);
  }
  line(
    `load abalone model (50 trees, depth 5), ${c.format} (${bytes.length} B), median`,
    `${median(times).toFixed(3)} ms`,
    '(target ≤ 5 ms)',
  );
}
{
  const tarGz = readFileSync(join(FIX, abalone.find((c) => c.format === 'pkl3-cfgoffset')!.file));
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = now();
    loadXGBoostModel(extractModelFromTarGzSync(tarGz).bytes);
    times.push(now() - t0);
  }
  line('  … including gunzip + untar of model.tar.gz (pickle), median', `${median(times).toFixed(3)} ms`);
}

// ---- 3. single-row predict -----------------------------------------------------------------
{
  const m = abaloneModel!;
  const row = Float32Array.from([0.345, 0.224414, 0.131102, 0.042329, 0.279923, -0.110329, -0.099358, 0.0]);
  let sink = 0;
  for (let i = 0; i < 200_000; i++) sink += m.predictOne(row);
  const runs: number[] = [];
  for (let k = 0; k < 7; k++) {
    const n = 200_000;
    const t0 = now();
    for (let i = 0; i < n; i++) sink += m.predictOne(row);
    runs.push(((now() - t0) * 1000) / n);
  }
  line('single-row predictOne, abalone model, median of 7 × 200k', `${median(runs).toFixed(3)} µs`, '(target ≤ 20 µs)');
  const runs2: number[] = [];
  for (let k = 0; k < 7; k++) {
    const n = 100_000;
    const t0 = now();
    for (let i = 0; i < n; i++) sink += m.predict(row, 1)[0];
    runs2.push(((now() - t0) * 1000) / n);
  }
  line('single-row predict(rows, 1) (allocates the output)', `${median(runs2).toFixed(3)} µs`);
  if (sink === 42) console.log('');
}

// ---- 4. batch predict vs xgboost C++ -------------------------------------------------------
function findPython(): string | undefined {
  const candidates = [process.env.XGB_PYTHON, 'python3', '/usr/bin/python3'].filter((x): x is string => !!x);
  for (const py of candidates) {
    try {
      execFileSync(py, ['-c', 'import xgboost'], { stdio: 'ignore' });
      return py;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

function timeBatch(
  model: XGBoostModel,
  rows: Float32Array,
  n: number,
  repeats: number,
): { best: number; median: number; out: Float32Array } {
  let out = model.predict(rows, n);
  for (let i = 0; i < 3; i++) out = model.predict(rows, n);
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = now();
    out = model.predict(rows, n);
    times.push(now() - t0);
  }
  return { best: Math.min(...times), median: median(times), out };
}

const python = findPython();
console.log('');
if (python) {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-xgb-bench-'));
  try {
    const summary = JSON.parse(
      execFileSync(python, [resolve(ROOT, 'bench/xgboost/xgb_reference.py'), dir, '20'], { encoding: 'utf8' }),
    ) as {
      xgboost: string;
      rows: number;
      models: Record<string, { trees: number; depth: number; nodes: number; best_ms: number; median_ms: number }>;
    };
    const raw = readFileSync(join(dir, 'data.f32'));
    const rows = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    for (const [name, ref] of Object.entries(summary.models)) {
      const model = loadXGBoostModel(readFileSync(join(dir, `${name}.json`)));
      const r = timeBatch(model, rows, summary.rows, 20);
      const p = readFileSync(join(dir, `${name}.pred.f32`));
      const want = new Float32Array(p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength));
      const ratio = r.best / ref.best_ms;
      line(
        `batch ${summary.rows}×8, ${ref.trees} trees depth ${ref.depth} (${ref.nodes} nodes): slipway best`,
        `${r.best.toFixed(2)} ms`,
        `(median ${r.median.toFixed(2)} ms)`,
      );
      line(
        `  xgboost ${summary.xgboost} C++ predict, nthread=1, best`,
        `${ref.best_ms.toFixed(2)} ms`,
        `(median ${ref.median_ms.toFixed(2)} ms)`,
      );
      line(
        '  ratio slipway / xgboost (best vs best)',
        `${ratio.toFixed(2)}×`,
        `(target ≤ 2×; max rel. error ${relErr(r.out, want).toExponential(1)})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  console.log('python3-xgboost not found: timing synthetic models of the same shape, no xgboost comparison.');
  const rows = new Float32Array(10_000 * 8);
  let seed = 1;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < rows.length; i++) rows[i] = rnd() < 0.02 ? Number.NaN : (rnd() - 0.5) * 4;
  for (const [trees, depth] of [
    [50, 5],
    [500, 8],
  ]) {
    const model = loadXGBoostModel(new TextEncoder().encode(JSON.stringify(syntheticModel(trees, depth, rnd))));
    const r = timeBatch(model, rows, 10_000, 20);
    line(
      `batch 10000×8, ${trees} trees depth ${depth} (synthetic, full trees): slipway best`,
      `${r.best.toFixed(2)} ms`,
      `(median ${r.median.toFixed(2)} ms)`,
    );
  }
}

/** A JSON model of full binary trees with random splits, for when xgboost is not installed. */
function syntheticModel(nTrees: number, depth: number, rnd: () => number): unknown {
  const trees = [];
  for (let t = 0; t < nTrees; t++) {
    const n = 2 ** (depth + 1) - 1;
    const left: number[] = [];
    const right: number[] = [];
    const idx: number[] = [];
    const cond: number[] = [];
    const dl: number[] = [];
    for (let i = 0; i < n; i++) {
      const internal = 2 * i + 1 < n;
      left.push(internal ? 2 * i + 1 : -1);
      right.push(internal ? 2 * i + 2 : -1);
      idx.push(internal ? Math.floor(rnd() * 8) : 0);
      cond.push(internal ? (rnd() - 0.5) * 3 : (rnd() - 0.5) * 0.1);
      dl.push(rnd() < 0.5 ? 1 : 0);
    }
    const zeros = new Array(n).fill(0);
    trees.push({
      id: t,
      tree_param: { num_nodes: String(n), num_feature: '8', num_deleted: '0', size_leaf_vector: '0' },
      left_children: left,
      right_children: right,
      parents: zeros,
      split_indices: idx,
      split_conditions: cond,
      default_left: dl,
      split_type: zeros,
      categories: [],
      categories_nodes: [],
      categories_segments: [],
      categories_sizes: [],
      loss_changes: zeros,
      sum_hessian: zeros,
      base_weights: zeros,
    });
  }
  return {
    version: [1, 7, 4],
    learner: {
      attributes: {},
      feature_names: [],
      feature_types: [],
      learner_model_param: { base_score: '5E-1', num_class: '0', num_feature: '8', num_target: '1' },
      objective: { name: 'reg:squarederror' },
      gradient_booster: {
        name: 'gbtree',
        model: {
          gbtree_model_param: { num_trees: String(nTrees), size_leaf_vector: '0' },
          trees,
          tree_info: new Array(nTrees).fill(0),
        },
      },
    },
  };
}
