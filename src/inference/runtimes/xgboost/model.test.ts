import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractModelFromTarGzSync, loadXGBoostModel } from './index.js';
import { dataset, manifest, maxRelativeError, readFixture, reference } from './test-fixtures.js';

const cases = manifest().cases;
const fixture = (name: string, format: string) => cases.find((c) => c.name === name && c.format === format)!;

describe('XGBoostModel', () => {
  test('legacy binary from xgboost < 1.0 stores base_score as a margin; it is converted back as xgboost does', () => {
    const c = fixture('binary-logistic', 'bin');
    const bytes = new Uint8Array(extractModelFromTarGzSync(readFixture(c.file)).bytes);
    const view = new DataView(bytes.buffer);
    assert.equal(view.getFloat32(4, true), 0.5); // after "binf": base_score in probability space
    view.setFloat32(4, 0, true); // the margin of 0.5, as 0.x wrote it
    view.setUint32(4 + 20, 0, true); // major_version 0
    const model = loadXGBoostModel(bytes);
    assert.ok(model.baseMargin === 0); // -0 or 0
    const d = dataset(c.data);
    assert.ok(maxRelativeError(model.predict(d.rows, d.nRows), reference(c.ref).predictions) <= 1e-6);
  });

  test('blocks with and without missing values predict exactly what the row-by-row walk does', () => {
    const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(fixture('abalone', 'bin').file)).bytes);
    const d = dataset(fixture('abalone', 'bin').data);
    const n = Math.min(d.nRows, 300);
    const rows = d.rows.slice(0, n * 8);
    // Blocks of 64 rows: the second has missing values (the walk with default children), the others none.
    for (const r of [70, 71, 100, 127]) rows[r * 8 + (r % 8)] = Number.NaN;
    const preds = model.predict(rows, n);
    for (let r = 0; r < n; r++) assert.ok(Object.is(model.predictOne(rows, r * 8), preds[r]), `row ${r}`);
    assert.notEqual(preds[70], model.predict(d.rows.slice(70 * 8, 71 * 8), 1)[0]); // the NaN changed the walk
  });

  test('info() describes the model', () => {
    const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(fixture('abalone', 'json').file)).bytes);
    const info = model.info();
    assert.equal(info.numTrees, 50);
    assert.equal(info.numFeatures, 8);
    assert.equal(info.objective, 'reg:squarederror');
    assert.equal(info.booster, 'gbtree');
    assert.deepEqual(info.version, [1, 7, 4]);
    assert.ok(info.numNodes > 50);
  });

  test('predict validates its input shape; predictOne refuses multi-output models', () => {
    const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(fixture('abalone', 'bin').file)).bytes);
    assert.throws(() => model.predict(new Float32Array(7), 1), RangeError);
    assert.throws(() => model.predict(new Float32Array(8), -1), RangeError);
    assert.equal(model.predict(new Float32Array(0), 0).length, 0);
    assert.throws(() => model.predictOne(new Float32Array(8), 1), RangeError);
    const multi = loadXGBoostModel(
      extractModelFromTarGzSync(readFixture(fixture('multi-softprob', 'json').file)).bytes,
    );
    assert.throws(() => multi.predictOne(new Float32Array(6)), RangeError);
    const softmax = loadXGBoostModel(
      extractModelFromTarGzSync(readFixture(fixture('multi-softmax', 'json').file)).bytes,
    );
    const row = Float32Array.from([1, 2, 3, 4, 5, 6]);
    assert.equal(softmax.predictOne(row), softmax.predict(row, 1)[0]);
  });

  test('all-missing rows follow the default directions', () => {
    const c = fixture('deep', 'bin');
    const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(c.file)).bytes);
    const rows = new Float32Array(8 * 3).fill(Number.NaN);
    const p = model.predict(rows, 3);
    assert.equal(p[0], p[1]);
    assert.ok(Number.isFinite(p[0]));
  });
});
