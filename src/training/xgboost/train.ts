// The boosting loop of xgboost 1.7's `xgboost.train()` (python-package/xgboost/training.py,
// src/learner.cc, src/gbm/gbtree.cc): gradients from the objective, one tree per output group per
// round with the configured tree method, evaluation lines, early stopping, and the JSON model.

import { ExactGrower } from './exact.js';
import { type SortedColumns, sortColumns } from './exact-columns.js';
import { growHist, HistScratch } from './hist.js';
import { binMatrix, type HistMatrix, sketchCuts } from './hist-data.js';
import { RowState } from './hist-rows.js';
import { Team } from './hist-team.js';
import { type Metric, makeMetric } from './metrics.js';
import { floatParam, makeObjective, type ObjectiveImpl } from './objectives.js';
import { ColumnSampler, Rng } from './sampler.js';
import { makeCuts } from './cuts.js';
import { splitParams } from './split.js';
import type { RegTree } from './tree.js';
import type { DMatrix, EvalResult, TrainParams, XGBoostJsonModel } from './types.js';

export interface TrainOptions {
  /** called after each round with its results and its evaluation line (tab-separated, no newline) */
  onRound?(round: number, results: EvalResult[], line: string): void;
  signal?: AbortSignal;
  /**
   * What early stopping watches on the last evaluation set (the container's choice: the tuning
   * metric, else the last eval_metric) and whether larger is better; default: xgboost's own rule.
   */
  earlyStopping?: { metric?: string; maximize?: boolean };
  /** tree_method hist/approx: the JavaScript histogram kernels instead of WebAssembly (tests) */
  jsKernels?: boolean;
}

export interface TrainResult {
  model: XGBoostJsonModel;
  /** set when early stopping was configured */
  bestIteration?: number;
  bestScore?: number;
  history: EvalResult[][];
  /** the evaluation lines as xgboost prints them ("[0]\ttrain-rmse:0.51234") */
  lines: string[];
}

/** tree_method=auto as xgboost 1.7 resolves it on one machine (gbtree.cc): approx from 4Mi rows. */
export function resolveTreeMethod(p: TrainParams, numRows: number): 'exact' | 'approx' | 'hist' {
  if (p.tree_method !== 'auto') return p.tree_method;
  return numRows >= 4 << 20 ? 'approx' : 'exact';
}

/** Python's repr of a float (what str(score) gives the best_score attribute). */
export function pyRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  const e = x === 0 ? 0 : Math.floor(Math.log10(Math.abs(x)));
  if (e < -4 || e >= 16) {
    const [m, ex] = x.toExponential().split('e');
    const n = Number(ex);
    return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(x);
}

/** Names xgboost's EarlyStopping treats as "larger is better" when maximize is not given. */
function maximizes(metric: string): boolean {
  return (
    metric !== 'mape' &&
    ['auc', 'aucpr', 'map', 'ndcg', 'auc@', 'aucpr@', 'map@', 'ndcg@'].some((p) => metric.startsWith(p))
  );
}

function hasMissing(data: Float32Array): boolean {
  for (let i = 0; i < data.length; i++) if (Number.isNaN(data[i])) return true;
  return false;
}

function checkMatrix(d: DMatrix, numCols: number, what: string): void {
  if (d.numCols !== numCols) throw new Error(`${what}: ${d.numCols} features, the training data has ${numCols}`);
  if (d.data.length !== d.numRows * d.numCols || d.labels.length !== d.numRows) {
    throw new Error(`${what}: data/labels do not match numRows × numCols`);
  }
}

function predictInto(trees: RegTree[], groups: number[], d: DMatrix, margins: Float32Array, k: number): void {
  for (let t = 0; t < trees.length; t++) {
    const tree = trees[t];
    const g = groups[t];
    for (let r = 0; r < d.numRows; r++) {
      const leaf = tree.leafOf(d.data, r * d.numCols);
      margins[r * k + g] += tree.cond[leaf];
    }
  }
}

// The per-row loops of a round live in small functions of their own: inside train() they would make
// V8 compile all of train() on the stack (OSR) while the first job runs.

/** Output group g's gradients, contiguous. */
function groupGradients(
  grad: Float32Array,
  hess: Float32Array,
  k: number,
  g: number,
  outG: Float32Array,
  outH: Float32Array,
): void {
  for (let r = 0; r < outG.length; r++) {
    outG[r] = grad[r * k + g];
    outH[r] = hess[r * k + g];
  }
}

/** hist/approx row sampling: group g's pairs of the rows not drawn (or with a negative hessian) zeroed. */
function sampleOut(rng: Rng, subsample: number, grad: Float32Array, hess: Float32Array, k: number, g: number): void {
  for (let at = g; at < hess.length; at += k) {
    if (!(hess[at] >= 0 && rng.next() < subsample)) {
      grad[at] = 0;
      hess[at] = 0;
    }
  }
}

