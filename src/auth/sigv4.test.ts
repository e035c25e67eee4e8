import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import {
  CanonicalHeaders,
  canonicalRequest,
  canonicalUri,
  HeaderCredentials,
  lastOf,
  parseSignature,
  SigningKey,
  SigningKeys,
  sameSignature,
  stringToSign,
} from './sigv4.js';

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

test('SigningKey.signRequest is the HMAC of the string to sign, in its own scope and outside it', () => {
  const keys = new SigningKeys();
  const key = keys.get('AKID', 'secret', '20261124', 'us-east-1', 'sagemaker');
  const h = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
  const raw = h(h(h(h('AWS4secret', '20261124'), 'us-east-1'), 'sagemaker'), 'aws4_request');
  const hmacOf = (data: string) => createHmac('sha256', raw).update(data).digest('hex');
  const scope = '20261124/us-east-1/sagemaker/aws4_request';
  // Each call rewrites the key's buffers: answers must not leak from one call into the next.
  for (const [amzDate, hash] of [
    ['20261124T160000Z', 'ab'.repeat(32)],
    ['20261124T235959Z', '0123456789abcdef'.repeat(4)],
    ['20261124T160000Z', 'ab'.repeat(32)],
  ] as const) {
    assert.equal(key.signRequest(amzDate, scope, hash), hmacOf(stringToSign(amzDate, scope, hash)));
  }
  // Another scope, or fields of unexpected lengths, take the general path and are still right.
  const other = '20261124/eu-west-1/sagemaker/aws4_request';
  assert.equal(
    key.signRequest('20261124T160000Z', other, 'cd'.repeat(32)),
    hmacOf(stringToSign('20261124T160000Z', other, 'cd'.repeat(32))),
  );
  assert.equal(key.signRequest('2026', scope, 'cd'), hmacOf(stringToSign('2026', scope, 'cd')));
  // A region with characters outside ASCII has no fixed layout.
  const odd = new SigningKey(raw, '20261124/région/sagemaker/aws4_request');
  const oddScope = '20261124/région/sagemaker/aws4_request';
  assert.equal(
    odd.signRequest('20261124T160000Z', oddScope, 'ef'.repeat(32)),
    hmacOf(stringToSign('20261124T160000Z', oddScope, 'ef'.repeat(32))),
  );
});

test('HeaderCredentials reads an SDK-layout header as the general parse does, and stays within its limit', () => {
  const header = (key: string, signed = 'host;x-amz-date') =>
    `AWS4-HMAC-SHA256 Credential=${key}/20261124/us-east-1/sagemaker/aws4_request, SignedHeaders=${signed}, Signature=${'ab'.repeat(32)}`;
  const known = new HeaderCredentials(3);
  const headers = { authorization: header('AKIDONE'), 'x-amz-date': '20261124T160000Z' };
  const cached = parseSignature(headers, '', known);
  const general = parseSignature(headers, '');
  assert.equal(cached.kind, 'ok');
  assert.equal(general.kind, 'ok');
  if (cached.kind !== 'ok' || general.kind !== 'ok') return;
  assert.equal(cached.sdk, true);
  assert.equal(general.sdk, false);
  assert.deepEqual({ ...cached, sdk: false }, general);
  // The same prefix is the same credential; a different one is its own.
  assert.equal(known.of(header('AKIDONE').replace(/ab/g, 'cd')), cached.credential);
  assert.notEqual(known.of(header('AKIDONE', 'host')), cached.credential);
  assert.deepEqual(known.of(header('AKIDONE', 'host'))?.signedHeaders, ['host']);
  for (let i = 0; i < 100; i++) assert.equal(known.of(header(`AKIDMADEUP${i}`))?.accessKeyId, `AKIDMADEUP${i}`);
  assert.ok(known.size <= 3, `${known.size} entries`);
  // Not the SDK layout, or not a credential: nothing is remembered.
  assert.equal(known.of('AWS4-HMAC-SHA256 Credential=x'), undefined);
  assert.equal(known.of(header('AKID/bad')), undefined);
});

test('sameSignature compares exactly, whatever the inputs', () => {
  const a = 'ab'.repeat(32);
  assert.equal(sameSignature(a, `${a}`), true);
  assert.equal(sameSignature(a, a.toUpperCase()), false);
  assert.equal(sameSignature(a, `${a.slice(0, 63)}c`), false);
  assert.equal(sameSignature(a, a.slice(1)), false);
  assert.equal(sameSignature(a, `${a}0`), false);
});

/** A POST without a query whose signed headers are `names`. */
function canonicalInput(names: string[], headers: Record<string, string | string[]>, rawPath: string) {
  return {
    method: 'POST',
    rawPath,
    rawQuery: '',
    headers,
    signedHeaders: names,
    signedHeaderList: names.join(';'),
    payloadHash: 'ab'.repeat(32),
    s3: false,
  };
}

