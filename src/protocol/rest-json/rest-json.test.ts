import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { ModelError } from '../../generated/sagemaker-runtime/errors.js';
import { model } from '../../generated/sagemaker-runtime/model.js';
import type { InvokeEndpointInput } from '../../generated/sagemaker-runtime/shapes.js';
import type { RequestContext } from '../context.js';
import type { WireRequest } from '../wire.js';
import { RestJsonProtocol } from './rest-json.js';

const ctx: RequestContext = {
  requestId: 'r-1',
  accountId: '111122223333',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: 0,
};

let seen: InvokeEndpointInput | undefined;
const protocol = new RestJsonProtocol(model, {
  async invokeEndpoint(input: InvokeEndpointInput) {
    seen = input;
    if (input.EndpointName === 'fails') {
      throw new ModelError('Received client error (400) from primary', {
        OriginalStatusCode: 400,
        OriginalMessage: 'bad row',
      });
    }
    return {
      Body: Buffer.from('4.2\n'),
      ContentType: 'text/csv',
      InvokedProductionVariant: 'AllTraffic',
      CustomAttributes: input.CustomAttributes,
    };
  },
});

function req(path: string, headers: Record<string, string>, body: string): WireRequest {
  return { method: 'POST', path, query: new URLSearchParams(), headers, body: Buffer.from(body) };
}

describe('REST-JSON', () => {
  test('binds the path label, headers and the raw payload; writes header members and the raw body', async () => {
    const r = await protocol.handle(
      req(
        '/endpoints/my%2Dep/invocations',
        { 'content-type': 'text/csv', accept: 'text/csv', 'x-amzn-sagemaker-custom-attributes': 'trace=1' },
        '1,2,3',
      ),
      ctx,
    );
    assert.equal(r.status, 200);
    assert.equal(seen?.EndpointName, 'my-ep');
    assert.equal(seen?.ContentType, 'text/csv');
    assert.equal(seen?.Accept, 'text/csv');
    assert.equal(Buffer.from(seen!.Body).toString(), '1,2,3');
    assert.equal(r.headers['content-type'], 'text/csv');
    assert.equal(r.headers['x-amzn-invoked-production-variant'], 'AllTraffic');
    assert.equal(r.headers['x-amzn-sagemaker-custom-attributes'], 'trace=1');
    assert.equal(String(r.body), '4.2\n');
  });

  test('modelled errors carry their status, type header and members', async () => {
    const r = await protocol.handle(req('/endpoints/fails/invocations', { 'content-type': 'text/csv' }, 'x'), ctx);
    assert.equal(r.status, 424);
    assert.equal(r.headers['x-amzn-errortype'], 'ModelError');
    assert.deepEqual(JSON.parse(String(r.body)), {
      message: 'Received client error (400) from primary',
      OriginalStatusCode: 400,
      OriginalMessage: 'bad row',
    });
  });

  test('constraints from the model apply to bound members', async () => {
    const r = await protocol.handle(req(`/endpoints/${'e'.repeat(64)}/invocations`, {}, 'x'), ctx);
    assert.equal(r.status, 400);
    assert.match(
      JSON.parse(String(r.body)).message,
      /at 'endpointName' failed to satisfy constraint: Member must have length less than or equal to 63/,
    );
  });

  test('routes only what the model declares', () => {
    assert.ok(protocol.match(req('/endpoints/x/invocations', {}, '')));
    assert.equal(protocol.match(req('/endpoints/x/other', {}, '')), undefined);
    assert.equal(protocol.match({ ...req('/endpoints/x/invocations', {}, ''), method: 'GET' }), undefined);
  });
});
