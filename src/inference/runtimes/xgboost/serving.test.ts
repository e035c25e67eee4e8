import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  decodeRequest,
  encodeResponse,
  extractModelFromTarGzSync,
  invokeXGBoost,
  loadXGBoostModel,
  parseContainerVersion,
  pyFloatRepr,
  responseStyle,
  XGBoostServingError,
} from './index.js';
import { manifest, readFixture } from './test-fixtures.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const V10 = parseContainerVersion('123456789012.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3')!;
const V12 = parseContainerVersion('246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.2-2')!;
const V13 = parseContainerVersion('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.3-1')!;
const V17 = parseContainerVersion('sagemaker-xgboost:1.7-1-cpu-py3')!;

function servingError(fn: () => unknown, status: number, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof XGBoostServingError, String(e));
    assert.equal(e.httpStatus, status, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

describe('parseContainerVersion', () => {
  test('reads SageMaker XGBoost image tags', () => {
    assert.deepEqual(
      { ...V10, tag: undefined },
      { major: 1, minor: 0, build: 1, repository: 'sagemaker-xgboost', tag: undefined },
    );
    assert.equal(V12.minor, 2);
    assert.equal(V12.build, 2);
    assert.equal(parseContainerVersion('811284229777.dkr.ecr.us-east-1.amazonaws.com/xgboost:1')?.minor, 72);
    assert.equal(parseContainerVersion('811284229777.dkr.ecr.us-east-1.amazonaws.com/xgboost:latest')?.major, 0);
    assert.deepEqual(parseContainerVersion('x.amazonaws.com/sagemaker-xgboost:0.90-2-cpu-py3')?.minor, 90);
    assert.equal(parseContainerVersion('x.amazonaws.com/sagemaker-xgboost:1.7-1@sha256:abcd')?.minor, 7);
    assert.equal(parseContainerVersion('localhost:5000/sagemaker-xgboost:2.0-1')?.major, 2);
    assert.equal(parseContainerVersion('x.amazonaws.com/sagemaker-scikit-learn:1.0-1'), undefined);
    assert.equal(parseContainerVersion('x.amazonaws.com/pytorch-inference:2.1'), undefined);
    assert.equal(parseContainerVersion('x.amazonaws.com/sagemaker-xgboost:custom'), undefined);
  });

  test('response style by version', () => {
    assert.equal(responseStyle(V10), 'comma');
    assert.equal(responseStyle(V12), 'comma');
    assert.equal(responseStyle(V13), 'lines');
    assert.equal(responseStyle(V17), 'lines');
    assert.equal(responseStyle(parseContainerVersion('sagemaker-xgboost:3.0-5')!), 'lines');
  });
});

describe('pyFloatRepr prints floats as Python does', () => {
  const cases: [number, string][] = [
    [0, '0.0'],
    [-0, '-0.0'],
    [1, '1.0'],
    [2, '2.0'],
    [-3.5, '-3.5'],
    [Math.fround(0.3), '0.30000001192092896'],
    [15.40542221069336, '15.40542221069336'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [1.5e-7, '1.5e-07'],
    [1e16, '1e+16'],
    [123456789012345680, '1.2345678901234568e+17'],
    [9999999999999998, '9999999999999998.0'],
    [1e22, '1e+22'],
    [Number.NaN, 'nan'],
    [Number.POSITIVE_INFINITY, 'inf'],
    [Number.NEGATIVE_INFINITY, '-inf'],
  ];
  for (const [x, s] of cases) test(`${x} → ${s}`, () => assert.equal(pyFloatRepr(x), s));
});

describe('decodeRequest', () => {
  test('csv: one row per line, empty cells are missing, surrounding whitespace stripped', () => {
    const d = decodeRequest(enc('\n1,2,,4\n5,,7,8\r\n'), 'text/csv', V17, 4);
    assert.equal(d.nRows, 2);
    assert.deepEqual(Array.from(d.rows), [1, 2, Number.NaN, 4, 5, Number.NaN, 7, 8]);
  });

  test('csv: python float spellings', () => {
    const d = decodeRequest(enc('.5, 1e3,-2.,nan,inf,-Infinity,1_0'), 'text/csv; charset=utf-8', V17, 7);
    assert.deepEqual(Array.from(d.rows), [
      0.5,
      1000,
      -2,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      10,
    ]);
  });

  test('csv: label_size=1 is accepted, other values are refused (415)', () => {
    assert.equal(decodeRequest(enc('1,2'), 'text/csv;label_size=1', V17, 2).nRows, 1);
    servingError(
      () => decodeRequest(enc('1,2'), 'text/csv;label_size=2', V17, 2),
      415,
      /label_size must be equal to 1/,
    );
  });

  test('csv: one column fewer than the model is accepted (last feature missing), as the container does', () => {
    const d = decodeRequest(enc('1,2,3'), 'text/csv', V10, 4);
    assert.deepEqual(Array.from(d.rows), [1, 2, 3, Number.NaN]);
  });

  test('csv: wrong feature count is a 400 with the container message', () => {
    servingError(
      () => decodeRequest(enc('1,2,3,4,5'), 'text/csv', V10, 8),
      400,
      /Feature size of csv inference data 5 is not consistent with feature size of trained model 8/,
    );
    servingError(() => decodeRequest(enc('1,2,3,4,5,6,7,8,9'), 'text/csv', V10, 8), 400);
    servingError(() => decodeRequest(enc('1,2,3\n1,2'), 'text/csv', V10, 3), 400, /row 2 has 2 columns/);
  });

  test('csv: values that are not numbers are a 415, as the container answers a csv parse failure', () => {
    servingError(
      () => decodeRequest(enc('1,abc'), 'text/csv', V17, 2),
      415,
      /could not convert string to float: 'abc'/,
    );
    servingError(() => decodeRequest(enc('0x10,1'), 'text/csv', V17, 2), 415);
  });

  test('libsvm: 1-based indices, absent features missing, label ignored', () => {
    const d = decodeRequest(enc('1 1:0.5 3:2\n0 2:1'), 'text/libsvm', V17, 3);
    assert.equal(d.nRows, 2);
    assert.deepEqual(Array.from(d.rows), [0.5, Number.NaN, 2, Number.NaN, 1, Number.NaN]);
  });

  test('libsvm: an index 0 anywhere makes indices 0-based; text/x-libsvm and a missing content type are libsvm', () => {
    const d = decodeRequest(enc('0:1 2:3'), 'text/x-libsvm', V17, 3);
    assert.deepEqual(Array.from(d.rows), [1, Number.NaN, 3]);
    assert.equal(decodeRequest(enc('1:1'), undefined, V17, 3).format, 'libsvm');
  });

  test('libsvm: too many features is a 400', () => {
    servingError(
      () => decodeRequest(enc('9:1'), 'text/libsvm', V17, 3),
      400,
      /larger than feature size of trained model 3/,
    );
  });

  test('other content types are a 415 with the container message', () => {
    servingError(
      () => decodeRequest(enc('{"instances":[[1,2]]}'), 'application/json', V17, 2),
      415,
      /^application\/json is not an accepted ContentType: csv, libsvm/,
    );
    servingError(() => decodeRequest(enc('x'), 'image/png', V10, 2), 415);
    servingError(() => decodeRequest(enc('x'), 'application/x-recordio-protobuf', V17, 2), 415, /not supported/);
    servingError(() => decodeRequest(new Uint8Array([0xff, 0xfe]), 'text/csv', V17, 2), 415);
  });
});

describe('encodeResponse', () => {
  const preds = Float32Array.from([0.5, 0.25, 1]);
  test('1.0-1 and 1.2-x: comma-separated, no newline, text/csv whatever the Accept', () => {
    assert.deepEqual(encodeResponse(preds, 'application/json', V10), { body: '0.5,0.25,1.0', contentType: 'text/csv' });
    assert.deepEqual(encodeResponse(preds, undefined, V12), { body: '0.5,0.25,1.0', contentType: 'text/csv' });
  });

  test('1.0-1 multi-class rows print as python lists', () => {
    const p = Float32Array.from([0.25, 0.75, 0.5, 0.5]);
    assert.equal(encodeResponse(p, undefined, V10, { outputsPerRow: 2 }).body, '[0.25, 0.75],[0.5, 0.5]');
  });

  test('1.3-1+: one prediction per line, newline-terminated; multi-class one comma-separated row per line', () => {
    assert.deepEqual(encodeResponse(preds, 'text/csv', V13), { body: '0.5\n0.25\n1.0\n', contentType: 'text/csv' });
    assert.equal(encodeResponse(preds, '*/*', V17).body, '0.5\n0.25\n1.0\n');
    assert.equal(encodeResponse(preds, undefined, V17).body, '0.5\n0.25\n1.0\n');
    const p = Float32Array.from([0.25, 0.75, 0.5, 0.5]);
    assert.equal(encodeResponse(p, 'text/csv', V17, { outputsPerRow: 2 }).body, '0.25,0.75\n0.5,0.5\n');
  });

  test('1.3-1+: application/json answers {"predictions":[{"score":...}]}', () => {
    const r = encodeResponse(Float32Array.from([0.5, Math.fround(0.1)]), 'application/json', V17);
    assert.equal(r.contentType, 'application/json');
    assert.equal(r.body, '{"predictions": [{"score": 0.5}, {"score": 0.10000000149011612}]}');
    assert.deepEqual(JSON.parse(r.body), { predictions: [{ score: 0.5 }, { score: 0.10000000149011612 }] });
    const m = encodeResponse(Float32Array.from([0.25, 0.75]), 'application/json', V17, { outputsPerRow: 2 });
    assert.equal(m.body, '{"predictions": [{"score": [0.25, 0.75]}]}');
  });

  test('1.3-1+: unsupported Accept is a 406', () => {
    servingError(() => encodeResponse(preds, 'text/plain', V17), 406, /Accept type text\/plain is not supported/);
  });

  test('batch transform: one prediction per line in every version', () => {
    assert.equal(encodeResponse(preds, undefined, V10, { batch: true }).body, '0.5\n0.25\n1.0\n');
  });
});

describe('invokeXGBoost', () => {
  const c = manifest().cases.find((x) => x.name === 'multi-softprob' && x.format === 'json')!;
  const model = loadXGBoostModel(extractModelFromTarGzSync(readFixture(c.file)).bytes);

  test('an empty body answers 204 with no content', () => {
    assert.deepEqual(invokeXGBoost(model, V17, { body: new Uint8Array(0), contentType: 'text/csv' }), {
      status: 204,
      body: '',
      contentType: 'text/csv',
    });
  });

  test('multi:softprob answers one row of class probabilities per line (1.3+)', () => {
    const res = invokeXGBoost(model, V17, { body: enc('1,2,3,4,5,6\n,,,,,'), contentType: 'text/csv' });
    const lines = res.body.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    for (const l of lines.slice(0, 2)) {
      const p = l.split(',').map(Number);
      assert.equal(p.length, 4);
      assert.ok(Math.abs(p.reduce((a, b) => a + b) - 1) < 1e-6);
    }
  });

  test('a row with the wrong number of features is a 400', () => {
    servingError(() => invokeXGBoost(model, V17, { body: enc('1,2'), contentType: 'text/csv' }), 400);
  });
});
