import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { model } from '../../generated/sagemaker/model.js';
import type { RequestContext } from '../context.js';
import { ValidationException } from '../common-errors.js';
import type { WireRequest } from '../wire.js';
import { AwsJsonProtocol } from './aws-json.js';

const ctx: RequestContext = {
  requestId: 'r-1',
  accountId: '111122223333',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: 0,
};

const calls: unknown[] = [];
const handlers = new Proxy(
  {},
  {
    get: (_t, name: string) => async (input: { ModelPackageGroupName?: string }) => {
      calls.push([name, input]);
      if (input.ModelPackageGroupName === 'boom') throw new Error('secret internals');
      if (input.ModelPackageGroupName === 'missing') throw new ValidationException('not here');
      return { ModelPackageGroupName: 'g', CreationTime: new Date(1700000000123) };
    },
  },
);
const protocol = new AwsJsonProtocol({ model, handlers });

function req(target: string | undefined, body: string): WireRequest {
  return {
    method: 'POST',
    path: '/',
    query: new URLSearchParams(),
    headers: target ? { 'x-amz-target': target } : {},
    body: Buffer.from(body),
  };
}
const json = (b: unknown) => JSON.parse(String(b));

describe('AWS JSON 1.1', () => {
  test('dispatches to the handler with validated input; Dates go out as epoch seconds', async () => {
    const r = await protocol.handle(req('SageMaker.DescribeModelPackageGroup', '{"ModelPackageGroupName":"g"}'), ctx);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/x-amz-json-1.1');
    assert.deepEqual(json(r.body), { ModelPackageGroupName: 'g', CreationTime: 1700000000.123 });
    assert.deepEqual(calls.at(-1), ['describeModelPackageGroup', { ModelPackageGroupName: 'g' }]);
  });

  test('an empty body is an empty input', async () => {
    const r = await protocol.handle(req('SageMaker.ListModelPackageGroups', ''), ctx);
    assert.equal(r.status, 200);
  });

  test('unknown operation', async () => {
    const r = await protocol.handle(req('SageMaker.CreateTrainingJobz', '{}'), ctx);
    assert.equal(r.status, 400);
    assert.equal(r.headers['x-amzn-errortype'], 'UnknownOperationException');
    assert.equal(json(r.body).__type, 'UnknownOperationException');
  });

  test('malformed JSON and non-object bodies are SerializationException', async () => {
    for (const body of ['{"a":', '[1,2]', '"str"', 'null']) {
      const r = await protocol.handle(req('SageMaker.ListModelPackageGroups', body), ctx);
      assert.equal(r.status, 400, body);
      assert.equal(json(r.body).__type, 'SerializationException', body);
    }
  });

  test('validation runs before the handler', async () => {
    const before = calls.length;
    const r = await protocol.handle(req('SageMaker.DescribeModelPackageGroup', '{}'), ctx);
    assert.equal(json(r.body).__type, 'ValidationException');
    assert.equal(calls.length, before);
  });

  test('service errors keep their type; anything else is InternalFailure without internals', async () => {
    const missing = await protocol.handle(
      req('SageMaker.DescribeModelPackageGroup', '{"ModelPackageGroupName":"missing"}'),
      ctx,
    );
    assert.deepEqual(json(missing.body), { __type: 'ValidationException', message: 'not here' });
    const boom = await protocol.handle(
      req('SageMaker.DescribeModelPackageGroup', '{"ModelPackageGroupName":"boom"}'),
      ctx,
    );
    assert.equal(boom.status, 500);
    assert.equal(json(boom.body).__type, 'InternalFailure');
    assert.doesNotMatch(String(boom.body), /secret internals/);
  });
});
