// The trainer against models real xgboost 1.7.4 trained (test/fixtures/xgboost-train, made by
// scripts/fixtures/xgboost-train/make.py): same trees, predictions, evaluation lines, attributes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { specFromJson } from '../../inference/runtimes/xgboost/json-model.js';
import { FIXTURES, loadData, loadFixtures, slice, trainParams } from './test-fixtures.js';
import { train } from './train.js';

const fx = loadFixtures();

type Tree = Record<string, number[]>;
const EXACT_KEYS = ['left_children', 'right_children', 'parents', 'split_indices', 'default_left'];
const FLOAT_KEYS = ['split_conditions', 'base_weights', 'loss_changes', 'sum_hessian'];

function relDiff(a: number, b: number): number {
  return a === b ? 0 : Math.abs(a - b) / Math.max(Math.abs(b), 1e-30);
}

describe('xgboost trainer: trees of xgboost 1.7.4', () => {
  for (const c of fx.cases) {
    it(`${c.name}: same trees, predictions, lines and attributes`, async () => {
      const ds = loadData(c.data);
      const dtr = slice(ds, 0, c.split, c.weights);
      const dva = slice(ds, c.split, ds.n, c.weights);
      const res = await train(trainParams(c.params), dtr, [
        { name: 'train', data: dtr },
        { name: 'validation', data: dva },
      ]);
      const exp = JSON.parse(readFileSync(`${FIXTURES}${c.name}.json`, 'utf8'));
      const got = res.model.learner as Record<string, Record<string, unknown>>;
      const et = exp.learner.gradient_booster.model.trees as Tree[];
      const gt = (got.gradient_booster.model as { trees: Tree[] }).trees;
      assert.equal(gt.length, et.length, 'number of trees');
      for (let t = 0; t < et.length; t++) {
        for (const k of EXACT_KEYS) assert.deepEqual(gt[t][k], et[t][k], `tree ${t} ${k}`);
        for (const k of FLOAT_KEYS) {
          for (let i = 0; i < et[t][k].length; i++) {
            assert.ok(
              relDiff(gt[t][k][i], et[t][k][i]) <= 1e-6,
              `tree ${t} ${k}[${i}]: ${gt[t][k][i]} vs ${et[t][k][i]}`,
            );
          }
        }
        assert.deepEqual(gt[t].tree_param, et[t].tree_param);
      }
      assert.deepEqual(got.learner_model_param, exp.learner.learner_model_param);
      assert.deepEqual(got.objective, exp.learner.objective);
      assert.deepEqual(got.attributes, exp.learner.attributes);
      assert.deepEqual(
        (got.gradient_booster.model as { tree_info: number[] }).tree_info,
        exp.learner.gradient_booster.model.tree_info,
      );
      // xgboost's Python may skip printing the round early stopping ends on (its callbacks sit in a set)
      assert.deepEqual(res.lines.slice(0, c.lines.length), c.lines);
      assert.ok(res.lines.length - c.lines.length <= (c.params.early_stopping_rounds ? 1 : 0));

      // our own loader reads the document and predicts what xgboost predicted
      const spec = specFromJson(JSON.parse(JSON.stringify(res.model)), 'json');
      assert.equal(spec.trees?.length, et.length);
      const margins = predictMargins(res.model, dva.data, dva.numRows, dva.numCols);
      for (let i = 0; i < c.margins.length; i++) {
        assert.ok(
          relDiff(margins[i], c.margins[i]) <= 1e-6 || Math.abs(margins[i] - c.margins[i]) < 1e-6,
          `margin ${i}`,
        );
      }
    });
  }
});

