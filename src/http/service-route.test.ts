// Routing by what a request declares: the SigV4 scope, X-Amz-Target, smithy-protocol, and for
// unsigned requests the query protocol's Version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { queryServiceOfForm, type RouteInput, serviceRoute } from './service-route.js';

const route = (o: Partial<RouteInput>) =>
  serviceRoute({ method: 'POST', path: '/', query: new URLSearchParams(), headers: {}, signedFor: undefined, ...o });

test('each declared service and protocol', () => {
  assert.deepEqual(route({ headers: { 'x-amz-target': 'SageMaker.ListModels' } }), {
    protocol: 'json',
    service: 'sagemaker',
  });
  assert.deepEqual(route({ headers: { 'x-amz-target': 'Logs_20140328.GetLogEvents' } }), {
    protocol: 'json',
    service: 'logs',
  });
  assert.deepEqual(
    route({ headers: { 'x-amz-target': 'GraniteServiceVersion20100801.ListMetrics' }, signedFor: 'monitoring' }),
    {
      protocol: 'json',
      service: 'cloudwatch',
    },
  );
  assert.deepEqual(
    route({
      path: '/service/GraniteServiceVersion20100801/operation/ListMetrics',
      headers: { 'smithy-protocol': 'rpc-v2-cbor' },
    }),
    {
      protocol: 'cbor',
      service: 'cloudwatch',
    },
  );
  assert.deepEqual(route({ signedFor: 'sts' }), { protocol: 'query', service: 'sts' });
  assert.deepEqual(route({ signedFor: 'monitoring' }), { protocol: 'query', service: 'cloudwatch' });
  assert.deepEqual(route({ method: 'PUT', path: '/BatchPutMetrics', signedFor: 'sagemaker' }), {
    protocol: 'rest-json',
    service: 'sagemaker-metrics',
  });
  assert.deepEqual(route({ path: '/BatchGetMetrics' }), { protocol: 'rest-json', service: 'sagemaker-metrics' });
  assert.deepEqual(route({ signedFor: 'iam' }), { protocol: 'unserved', service: 'iam' });
});

test('S3, SageMaker Runtime and the rest are left to the caller', () => {
  assert.equal(route({ signedFor: 's3', method: 'PUT', path: '/BatchPutMetrics' }), undefined);
  assert.equal(route({ signedFor: 's3' }), undefined);
  assert.equal(route({ signedFor: 'sagemaker', path: '/endpoints/e/invocations' }), undefined);
  assert.equal(route({ method: 'GET', path: '/bucket/key' }), undefined);
  // An unsigned GET / is S3's ListBuckets unless it names a query action and version.
  assert.equal(route({ method: 'GET' }), undefined);
  assert.deepEqual(
    route({ method: 'GET', query: new URLSearchParams('Action=GetCallerIdentity&Version=2011-06-15') }),
    { protocol: 'query', service: 'sts' },
  );
  assert.deepEqual(route({ headers: { 'content-type': 'application/x-www-form-urlencoded' } }), {
    protocol: 'query-form',
  });
});

test('an unsigned form names its service by Version', () => {
  assert.equal(queryServiceOfForm(Buffer.from('Action=GetCallerIdentity&Version=2011-06-15')), 'sts');
  assert.equal(queryServiceOfForm(Buffer.from('Action=ListMetrics&Version=2010-08-01')), 'cloudwatch');
  assert.equal(queryServiceOfForm(Buffer.from('Action=ListMetrics&Version=2099-01-01')), undefined);
  assert.equal(queryServiceOfForm(Buffer.from('Version=2011-06-15')), undefined);
});
