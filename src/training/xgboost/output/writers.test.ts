// The writers turn xgboost 1.7.4's JSON model documents (test/fixtures/xgboost-train/io, written by
// scripts/fixtures/xgboost-train/generate_io.py) into the files the containers write: the binary is
// byte-identical to xgboost's own save_model output, and Slipway's loader predicts from every
// written file exactly what xgboost predicted. No Python runs here.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { detectModelFormat, loadXGBoostModel, readSpec } from '../../../inference/runtimes/xgboost/loader.js';
import { unpickleBooster } from '../../../inference/runtimes/xgboost/pickle.js';
import { OBJECTIVES, type XGBoostJsonModel } from '../types.js';
import { writeBinaryModel } from './binary-writer.js';
import { ModelWriteError } from './errors.js';
import { containerVersionOf, modelFileFor } from './model-file.js';
import { writePickledBooster } from './pickle-writer.js';

const DIR = resolve(process.cwd(), 'test', 'fixtures', 'xgboost-train', 'io');
const read = (rel: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, rel)));
const readJson = <T>(rel: string): T => JSON.parse(readFileSync(join(DIR, rel), 'utf8')) as T;

interface Case {
  name: string;
  objective: string;
  numClass: number;
  bestIteration: number;
  bestNTreeLimit: number;
  numTrees: number;
}
const manifest = readJson<{ xgboostVersion: string; cases: Case[] }>('manifest.json');
const data = readJson<{ nFeatures: number; rows: (number | null)[][] }>('data.json');
const nRows = data.rows.length;
const rows = new Float32Array(nRows * data.nFeatures);
data.rows.forEach((r, i) => {
  r.forEach((v, k) => {
    rows[i * data.nFeatures + k] = v === null ? Number.NaN : v;
  });
});

function assertSamePredictions(bytes: Uint8Array, c: Case, what: string): void {
  const model = loadXGBoostModel(bytes);
  const ref = readJson<{ predictions: number[]; margins: number[] }>(`ref/${c.name}.json`);
  // ntreeLimit 0 = every tree, as xgboost's Booster.predict does
  const got = model.predict(rows, nRows, { ntreeLimit: 0 });
  const margins = model.predict(rows, nRows, { outputMargin: true, ntreeLimit: 0 });
  assert.deepEqual(Array.from(got), ref.predictions, `${c.name} ${what}: predictions`);
  assert.deepEqual(Array.from(margins), ref.margins, `${c.name} ${what}: margins`);
}

describe('model writers', () => {
  test('the fixtures cover every objective the trainer produces, missing values and tree methods', () => {
    const objectives = new Set(manifest.cases.map((c) => c.objective));
    for (const o of OBJECTIVES) {
      assert.ok(objectives.has(o), o);
    }
    assert.ok(
      data.rows.some((r) => r.includes(null)),
      'the predicted rows have missing values',
    );
  });

  for (const c of manifest.cases) {
    const doc = readJson<XGBoostJsonModel>(`models/${c.name}.json`);

    test(`${c.name}: the binary is byte-identical to xgboost ${manifest.xgboostVersion}'s save_model`, () => {
      const bytes = writeBinaryModel(doc);
      assert.equal(detectModelFormat(bytes), 'binary');
      assert.deepEqual(Buffer.from(bytes), Buffer.from(read(`models/${c.name}.bin`)));
      assertSamePredictions(bytes, c, 'binary');
    });

    test(`${c.name}: pickles (1.0-1 protocol 3, 1.2-x protocol 4, pre-1.0 raw handle) predict identically`, () => {
      for (const [options, expect] of [
        [{ protocol: 3 as const, handle: 'config-offset' as const }, 'pickle(protocol 3)/config-offset'],
        [{ protocol: 4 as const, handle: 'config-offset' as const }, 'pickle(protocol 4)/config-offset'],
        [{ protocol: 3 as const, handle: 'binary' as const }, 'pickle(protocol 3)/binary'],
      ] as const) {
        const bytes = writePickledBooster(doc, options);
        assert.equal(detectModelFormat(bytes), 'pickle');
        assert.equal(readSpec(bytes).format, expect);
        const state = unpickleBooster(bytes);
        assert.equal(state.attributes.best_iteration, c.bestIteration);
        assert.equal(state.attributes.best_ntree_limit, c.bestNTreeLimit);
        assertSamePredictions(bytes, c, expect);
        assert.equal(loadXGBoostModel(bytes).bestNTreeLimit, c.bestNTreeLimit);
      }
    });
  }

  test('early stopping: the pickle keeps best_score, and the serving limit stops at the best round', () => {
    const doc = readJson<XGBoostJsonModel>('models/early_stopping.json');
    const c = manifest.cases.find((x) => x.name === 'early_stopping') as Case;
    assert.ok(c.bestNTreeLimit < c.numTrees, 'the fixture stopped early');
    const state = unpickleBooster(writePickledBooster(doc));
    const attrs = (doc.learner.attributes ?? {}) as Record<string, string>;
    assert.equal(state.attributes.best_score, Number(attrs.best_score));
    const model = loadXGBoostModel(writeBinaryModel(doc));
    assert.equal(model.bestNTreeLimit, c.bestNTreeLimit);
  });
});