/** Sums the leaves of the JSON trees (as xgboost's predictor does, in float). */
function predictMargins(
  model: { learner: Record<string, unknown> },
  X: Float32Array,
  n: number,
  d: number,
): Float32Array {
  const l = model.learner as Record<string, Record<string, unknown>>;
  const k = Math.max(1, Number(l.learner_model_param.num_class));
  const base = Number(l.learner_model_param.base_score);
  const obj = (l.objective as { name: string }).name;
  const margin0 = ['binary:logistic', 'reg:logistic'].includes(obj)
    ? Math.fround(-Math.log(Math.fround(Math.fround(1 / Math.fround(base)) - 1)))
    : ['count:poisson', 'reg:gamma', 'reg:tweedie'].includes(obj)
      ? Math.fround(Math.log(Math.fround(base)))
      : Math.fround(base);
  const gb = l.gradient_booster.model as { trees: Tree[]; tree_info: number[] };
  const out = new Float32Array(n * k).fill(margin0);
  gb.trees.forEach((t, ti) => {
    for (let r = 0; r < n; r++) {
      let nid = 0;
      while (t.left_children[nid] !== -1) {
        const v = X[r * d + t.split_indices[nid]];
        if (Number.isNaN(v)) nid = t.default_left[nid] ? t.left_children[nid] : t.right_children[nid];
        else nid = v < t.split_conditions[nid] ? t.left_children[nid] : t.right_children[nid];
      }
      out[r * k + gb.tree_info[ti]] += t.split_conditions[nid];
    }
  });
  return out;
}

describe('xgboost trainer: sampling', () => {
  for (const s of fx.sampled) {
    const what = Object.entries(s.params)
      .filter(([k, v]) => (k.startsWith('col') || k === 'subsample' ? v !== 1 : false))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    it(`${s.tree_method} ${what}: validation rmse over 5 seeds within 1% of xgboost's`, async () => {
      const ds = loadData('abalone');
      const dtr = slice(ds, 0, s.split);
      const dva = slice(ds, s.split, ds.n);
      let sum = 0;
      for (let seed = 0; seed < 5; seed++) {
        const res = await train(trainParams(s.params, { seed }), dtr, [{ name: 'validation', data: dva }]);
        sum += res.history[res.history.length - 1][0].value;
      }
      const ours = sum / 5;
      assert.ok(Math.abs(ours - s.rmse) / s.rmse <= 0.01, `ours ${ours} vs xgboost ${s.rmse}`);
    });
  }
});

describe('xgboost trainer: contract', () => {
  it('tree_method=auto trains exact trees below 4Mi rows, as xgboost 1.7 chooses', async () => {
    const c = fx.cases.find((x) => x.name === 'reg-exact');
    assert.ok(c);
    const ds = loadData(c.data);
    const dtr = slice(ds, 0, c.split);
    const auto = await train(trainParams(c.params, { tree_method: 'auto' }), dtr, []);
    const exact = JSON.parse(readFileSync(`${FIXTURES}reg-exact.json`, 'utf8'));
    const trees = (auto.model.learner.gradient_booster as { model: { trees: Tree[] } }).model.trees;
    assert.deepEqual(
      trees.map((t) => t.split_indices),
      exact.learner.gradient_booster.model.trees.map((t: Tree) => t.split_indices),
    );
  });
  it('refuses early stopping without an evaluation set, as xgboost does', async () => {
    const ds = loadData('reg');
    const dtr = slice(ds, 0, 100);
    const p = trainParams(fx.cases[0].params, { early_stopping_rounds: 3 });
    await assert.rejects(train(p, dtr, []), /at least 1 validation dataset/);
  });
  it('rejects evaluation data with another number of features', async () => {
    const ds = loadData('reg');
    const dtr = slice(ds, 0, 100);
    const bad = { ...dtr, numCols: 4, data: dtr.data.slice(0, 400) };
    const p = trainParams(fx.cases[0].params);
    await assert.rejects(train(p, dtr, [{ name: 'validation', data: bad }]), /features/);
  });
  it('stops when aborted', async () => {
    const ds = loadData('reg');
    const dtr = slice(ds, 0, 300);
    const ac = new AbortController();
    const p = trainParams(fx.cases[0].params, { num_round: 100 });
    let rounds = 0;
    await assert.rejects(
      train(p, dtr, [{ name: 'train', data: dtr }], {
        signal: ac.signal,
        onRound(round) {
          rounds = round + 1;
          if (round === 2) ac.abort(new Error('stop now'));
        },
      }),
      /stop now/,
    );
    assert.equal(rounds, 3);
  });
});
