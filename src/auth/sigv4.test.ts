import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { SigningKey, SigningKeys } from './sigv4.js';

test('SigningKey.sign is HMAC-SHA256, for ASCII and for other strings', () => {
  const raw = createHmac('sha256', 'AWS4secret').update('20261124').digest();
  const key = new SigningKey(raw);
  for (const data of [
    '',
    'AWS4-HMAC-SHA256\n20261124T160000Z\n20261124/us-east-1/sagemaker/aws4_request\n' + 'ab'.repeat(32),
    'x'.repeat(1000),
    'région ü/ßtring with ✓ and \u0000',
  ]) {
    assert.equal(key.sign(data), createHmac('sha256', raw).update(data).digest('hex'), JSON.stringify(data));
  }
});

test('SigningKeys derives the SigV4 key once and anew when the secret changes', () => {
  const keys = new SigningKeys();
  const a = keys.get('AKID', 'secret', '20261124', 'us-east-1', 'sagemaker');
  assert.equal(keys.get('AKID', 'secret', '20261124', 'us-east-1', 'sagemaker'), a);
  // The key AWS documents: HMAC chain over date, region, service and "aws4_request".
  const h = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
  const expected = h(h(h(h('AWS4secret', '20261124'), 'us-east-1'), 'sagemaker'), 'aws4_request');
  assert.equal(a.sign('m'), createHmac('sha256', expected).update('m').digest('hex'));
  const b = keys.get('AKID', 'rotated', '20261124', 'us-east-1', 'sagemaker');
  assert.notEqual(b, a);
  assert.notEqual(b.sign('m'), a.sign('m'));
});
