// tree_method hist/approx on a team of threads (hist-team.ts): the model must not depend on the
// number of threads (nor so on how a level's work is shared out: deep levels' nodes whole, the
// others by feature ranges, large nodes by row blocks) nor on the kernels (WebAssembly or
// JavaScript), and a thread's error must be the one a single thread reports. The data are large
// enough (> 65,536 cells) for train() to start threads at all.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateHyperparameters } from './hyperparameters/index.js';
import { idleWorkers, prestartWorkers, spareArenaBytes } from './hist-team.js';
import { train } from './train.js';
import type { DMatrix } from './types.js';

/** n rows × d features of a fixed pseudo-random regression problem, `missing` of the cells NaN */
function synthetic(n: number, d: number, missing: number): DMatrix {
  let s = 7;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const data = new Float32Array(n * d);
  const labels = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < d; c++) data[r * d + c] = u() < missing ? Number.NaN : (u() - 0.5) * (c + 1);
    const x0 = data[r * d] || 0;
    const x1 = data[r * d + 1] || 0;
    labels[r] = 2 * x0 + Math.sin(3 * x1) + 0.1 * u();
  }
  return { numRows: n, numCols: d, data, labels };
}

function params(hp: Record<string, string>, nthread: number) {
  return { ...validateHyperparameters({ num_round: '4', max_depth: '5', ...hp }).params, nthread };
}

describe('xgboost trainer: hist and approx on threads', () => {
  const dense = synthetic(12_000, 8, 0);
  const sparse = synthetic(12_000, 8, 0.15);
  const cases: [string, DMatrix, Record<string, string>][] = [
    ['hist, dense', dense, { tree_method: 'hist' }],
    ['hist, missing values', sparse, { tree_method: 'hist' }],
    ['hist, lossguide', sparse, { tree_method: 'hist', grow_policy: 'lossguide', max_leaves: '20' }],
    ['hist, column sampling by node', dense, { tree_method: 'hist', colsample_bynode: '0.5', seed: '3' }],
    ['approx, logistic', sparse, { tree_method: 'approx', objective: 'reg:logistic' }],
  ];
  for (const [name, d, hp] of cases) {
    const labels = hp.objective === 'reg:logistic' ? d.labels.map((y) => (y > 0 ? 1 : 0)) : d.labels;
    const dm = { ...d, labels };
    it(`${name}: the same model on 1, 2 and 3 threads`, async () => {
      const one = await train(params(hp, 1), dm, [{ name: 'train', data: dm }]);
      for (const nthread of [2, 3]) {
        const many = await train(params(hp, nthread), dm, [{ name: 'train', data: dm }]);
        assert.deepEqual(many.model, one.model, `nthread=${nthread}`);
        assert.deepEqual(many.lines, one.lines);
      }
    });
  }

  it('a node of 2 × BUILD_BLOCK rows or more, built by row blocks: the same model on 1, 2 and 3 threads', async () => {
    // 80,000 rows: the root and its larger children are summed by blocks (hist-tasks.ts BUILD_BLOCK)
    const big = synthetic(80_000, 6, 0.05);
    const cases: Record<string, string>[] = [
      { tree_method: 'hist' },
      { tree_method: 'approx' },
      { tree_method: 'hist', grow_policy: 'lossguide', max_leaves: '24' },
    ];
    for (const hp of cases) {
      const one = await train(params(hp, 1), big, []);
      for (const nthread of [2, 3]) {
        const many = await train(params(hp, nthread), big, []);
        assert.deepEqual(many.model, one.model, `${hp.tree_method} nthread=${nthread}`);
      }
    }
  });

  it('the JavaScript kernels train the same model as the WebAssembly ones', async () => {
    const hp = { tree_method: 'hist' };
    const wasm = await train(params(hp, 2), sparse, []);
    const js = await train(params(hp, 2), sparse, [], { jsKernels: true });
    assert.deepEqual(js.model, wasm.model);
    const oneJs = await train(params(hp, 1), dense, [], { jsKernels: true });
    const oneWasm = await train(params(hp, 1), dense, []);
    assert.deepEqual(oneJs.model, oneWasm.model);
  });

  it("a worker's error is the one a single thread reports (the first bad label)", async () => {
    const labels = dense.labels.map((y) => (y > 0 ? 1 : 0));
    // bad labels only in the last rows: the worker's chunk of the gradients
    labels[11_000] = 3;
    labels[11_500] = 4;
    const dm = { ...dense, labels };
    const hp = { tree_method: 'hist', objective: 'reg:logistic' };
    const single = await train(params(hp, 1), dm, []).then(
      () => undefined,
      (e: Error) => e.message,
    );
    assert.match(single ?? '', /label 3 is not valid/);
    await assert.rejects(train(params(hp, 2), dm, []), { message: single });
  });

  it('keeps its worker threads between trainings, and a team after a failed one trains the same model', async () => {
    const hp = { tree_method: 'hist' };
    const first = await train(params(hp, 3), dense, []);
    // the two workers of that team wait for the next one
    assert.ok(idleWorkers() >= 2, `idle workers: ${idleWorkers()}`);
    const idleBefore = idleWorkers();
    const labels = dense.labels.map((y) => (y > 0 ? 1 : 0));
    labels[11_000] = 3;
    await assert.rejects(
      train(params({ tree_method: 'hist', objective: 'reg:logistic' }, 3), { ...dense, labels }, []),
      {
        message: /label 3 is not valid/,
      },
    );
    // the failed training's workers are back too, and serve the next team like new ones
    assert.equal(idleWorkers(), idleBefore);
    const again = await train(params(hp, 3), dense, []);
    assert.deepEqual(again.model, first.model);
    assert.equal(idleWorkers(), idleBefore);
  });

  it("a team starts from the last team's arena: the same models, after another shape and after a failure", async () => {
    const hp = { tree_method: 'hist' };
    const first = await train(params(hp, 2), sparse, []);
    const kept = spareArenaBytes();
    assert.ok(kept > 1 << 20, `a spare arena of ${kept} bytes`);
    // a training of another shape on it, then the first one again
    const other = await train(params({ tree_method: 'approx' }, 1), dense, []);
    assert.ok(spareArenaBytes() >= kept, 'the next team took it and gave it back');
    assert.notDeepEqual(other.model, first.model);
    const again = await train(params(hp, 2), sparse, []);
    assert.deepEqual(again.model, first.model);
    // a training that fails inside a task leaves its arena half-written: the next one is unaffected
    const labels = dense.labels.map((y, i) => (i === 11_000 ? 3 : y > 0 ? 1 : 0));
    await assert.rejects(
      train(params({ tree_method: 'hist', objective: 'reg:logistic' }, 2), { ...dense, labels }, []),
    );
    assert.deepEqual((await train(params(hp, 2), sparse, [])).model, first.model);
  });

  it('starts worker threads ahead of a team, loaded and waiting, and a team trains on them', async () => {
    const before = idleWorkers();
    await prestartWorkers(before + 2);
    assert.equal(idleWorkers(), before + 2);
    // already enough: nothing more is started
    await prestartWorkers(before);
    assert.equal(idleWorkers(), before + 2);
    const hp = { tree_method: 'hist' };
    const one = await train(params(hp, 1), dense, []);
    const three = await train(params(hp, 3), dense, []);
    assert.deepEqual(three.model, one.model);
    assert.equal(idleWorkers(), before + 2);
  });
});
