// The AWS port as a client sees it before any service logic: health, request ids, routing,
// body limits, SageMaker Runtime errors, and the graph port's status.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  InvokeEndpointCommand,
  SageMakerRuntimeClient,
  SageMakerRuntimeServiceException,
} from '@aws-sdk/client-sagemaker-runtime';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

describe('HTTP surface', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  test('health answers 200 JSON when ready', async () => {
    const r = await fetch(`${server.endpoint}/_slipway/health`);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { status: string }).status, 'ok');
    assert.match(r.headers.get('x-amzn-requestid') ?? '', /^[0-9a-f-]{36}$/);
  });

  test('every response carries a fresh request id, errors included', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.endpoint}/`, {
        method: 'POST',
        headers: { 'x-amz-target': 'SageMaker.Nope' },
        body: '{}',
      });
      assert.equal(r.status, 400);
      assert.equal(r.headers.get('x-amzn-errortype'), 'UnknownOperationException');
      ids.add(r.headers.get('x-amzn-requestid')!);
    }
    assert.equal(ids.size, 3);
  });

  test('an X-Amz-Target of another service is an unknown operation', async () => {
    const r = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { __type: string }).__type, 'UnknownOperationException');
  });

  test('malformed JSON is a SerializationException and the server stays up', async () => {
    const r = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'SageMaker.ListModelPackageGroups', 'content-type': 'application/x-amz-json-1.1' },
      body: '{"MaxResults": ',
    });
    assert.equal(r.status, 400);
    assert.deepEqual(await r.json(), { __type: 'SerializationException', message: 'Malformed JSON in request body.' });
    const ok = await fetch(`${server.endpoint}/_slipway/health`);
    assert.equal(ok.status, 200);
  });

  test('an oversized JSON body is refused without being buffered', async () => {
    const r = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'SageMaker.ListModelPackageGroups' },
      body: Buffer.alloc(17 * 1024 * 1024, 0x20),
    });
    assert.equal(r.status, 413);
    assert.equal(r.headers.get('x-amzn-errortype'), 'RequestEntityTooLargeException');
  });

  test('SageMaker Runtime: an unknown endpoint, through the real SDK', async () => {
    const rt = new SageMakerRuntimeClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    try {
      await rt.send(
        new InvokeEndpointCommand({ EndpointName: 'ghost', ContentType: 'text/csv', Body: Buffer.from('1,2') }),
      );
      assert.fail('expected ValidationError');
    } catch (err) {
      assert.ok(err instanceof SageMakerRuntimeServiceException);
      assert.equal(err.name, 'ValidationError');
      assert.equal(err.message, `Endpoint ghost of account ${ACCOUNT} not found.`);
      assert.equal(err.$metadata.httpStatusCode, 400);
    } finally {
      rt.destroy();
    }
  });

  test("SageMaker Runtime: an oversize body gets SageMaker's message", async () => {
    const r = await fetch(`${server.endpoint}/endpoints/e/invocations`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: Buffer.alloc(6 * 1024 * 1024 + 1, 0x31),
    });
    assert.equal(r.status, 400);
    const id = r.headers.get('x-amzn-requestid');
    assert.deepEqual(await r.json(), { message: `Request ${id} has oversize body.` });
  });

  test('graph port answers GET /status as Neptune does', async () => {
    const r = await fetch(`${server.graphEndpoint}/status`);
    assert.equal(r.status, 200);
    const s = (await r.json()) as { status: string; role: string; gremlin: { version: string } };
    assert.equal(s.status, 'healthy');
    assert.equal(s.role, 'writer');
    assert.ok(s.gremlin.version);
  });
});
