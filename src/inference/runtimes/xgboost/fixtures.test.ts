// Every committed fixture (model formats × objectives × boosters) loads and predicts within 1e-6
// relative of xgboost's own predictions, recorded by scripts/fixtures/xgboost/generate.py.

import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  detectModelFormat,
  extractModelFromTarGz,
  extractModelFromTarGzSync,
  invokeXGBoost,
  loadXGBoostModel,
  parseContainerVersion,
} from './index.js';
import { dataset, FIXTURES, manifest, maxRelativeError, readFixture, reference } from './test-fixtures.js';

const TOLERANCE = 1e-6;
const m = manifest();

const EXPECTED_FORMAT: Record<string, string> = {
  json: 'json',
  ubj: 'ubjson',
  bin: 'binary',
};

describe('xgboost fixtures', () => {
  test('the manifest covers every format, objective and booster the issue asks for', () => {
    const formats = new Set(m.cases.map((c) => c.format));
    for (const f of ['json', 'ubj', 'bin', 'pkl2-cfgoffset', 'pkl3-cfgoffset', 'pkl4-cfgoffset', 'pkl4-native']) {
      assert.ok(formats.has(f), f);
    }
    const objectives = new Set(m.cases.map((c) => c.objective));
    for (const o of [
      'reg:squarederror',
      'reg:logistic',
      'reg:pseudohubererror',
      'reg:absoluteerror',
      'reg:gamma',
      'reg:tweedie',
      'count:poisson',
      'binary:logistic',
      'binary:logitraw',
      'binary:hinge',
      'multi:softmax',
      'multi:softprob',
      'rank:pairwise',
      'survival:cox',
    ]) {
      assert.ok(objectives.has(o), o);
    }
    const boosters = new Set(m.cases.map((c) => c.booster));
    for (const b of ['gbtree', 'dart', 'gblinear']) assert.ok(boosters.has(b), b);
  });

  for (const c of m.cases) {
    test(`${c.name} (${c.format}) predicts like xgboost ${m.xgboostVersion}`, () => {
      const { name, bytes } = extractModelFromTarGzSync(readFixture(c.file));
      assert.equal(name, 'xgboost-model');
      const fmt = detectModelFormat(bytes);
      assert.equal(fmt, c.format.startsWith('pkl') ? 'pickle' : EXPECTED_FORMAT[c.format]);
      const model = loadXGBoostModel(bytes);
      assert.equal(model.numFeatures, c.numFeatures);
      assert.equal(model.numClass, c.numClass);
      assert.equal(model.objective, c.objective);
      assert.equal(model.booster, c.booster);

      const d = dataset(c.data);
      const ref = reference(c.ref);
      const opts = { ntreeLimit: c.ntreeLimit };
      const preds = model.predict(d.rows, d.nRows, opts);
      assert.equal(preds.length, ref.predictions.length);
      const err = maxRelativeError(preds, ref.predictions);
      assert.ok(err <= TOLERANCE, `predictions differ from xgboost by ${err} (relative)`);
      const margins = model.predict(d.rows, d.nRows, { ...opts, outputMargin: true });
      assert.equal(margins.length, ref.margins.length);
      const errM = maxRelativeError(margins, ref.margins);
      assert.ok(errM <= TOLERANCE, `margins differ from xgboost by ${errM} (relative)`);

      if (model.outputsPerRow(opts) === 1) {
        for (let r = 0; r < d.nRows; r++) {
          assert.equal(model.predictOne(d.rows, r * d.nFeatures, opts), preds[r], `row ${r}`);
        }
      }
      if (c.ntreeLimit) {
        assert.equal(model.bestNTreeLimit, c.ntreeLimit, 'best_ntree_limit comes from the model');
        const all = model.predict(d.rows, d.nRows);
        assert.notDeepEqual(Array.from(all), Array.from(preds), 'early-stopped model has extra trees');
      }
    });
  }

  test('streaming extraction gives the same bytes as the in-memory one', async () => {
    const c = m.cases.find((x) => x.name === 'abalone' && x.format === 'json')!;
    const fromStream = await extractModelFromTarGz(createReadStream(join(FIXTURES, c.file), { highWaterMark: 1024 }));
    const fromMemory = await extractModelFromTarGz(readFixture(c.file));
    assert.equal(fromStream.name, 'xgboost-model');
    assert.deepEqual(fromStream.bytes, fromMemory.bytes);
  });

  test("the seed workflow's abalone model answers the seed row as xgboost does, in every container flavour", () => {
    const seed = m.seedRow;
    for (const c of m.cases.filter((x) => x.name === seed.model)) {
      const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(c.file)).bytes);
      for (const image of [
        '123456789012.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3',
        '123456789012.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      ]) {
        const version = parseContainerVersion(image)!;
        const res = invokeXGBoost(model, version, {
          body: new TextEncoder().encode(seed.csv),
          contentType: 'text/csv',
        });
        assert.equal(res.status, 200);
        const value = Number(res.body.trim());
        assert.ok(
          Math.abs(value - seed.prediction) <= TOLERANCE * Math.abs(seed.prediction),
          `${c.format}: ${res.body}`,
        );
        if (version.minor === 0) assert.ok(!res.body.endsWith('\n'));
        else assert.ok(res.body.endsWith('\n'));
      }
    }
  });

  test('pickled models keep the Booster python attributes (best_ntree_limit)', () => {
    const c = m.cases.find((x) => x.name === 'abalone' && x.format === 'pkl3-cfgoffset')!;
    const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(c.file)).bytes);
    assert.equal(model.bestNTreeLimit, 50);
    assert.match(model.format, /^pickle\(protocol 3\)\/config-offset$/);
  });
});
