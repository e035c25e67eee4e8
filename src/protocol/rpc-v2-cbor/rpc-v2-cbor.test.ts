// Smithy RPC v2 CBOR over the CloudWatch model: the AWS SDK's own codec on both sides, timestamps
// as tag 1, and errors with __type and the awsQueryCompatible x-amzn-query-error header.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cbor, tag } from '@smithy/core/cbor';
import pino from 'pino';
import { InvalidParameterValueException } from '../../generated/cloudwatch/errors.js';
import { model } from '../../generated/cloudwatch/model.js';
import type { RequestContext } from '../context.js';
import type { WireRequest } from '../wire.js';
import { RpcV2CborProtocol } from './rpc-v2-cbor.js';

const ctx: RequestContext = {
  requestId: 'r',
  accountId: '111122223333',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: 0,
};
const seen: unknown[] = [];
const handlers = new Proxy(
  {},
  {
    get: (_t, op: string) => async (input: Record<string, unknown>) => {
      seen.push([op, input]);
      if (input.Namespace === 'bad')
        throw new InvalidParameterValueException('The value bad for parameter Namespace is invalid.');
      return op === 'getMetricStatistics'
        ? { Label: 'L', Datapoints: [{ Timestamp: new Date(1_700_000_000_500), Sum: 2.5, Unit: 'Count' }] }
        : {};
    },
  },
);
const protocol = new RpcV2CborProtocol({ model, handlers });
const call = (
  op: string,
  body: unknown,
  path = `/service/GraniteServiceVersion20100801/operation/${op}`,
): WireRequest => ({
  method: 'POST',
  path,
  query: new URLSearchParams(),
  headers: { 'smithy-protocol': 'rpc-v2-cbor', 'content-type': 'application/cbor' },
  body: body === undefined ? Buffer.alloc(0) : Buffer.from(cbor.serialize(body)),
});

describe('RPC v2 CBOR', () => {
  test('tag-1 timestamps in, typed input to the handler, tag-1 timestamps out', async () => {
    const r = await protocol.handle(
      call('GetMetricStatistics', {
        Namespace: 'App',
        MetricName: 'M',
        StartTime: tag({ tag: 1, value: 1_700_000_000 }),
        EndTime: tag({ tag: 1, value: 1_700_000_060.25 }),
        Period: 60,
        Statistics: ['Sum'],
      }),
      ctx,
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers['smithy-protocol'], 'rpc-v2-cbor');
    assert.equal(r.headers['content-type'], 'application/cbor');
    const [, input] = seen.at(-1) as [string, Record<string, unknown>];
    assert.deepEqual(input.StartTime, new Date(1_700_000_000_000));
    assert.deepEqual(input.EndTime, new Date(1_700_000_060_250));
    const out = cbor.deserialize(r.body as Buffer);
    assert.equal(out.Label, 'L');
    assert.equal(out.Datapoints[0].Timestamp.tag, 1);
    assert.equal(out.Datapoints[0].Timestamp.value, 1_700_000_000.5);
    assert.equal(out.Datapoints[0].Sum, 2.5);
  });

  test('an operation without input or output: empty bodies', async () => {
    const r = await protocol.handle(call('ListMetrics', undefined), ctx);
    assert.equal(r.status, 200);
    assert.deepEqual(cbor.deserialize(r.body as Buffer), {});
  });

  test('errors: __type and message, the query code in x-amzn-query-error', async () => {
    const r = await protocol.handle(call('PutMetricData', { Namespace: 'bad', MetricData: [] }), ctx);
    assert.equal(r.status, 400);
    assert.equal(r.headers['x-amzn-query-error'], 'InvalidParameterValue;Sender');
    assert.deepEqual(cbor.deserialize(r.body as Buffer), {
      __type: 'InvalidParameterValueException',
      message: 'The value bad for parameter Namespace is invalid.',
    });
    const unknown = await protocol.handle(call('DeleteAlarms', {}), ctx);
    assert.equal(cbor.deserialize(unknown.body as Buffer).__type, 'UnknownOperationException');
    const otherService = await protocol.handle(call('x', {}, '/service/Other/operation/ListMetrics'), ctx);
    assert.equal(cbor.deserialize(otherService.body as Buffer).__type, 'UnknownOperationException');
    const garbage = await protocol.handle({ ...call('ListMetrics', {}), body: Buffer.from([0xff, 0x00, 0x13]) }, ctx);
    assert.equal(cbor.deserialize(garbage.body as Buffer).__type, 'SerializationException');
    const wrongType = await protocol.handle(call('ListMetrics', { Namespace: 12 }), ctx);
    assert.equal(wrongType.status, 400);
  });
});
