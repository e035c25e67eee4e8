import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialScope } from './sigv4-scope.js';

test('reads region and service from an Authorization header', () => {
  const scope = credentialScope({
    authorization:
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/eu-west-1/sagemaker/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc',
  });
  assert.deepEqual(scope, { accessKeyId: 'AKIDEXAMPLE', region: 'eu-west-1', service: 'sagemaker' });
});

test('reads a presigned query credential', () => {
  const q = new URLSearchParams({ 'X-Amz-Credential': 'AK/20260101/us-west-2/s3/aws4_request' });
  assert.equal(credentialScope({}, q)?.service, 's3');
});

test('unsigned requests have no scope', () => {
  assert.equal(credentialScope({}), undefined);
  assert.equal(credentialScope({ authorization: 'Bearer x' }), undefined);
});