/** Bernoulli row sampling for the exact updater; rows with a negative hessian draw nothing. */
function sampleRows(rng: Rng, subsample: number, hess: Float32Array, active: Uint8Array): void {
  for (let r = 0; r < active.length; r++) active[r] = hess[r] >= 0 && rng.next() < subsample ? 1 : 0;
}

export async function train(
  params: TrainParams,
  dtrain: DMatrix,
  evals: { name: string; data: DMatrix }[] = [],
  opts: TrainOptions = {},
): Promise<TrainResult> {
  const n = dtrain.numRows;
  const nc = dtrain.numCols;
  checkMatrix(dtrain, nc, 'train');
  for (const e of evals) checkMatrix(e.data, nc, e.name);
  const obj: ObjectiveImpl = makeObjective(params);
  const k = obj.groups;
  const method = resolveTreeMethod(params, n);
  const poissonDefault = params.objective === 'count:poisson' && params.max_delta_step === 0;
  const sp = splitParams({ ...params, max_delta_step: poissonDefault ? 0.7 : params.max_delta_step });
  const baseScore = params.base_score ?? 0.5;
  const baseMargin = obj.probToMargin(baseScore);
  const metricSpecs = params.eval_metric.length > 0 ? params.eval_metric : [obj.defaultMetric];
  const metrics: Metric[] = metricSpecs.map((m) => makeMetric(m, { huberSlope: params.huber_slope }));
  const rng = new Rng(params.seed);
  if (params.early_stopping_rounds !== undefined && evals.length === 0) {
    throw new Error('Must have at least 1 validation dataset for early stopping.');
  }
  if (method === 'exact' && params.max_depth <= 0)
    throw new Error("exact tree method doesn't support unlimited depth.");
  if (params.grow_policy === 'lossguide' && method === 'exact') {
    throw new Error('grow_policy=lossguide needs tree_method hist or approx');
  }

  const nthread = params.nthread > 0 ? params.nthread : (await import('node:os')).availableParallelism();
  // threads pay off from a few tens of thousands of cells; below that the hand-offs cost more
  const threaded = nthread > 1 && method !== 'exact' && n * nc >= 1 << 16;
  // hist/approx: the rows' state lives in the arena of a team of threads (hist-team.ts)
  const team =
    method === 'exact'
      ? undefined
      : new Team(threaded ? Math.min(nthread, nc) : 1, n, nc, dtrain.data, dtrain.weights, obj, params, opts.jsKernels);
  let best: { iter: number; score: number } | undefined;
  let sinceBest = 0;
  let stopped = false;
  const trees: RegTree[] = [];
  const treeGroups: number[] = [];
  const history: EvalResult[][] = [];
  const lines: string[] = [];
  try {
    const rows = team ? new RowState(team, n, k, dtrain.labels, dtrain.weights, baseMargin) : undefined;
    const trainMargins = rows?.margins ?? new Float32Array(n * k).fill(baseMargin);
    const evalMargins = evals.map((e) =>
      e.data === dtrain ? trainMargins : new Float32Array(e.data.numRows * k).fill(baseMargin),
    );
    const evalPreds: Float32Array[] = [];
    const grad = rows?.grad ?? new Float32Array(n * k);
    const hess = rows?.hess ?? new Float32Array(n * k);
    const gGrad = new Float32Array(team ? 0 : n);
    const gHess = new Float32Array(team ? 0 : n);
    const cols = method === 'exact' || method === 'approx' ? sortColumns(dtrain.data, n, nc) : undefined;
    let exact: ExactGrower | undefined;
    const active = method === 'exact' && params.subsample < 1 ? new Uint8Array(n) : undefined;
    let binned: HistMatrix | undefined;
    let scratch: HistScratch | undefined;
    let dense: boolean | undefined;
    const constHess = obj.name === 'reg:squarederror';
    const lossguide = params.grow_policy === 'lossguide';
    if (team && method === 'hist') {
      const sk = await sketchCuts(team, n, nc, params.max_bin);
      binned = await binMatrix(team, n, nc, sk.cuts, sk.dense, params.max_bin, sp);
    }
    for (let iter = 0; iter < params.num_round && !stopped; iter++) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      if (rows) await rows.gradients();
      else obj.gradients(trainMargins, dtrain.labels, dtrain.weights, grad, hess);
      for (let g = 0; g < k; g++) {
        const sampler = new ColumnSampler(
          rng,
          nc,
          params.colsample_bynode,
          params.colsample_bylevel,
          params.colsample_bytree,
        );
        let tree: RegTree;
        if (!team || !rows) {
          groupGradients(grad, hess, k, g, gGrad, gHess);
          if (active !== undefined) sampleRows(rng, params.subsample, gHess, active);
          exact ??= new ExactGrower(cols as SortedColumns, dtrain.data, sp, params.max_depth);
          tree = exact.grow(gGrad, gHess, active, sampler);
          // the prediction cache from the rows' final positions
          exact.addLeafValues(tree, trainMargins, k, g);
        } else {
          // group g's pairs are grad[r × k + g]; sampled-out rows are zeroed there
          if (params.subsample < 1) sampleOut(rng, params.subsample, grad, hess, k, g);
          if (method === 'approx' && (binned === undefined || !constHess)) {
            // GHistIndexMatrix built from the hessian-weighted sketch (once for a constant hessian)
            const w = new Float32Array(n);
            for (let r = 0; r < n; r++) w[r] = dtrain.weights ? hess[r * k + g] * dtrain.weights[r] : hess[r * k + g];
            const cuts = makeCuts(dtrain.data, n, nc, params.max_bin, w, !constHess, cols);
            dense ??= !hasMissing(dtrain.data);
            binned = await binMatrix(team, n, nc, cuts, dense, params.max_bin, sp, binned);
          }
          const bm = binned as HistMatrix;
          scratch ??= new HistScratch(team, bm.histBytes, n);
          const grown = await growHist(
            team,
            bm,
            scratch,
            { grad, hess, groups: k, group: g },
            {
              p: sp,
              maxDepth: params.max_depth,
              maxLeaves: params.max_leaves,
              lossguide,
              rootFromGradients: method === 'approx',
            },
            sampler,
          );
          tree = grown.tree;
          await rows.addLeaves(grown.leaves, g);
        }
        trees.push(tree);
        treeGroups.push(g);
      }
      // evaluation
      const results: EvalResult[] = [];
      let line = `[${iter}]`;
      evals.forEach((e, i) => {
        const margins = evalMargins[i];
        if (margins !== trainMargins)
          predictInto(trees.slice(trees.length - k), treeGroups.slice(trees.length - k), e.data, margins, k);
        // the metrics read the margins themselves when the transform changes nothing; else a copy
        // (one per set, kept between rounds) transformed
        let preds = margins;
        if (!obj.evalIdentity) {
          preds = evalPreds[i] ??= new Float32Array(margins.length);
          preds.set(margins);
          obj.evalTransform(preds);
        }
        for (const m of metrics) {
          // the learner prints with 17 fixed digits; Python parses that text
          const value = Number(m.eval(preds, e.data.labels, e.data.weights, k).toFixed(17));
          results.push({ set: e.name, metric: m.name, value });
          line += `\t${e.name}-${m.name}:${value.toFixed(5)}`;
        }
      });
      history.push(results);
      lines.push(line);
      opts.onRound?.(iter, results, line);
      if (params.early_stopping_rounds !== undefined && evals.length > 0) {
        const last = evals[evals.length - 1].name;
        const mine = results.filter((r) => r.set === last);
        const watched = opts.earlyStopping?.metric;
        const { metric, value } = mine.find((r) => r.metric === watched) ?? mine[mine.length - 1];
        const larger = opts.earlyStopping?.maximize ?? maximizes(metric);
        const improved = best === undefined || (larger ? value > best.score : best.score > value);
        if (improved) {
          best = { iter, score: value };
          sinceBest = 0;
        } else sinceBest++;
        if (sinceBest >= params.early_stopping_rounds) stopped = true;
      }
    }
  } finally {
    await team?.close();
  }

  const attributes: Record<string, string> = {};
  // python-package/xgboost/callback.py CallbackContainer.after_training
  if (best !== undefined) {
    attributes.best_iteration = String(best.iter);
    attributes.best_ntree_limit = String(best.iter + 1);
    attributes.best_score = pyRepr(best.score);
  } else if (history.length > 0) {
    attributes.best_iteration = String(history.length - 1);
    attributes.best_ntree_limit = String(history.length);
  }
  const model: XGBoostJsonModel = {
    learner: {
      attributes,
      feature_names: [],
      feature_types: [],
      gradient_booster: {
        model: {
          gbtree_model_param: { num_parallel_tree: '1', num_trees: String(trees.length), size_leaf_vector: '0' },
          tree_info: treeGroups,
          trees: trees.map((t, i) => t.toJson(i)),
        },
        name: 'gbtree',
      },
      learner_model_param: {
        base_score: floatParam(baseScore),
        // LearnerModelParam: a user-given base_score turns boost_from_average off
        boost_from_average: params.base_score === undefined ? '1' : '0',
        num_class: String(k > 1 ? k : 0),
        num_feature: String(nc),
        num_target: '1',
      },
      objective: obj.json(),
    },
    version: [1, 7, 4],
  };
  return { model, bestIteration: best?.iter, bestScore: best?.score, history, lines };
}
