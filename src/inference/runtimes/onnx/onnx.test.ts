// The ONNX runtime: the committed MLP (test/fixtures/onnx, built with python3-onnx) against numpy's
// reference outputs, through the engine; and the request codec on its own.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ModelError } from '../../../generated/sagemaker-runtime/errors.js';
import { DeploymentError } from '../../engine.js';
import { ContainerFailure } from '../../failure.js';
import { body, FIXTURES, fixture, harness, text, variant } from '../../testing/helpers.js';
import { makeTarGz } from '../../testing/tar.js';
import { decodeOnnxRequest, encodeOnnxResponse } from './codec.js';

const inputs = JSON.parse(fixture('onnx/inputs.json').toString()) as { rows: number[][]; csv: string };
const reference = JSON.parse(fixture('onnx/reference.json').toString()) as { probabilities: number[][] };

function assertClose(got: number[][], want: number[][]): void {
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; i++) {
    assert.equal(got[i]!.length, want[i]!.length);
    for (let j = 0; j < want[i]!.length; j++) {
      assert.ok(Math.abs(got[i]![j]! - want[i]![j]!) < 1e-5, `row ${i} col ${j}: ${got[i]![j]} vs ${want[i]![j]}`);
    }
  }
}

describe('ONNX runtime', () => {
  const h = harness({ containerConfigPath: `${FIXTURES}/containers/containers.json` });
  after(() => h.close());
  const image = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/my-onnx-model:1';

  it('runs an artifact holding a .onnx file: CSV and JSON in, JSON and CSV out, as numpy computes', async () => {
    await h.blobs.put('s3://models/mlp/model.tar.gz', fixture('onnx/model.tar.gz'));
    const v = await h.engine.deploy(variant({ image, modelDataUrl: 's3://models/mlp/model.tar.gz' }));
    const fromCsv = await v.invoke({ body: body(inputs.csv), contentType: 'text/csv' });
    assert.equal(fromCsv.contentType, 'application/json');
    assertClose((JSON.parse(text(fromCsv.body)) as { predictions: number[][] }).predictions, reference.probabilities);

    const fromJson = await v.invoke({
      body: body(JSON.stringify({ instances: inputs.rows })),
      contentType: 'application/json',
      accept: 'text/csv',
    });
    assert.equal(fromJson.contentType, 'text/csv');
    const csvRows = text(fromJson.body)
      .trimEnd()
      .split('\n')
      .map((l) => l.split(',').map(Number));
    assertClose(csvRows, reference.probabilities);

    const one = await v.invoke({ body: body(JSON.stringify(inputs.rows[0])), contentType: 'application/json' });
    assertClose((JSON.parse(text(one.body)) as { predictions: number[][] }).predictions, [reference.probabilities[0]!]);
    await v.stop();
  });

  it('answers payload errors as ModelError client errors', async () => {
    const v = await h.engine.deploy(variant({ image, modelDataUrl: 's3://models/mlp/model.tar.gz' }));
    await assert.rejects(
      v.invoke({ body: body('1,2,3'), contentType: 'text/csv' }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message.startsWith('Received client error (400) from primary with message "Input "features" has shape [1,3]'),
    );
    await assert.rejects(
      v.invoke({ body: body('1,2,3,4'), contentType: 'image/png' }),
      (e: unknown) => e instanceof ModelError && e.message.startsWith('Received client error (415)'),
    );
    await assert.rejects(
      v.invoke({ body: body('1,2,3,4'), contentType: 'text/csv', accept: 'application/x-protobuf' }),
      (e: unknown) => e instanceof ModelError && e.message.startsWith('Received client error (406)'),
    );
    await v.stop();
  });

  it('runs an image configured as ONNX in the containers file, and refuses one without a .onnx file', async () => {
    await h.blobs.put(
      's3://models/renamed.tar.gz',
      makeTarGz([{ path: 'model.onnx', data: fixture('onnx/mlp.onnx') }]),
    );
    await h.blobs.put('s3://models/empty.tar.gz', makeTarGz([{ path: 'weights.bin', data: 'x' }]));
    const configured = 'acct.dkr.ecr.us-east-1.amazonaws.com/slipway-test-onnx:2';
    const v = await h.engine.deploy(variant({ image: configured, modelDataUrl: 's3://models/renamed.tar.gz' }));
    const r = await v.invoke({ body: body(inputs.csv.split('\n')[1]!), contentType: 'text/csv' });
    assertClose((JSON.parse(text(r.body)) as { predictions: number[][] }).predictions, [reference.probabilities[1]!]);
    await v.stop();
    await assert.rejects(
      h.engine.deploy(variant({ image: configured, modelDataUrl: 's3://models/empty.tar.gz' })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('holds no .onnx file'),
    );
  });

  it('fails the deployment of a file that is not an ONNX model', async () => {
    await h.blobs.put('s3://models/bad.tar.gz', makeTarGz([{ path: 'model.onnx', data: 'not protobuf' }]));
    await assert.rejects(
      h.engine.deploy(variant({ image, modelDataUrl: 's3://models/bad.tar.gz' })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('could not be loaded'),
    );
  });
});

describe('ONNX codec', () => {
  const spec = [{ name: 'x', type: 'float32', shape: ['batch', 2, 2] }];

  it('reshapes CSV rows for inputs of rank 3 and adds the batch dimension to one JSON instance', () => {
    const csv = decodeOnnxRequest(body('1,2,3,4\n5,6,7,8\n'), 'text/csv; charset=utf-8', spec);
    assert.deepEqual(csv.x!.dims, [2, 2, 2]);
    assert.deepEqual([...csv.x!.data], [1, 2, 3, 4, 5, 6, 7, 8]);
    const one = decodeOnnxRequest(body('{"inputs": [[1, 2], [3, 4]]}'), 'application/json', spec);
    assert.deepEqual(one.x!.dims, [1, 2, 2]);
  });

  it('takes named inputs and integer types', () => {
    const two = [
      { name: 'a', type: 'int64', shape: [-1, 2] },
      { name: 'b', type: 'float64', shape: [-1] },
    ];
    const d = decodeOnnxRequest(body('{"inputs": {"a": [[1, 2]], "b": [0.5]}}'), 'application/json', two);
    assert.deepEqual([...d.a!.data], [1n, 2n]);
    assert.deepEqual(d.b!.dims, [1]);
    assert.throws(
      () => decodeOnnxRequest(body('{"inputs": {"a": [[1.5, 2]], "b": [0.5]}}'), 'application/json', two),
      (e: unknown) => e instanceof ContainerFailure && e.status === 400,
    );
    assert.throws(
      () =>
        decodeOnnxRequest(body('[[1, 2], [3]]'), 'application/json', [{ name: 'x', type: 'float32', shape: [-1, 2] }]),
      (e: unknown) => e instanceof ContainerFailure && /rectangular/.test(e.message),
    );
  });

  it('encodes outputs as nested JSON or one CSV line per row', () => {
    const out = { data: new Float32Array([1, 2, 3, 4, 5, 6]), dims: [2, 3] };
    assert.equal(encodeOnnxResponse(out, undefined).body, '{"predictions":[[1,2,3],[4,5,6]]}');
    assert.equal(encodeOnnxResponse(out, 'text/csv').body, '1,2,3\n4,5,6\n');
    assert.equal(encodeOnnxResponse({ data: new BigInt64Array([7n, 8n]), dims: [2] }, 'text/csv').body, '7\n8\n');
  });
});