test('CanonicalHeaders writes the lines of the values each request carries, not the last ones', () => {
  const names = ['content-type', 'host', 'x-amz-date'];
  const lines = new CanonicalHeaders(names);
  const input = (headers: Record<string, string | string[]>) =>
    canonicalInput(names, headers, '/endpoints/hot/invocations');
  const a = { 'content-type': 'text/csv', host: 'h:1', 'x-amz-date': '20261124T160000Z' };
  const b = { ...a, 'x-amz-date': '20261124T160001Z' };
  const c = { ...a, host: '  h:2   with  spaces ' };
  const d = { 'content-type': 'text/csv', 'x-amz-date': '20261124T160000Z' };
  const e = { ...a, host: ['h:1', 'h:3'] };
  // Repeated, changed back and forth, folded, missing and repeated headers: each as written afresh.
  const cases: Record<string, string | string[]>[] = [a, a, b, a, c, c, d, a, e, e, a];
  for (const headers of cases) {
    const expected = canonicalRequest(input(headers));
    assert.equal(canonicalRequest(input(headers), lines), expected);
    assert.ok(
      expected.includes(
        `\nhost:${headers['host'] === undefined ? '' : String(headers['host']).trim().replace(/\s+/g, ' ')}\n`,
      ),
    );
  }
});

test('header values are written as the SDKs sign them: trimmed, each run of any white space one space', () => {
  // The SDKs write `value.trim().replace(/\s+/g, ' ')`: a lone tab, no-break space or em space
  // inside a value is one space too, not only runs of spaces.
  const sdkForm = (v: string) => v.trim().replace(/\s+/g, ' ');
  const alphabet = ['a', 'Z', '9', ' ', ' ', '\t', '\u00a0', '\u2003', '\u000b', '\u0001', '\u0085', ',', ':', 'é'];
  const names = ['x-a', 'x-b'];
  const lines = new CanonicalHeaders(names);
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    const value = () => Array.from({ length: random(7) }, () => alphabet[random(alphabet.length)]).join('');
    const headers = { 'x-a': value(), 'x-b': random(4) === 0 ? [value(), value()] : value() };
    const expected = names
      .map((n) => {
        const v = headers[n as 'x-a'];
        return `${n}:${sdkForm(Array.isArray(v) ? v.join(',') : v)}\n`;
      })
      .join('');
    const canonical = canonicalRequest(canonicalInput(names, headers, '/'));
    assert.equal(canonical, `POST\n/\n\n${expected}\nx-a;x-b\n${'ab'.repeat(32)}`, JSON.stringify(headers));
    assert.equal(lines.of(headers), expected, JSON.stringify(headers));
  }
});

test('canonicalUri and the X-Amz-Date check answer each input on its own, after any other', () => {
  assert.equal(canonicalUri('/endpoints/hot/invocations', false), '/endpoints/hot/invocations');
  assert.equal(canonicalUri('/endpoints/hot/invocations', false), '/endpoints/hot/invocations');
  assert.equal(canonicalUri('/endpoints/a b/../hot/./invocations', false), '/endpoints/hot/invocations');
  assert.equal(canonicalUri('/endpoints/h%20t/', false), '/endpoints/h%2520t/');
  assert.equal(canonicalUri('', false), '/');
  assert.equal(canonicalUri('/endpoints/hot/invocations', false), '/endpoints/hot/invocations');
  const auth = `AWS4-HMAC-SHA256 Credential=AKID/20261124/us-east-1/sagemaker/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'ab'.repeat(32)}`;
  const known = new HeaderCredentials();
  for (const [date, ok] of [
    ['20261124T160000Z', true],
    ['20261124T160000Z', true],
    ['20261124T160000', false],
    ['2026112xT160000Z', false],
    ['20261124T160000Z', true],
  ] as const) {
    for (const parsed of [
      parseSignature({ authorization: auth, 'x-amz-date': date }, '', known),
      parseSignature({ authorization: auth, 'x-amz-date': date }, ''),
    ])
      assert.equal(parsed.kind, ok ? 'ok' : 'malformed', date);
  }
});

test('lastOf answers a repeated argument without calling again, and any other by calling', () => {
  const calls: string[] = [];
  const upper = lastOf((s) => {
    calls.push(s);
    return s.toUpperCase();
  });
  assert.deepEqual(['a', 'a', 'b', 'a', 'a', ''].map(upper), ['A', 'A', 'B', 'A', 'A', '']);
  assert.deepEqual(calls, ['a', 'b', 'a', '']);
});