describe('modelFileFor', () => {
  const doc = readJson<XGBoostJsonModel>('models/binary_logistic.json');
  const ecr = '683313688378.dkr.ecr.us-east-1.amazonaws.com';

  test("1.3-1 and later write save_model()'s binary; 1.2-x and 1.0-1 a pickled Booster", () => {
    const cases: [string, string, string][] = [
      [`${ecr}/sagemaker-xgboost:1.7-1`, 'binary', 'binary'],
      [`${ecr}/sagemaker-xgboost:1.5-1`, 'binary', 'binary'],
      [`${ecr}/sagemaker-xgboost:1.3-1`, 'binary', 'binary'],
      [`${ecr}/sagemaker-xgboost:1.2-2`, 'pickle', 'pickle(protocol 4)/config-offset'],
      [`${ecr}/sagemaker-xgboost:1.2-1-cpu-py3`, 'pickle', 'pickle(protocol 4)/config-offset'],
      [`${ecr}/sagemaker-xgboost:1.0-1-cpu-py3`, 'pickle', 'pickle(protocol 3)/config-offset'],
      [`${ecr}/sagemaker-xgboost:0.90-2-cpu-py3`, 'pickle', 'pickle(protocol 3)/binary'],
      [`${ecr}/xgboost:1`, 'pickle', 'pickle(protocol 3)/binary'],
      [`${ecr}/xgboost:latest`, 'pickle', 'pickle(protocol 3)/binary'],
    ];
    for (const [image, format, spec] of cases) {
      const f = modelFileFor(image, doc);
      assert.equal(f.fileName, 'xgboost-model', image);
      assert.equal(f.format, format, image);
      assert.equal(readSpec(f.bytes).format, spec, image);
    }
  });

  test('a parsed version is accepted as well as a URI', () => {
    const v = containerVersionOf(`${ecr}/sagemaker-xgboost:1.7-1`);
    assert.deepEqual(modelFileFor(v, doc).bytes, modelFileFor(`${ecr}/sagemaker-xgboost:1.7-1`, doc).bytes);
  });

  test('non-XGBoost images and xgboost 2/3 images are refused with the reason', () => {
    assert.throws(() => modelFileFor(`${ecr}/linear-learner:1`, doc), ModelWriteError);
    assert.throws(
      () => modelFileFor(`${ecr}/sagemaker-xgboost:3.0-5`, doc),
      (e: Error) => e instanceof ModelWriteError && /xgboost 3\.0/.test(e.message),
    );
  });

  test('a document the formats cannot hold is refused, not written wrong', () => {
    const bad = JSON.parse(JSON.stringify(doc)) as XGBoostJsonModel;
    const gb = bad.learner.gradient_booster as { name: string };
    gb.name = 'gblinear';
    assert.throws(() => writeBinaryModel(bad), /gblinear/);
    const cut = JSON.parse(JSON.stringify(doc)) as XGBoostJsonModel;
    const trees = (cut.learner.gradient_booster as { model: { trees: { left_children: number[] }[] } }).model.trees;
    trees[0].left_children.pop();
    assert.throws(() => writeBinaryModel(cut), /left_children has/);
  });
});

test('a pruned tree (gamma) keeps its deleted nodes: the binary is byte-identical and loads', () => {
  // pruned/: xgboost 1.7.4 trained with gamma=4 (tree 0 has 12 deleted nodes), saved as JSON and binary.
  const doc = readJson<XGBoostJsonModel>('pruned/model.json');
  const ours = writeBinaryModel(doc);
  assert.deepEqual(Buffer.from(ours), Buffer.from(read('pruned/model.bin')));
  const fromJson = loadXGBoostModel(read('pruned/model.json'));
  const fromOurs = loadXGBoostModel(ours);
  const row = new Float32Array([0.3, -1, 2, 0.5]);
  assert.deepEqual(Array.from(fromOurs.predict(row, 1)), Array.from(fromJson.predict(row, 1)));
});
