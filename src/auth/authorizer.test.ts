// Signature checks against requests signed by the AWS SDK's own signer (@smithy/signature-v4),
// so canonicalization mistakes on either side cannot cancel out.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { type Authenticated, Authorizer, type AuthFailure } from './authorizer.js';
import { parseCredentials } from './credentials.js';
import { gateFor } from './services.js';

const KEY = 'AKIAALICE00000000001';
const SECRET = 'alice-secret-access-key';
const authz = Authorizer.fromCredentials(
  parseCredentials({
    principals: [
      {
        accessKeyId: KEY,
        secretAccessKey: SECRET,
        arn: 'arn:aws:iam::111122223333:user/alice',
        policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      },
    ],
  }),
);

function signer(service: string, secret = SECRET, s3 = service === 's3') {
  return new SignatureV4({
    credentials: { accessKeyId: KEY, secretAccessKey: secret },
    region: 'us-west-2',
    service,
    sha256: Hash.bind(null, 'sha256'),
    uriEscapePath: !s3,
    applyChecksum: s3,
  });
}

/** The request as a server sees it: method, raw target, lower-case headers. */
function asReceived(r: HttpRequest) {
  const q = Object.entries(r.query ?? {})
    .flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x ?? '')}`),
    )
    .join('&');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) headers[k.toLowerCase()] = v;
  return { method: r.method, url: q ? `${r.path}?${q}` : r.path, headers };
}

const ok = (r: Authenticated | AuthFailure): r is Authenticated => !('reason' in r);

/** DescribeEndpoint of `name` as the SDK signs it (with `secret`), and its body. */
async function signedDescribe(name: string, secret = SECRET) {
  const body = JSON.stringify({ EndpointName: name });
  const req = new HttpRequest({
    method: 'POST',
    hostname: '127.0.0.1',
    path: '/',
    headers: { host: '127.0.0.1', 'x-amz-target': 'SageMaker.DescribeEndpoint' },
    body,
  });
  return { body, signed: asReceived((await signer('sagemaker', secret).sign(req)) as HttpRequest) };
}

test('JSON 1.1 request signed by the SDK signer verifies; a changed body or header does not', async () => {
  const body = JSON.stringify({ EndpointName: 'my-endpoint' });
  const req = new HttpRequest({
    method: 'POST',
    protocol: 'http:',
    hostname: '127.0.0.1',
    port: 4810,
    path: '/',
    headers: {
      host: '127.0.0.1:4810',
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'SageMaker.DescribeEndpoint',
    },
    body,
  });
  const signed = asReceived((await signer('sagemaker').sign(req)) as HttpRequest);
  const good = authz.authenticate(signed, { body: Buffer.from(body) });
  assert.ok(ok(good));
  assert.equal(good.principal.arn, 'arn:aws:iam::111122223333:user/alice');
  assert.equal((authz.authenticate(signed, { body: Buffer.from(`${body} `) }) as AuthFailure).reason, 'signature');
  const otherTarget = { ...signed, headers: { ...signed.headers, 'x-amz-target': 'SageMaker.DeleteEndpoint' } };
  assert.equal((authz.authenticate(otherTarget, { body: Buffer.from(body) }) as AuthFailure).reason, 'signature');
});

test('REST-JSON path with characters to escape is double-encoded as the SDK signs it', async () => {
  const req = new HttpRequest({
    method: 'POST',
    hostname: 'localhost',
    path: '/endpoints/my%20endpoint%2Bx/invocations',
    headers: { host: 'localhost', 'content-type': 'text/csv' },
    body: '1,2,3',
  });
  const signed = asReceived((await signer('sagemaker').sign(req)) as HttpRequest);
  assert.ok(ok(authz.authenticate(signed, { body: Buffer.from('1,2,3') })));
});

test('S3: path signed as sent, query sorted and encoded, x-amz-content-sha256 required', async () => {
  const req = new HttpRequest({
    method: 'GET',
    hostname: 'localhost',
    path: '/bucket/dir/a%20b%2Bc~%21.txt',
    query: { 'list-type': '2', prefix: 'a b/ç', 'max-keys': '5' },
    headers: { host: 'localhost', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  });
  const signed = asReceived((await signer('s3').sign(req)) as HttpRequest);
  assert.ok(ok(authz.authenticate(signed, { s3: true })));
  const { 'x-amz-content-sha256': _drop, ...rest } = signed.headers;
  assert.equal(
    (authz.authenticate({ ...signed, headers: rest }, { s3: true }) as AuthFailure).reason,
    'missing-content-sha256',
  );
});

test('unknown key, wrong secret, skewed clock, unsigned and malformed are told apart', async () => {
  const base = new HttpRequest({ method: 'POST', hostname: 'h', path: '/', headers: { host: 'h' }, body: '{}' });
  const wrong = asReceived((await signer('sagemaker', 'not-the-secret').sign(base)) as HttpRequest);
  assert.equal((authz.authenticate(wrong, { body: Buffer.from('{}') }) as AuthFailure).reason, 'signature');
  const unknown = {
    ...wrong,
    headers: { ...wrong.headers, authorization: wrong.headers.authorization!.replace(KEY, 'AKIANOBODY0000000000') },
  };
  assert.equal((authz.authenticate(unknown, { body: Buffer.from('{}') }) as AuthFailure).reason, 'unknown-key');
  const old = asReceived(
    (await signer('sagemaker').sign(base, { signingDate: new Date(Date.now() - 16 * 60_000) })) as HttpRequest,
  );
  const skew = authz.authenticate(old, { body: Buffer.from('{}') }) as AuthFailure;
  assert.equal(skew.reason, 'skewed');
  const recent = asReceived(
    (await signer('sagemaker').sign(base, { signingDate: new Date(Date.now() - 14 * 60_000) })) as HttpRequest,
  );
  assert.ok(ok(authz.authenticate(recent, { body: Buffer.from('{}') })));
  assert.equal(
    (authz.authenticate({ method: 'POST', url: '/', headers: { host: 'h' } }) as AuthFailure).reason,
    'missing',
  );
  const bad = authz.authenticate({
    method: 'POST',
    url: '/',
    headers: { host: 'h', authorization: 'AWS4-HMAC-SHA256 Credential=x' },
  });
  assert.equal((bad as AuthFailure).reason, 'malformed');
});

test('presigned URLs: valid, tampered, expired, and longer than a week', async () => {
  // As @aws-sdk/s3-request-presigner prepares it: the payload is declared unsigned.
  const req = new HttpRequest({
    method: 'GET',
    hostname: 'localhost',
    path: '/bucket/key.txt',
    headers: { host: 'localhost', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  });
  const url = asReceived((await signer('s3').presign(req, { expiresIn: 60 })) as HttpRequest);
  assert.ok(ok(authz.authenticate(url, { s3: true })));
  assert.equal(
    (authz.authenticate({ ...url, url: url.url.replace('key.txt', 'other.txt') }, { s3: true }) as AuthFailure).reason,
    'signature',
  );
  const expired = authz.authenticate(url, { s3: true, now: Date.now() + 61_000 }) as AuthFailure;
  assert.equal(expired.reason, 'expired');
  const week = asReceived((await signer('s3').presign(req, { expiresIn: 604_800 })) as HttpRequest);
  assert.ok(ok(authz.authenticate(week, { s3: true })));
  const tooLong = { ...week, url: week.url.replace('X-Amz-Expires=604800', 'X-Amz-Expires=604801') };
  assert.equal((authz.authenticate(tooLong, { s3: true }) as AuthFailure).reason, 'expires-too-long');
});

test('SigV2 presigned URLs: the S3 guide example verifies; tampered and expired ones are refused', () => {
  // The worked example of S3's "Query string request authentication" (RESTAuthentication.html).
  const example = Authorizer.fromCredentials(
    parseCredentials({
      principals: [
        {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
          arn: 'arn:aws:iam::111122223333:user/example',
          policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
        },
      ],
    }),
  );
  const url =
    '/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D';
  const req = { method: 'GET', url, headers: { host: 'johnsmith.s3.amazonaws.com' } };
  const before = Date.UTC(2007, 2, 28); // before Expires (2007-03-29T03:40:20Z)
  const r = example.authenticate(req, { s3: true, now: before });
  assert.ok(ok(r) && r.version === 2, JSON.stringify(r));
  const tampered = example.authenticate({ ...req, url: url.replace('puppy', 'kitten') }, { s3: true, now: before });
  assert.ok(!ok(tampered) && tampered.reason === 'signature');
  assert.equal(tampered.stringToSign, 'GET\n\n\n1175139620\n/johnsmith/photos/kitten.jpg');
  const later = example.authenticate(
    { ...req, url: url.replace('1175139620', '1175139621') },
    { s3: true, now: before },
  );
  assert.equal((later as AuthFailure).reason, 'signature');
  const expired = example.authenticate(req, { s3: true, now: 1_175_139_621_000 });
  assert.equal((expired as AuthFailure).reason, 'expired');
  const unknown = example.authenticate({ ...req, url: url.replace('AKIAIOSFODNN7EXAMPLE', 'AKIAOTHER') }, { s3: true });
  assert.equal((unknown as AuthFailure).reason, 'unknown-key');
  // Only S3 takes SigV2: the JSON APIs see no signature at all.
  assert.equal((example.authenticate(req, { now: before }) as AuthFailure).reason, 'missing');
});

test('aws-chunked chunk signatures chain from the seed signature', async () => {
  const data = [Buffer.from('a'.repeat(100)), Buffer.from('b'.repeat(20))];
  const req = new HttpRequest({
    method: 'PUT',
    hostname: 'localhost',
    path: '/bucket/streamed',
    headers: {
      host: 'localhost',
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': '120',
    },
  });
  const s = signer('s3');
  const signed = asReceived((await s.sign(req)) as HttpRequest);
  const auth = authz.authenticate(signed, { s3: true });
  assert.ok(ok(auth) && auth.version === 4);
  const verifier = authz.chunkVerifier(auth);
  const amzDate = signed.headers['x-amz-date']!;
  const scope = `${amzDate.slice(0, 8)}/us-west-2/s3/aws4_request`;
  let previous = auth.parts.signature;
  const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
  for (const chunk of [...data, Buffer.alloc(0)]) {
    const toSign = `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previous}\n${sha('')}\n${sha(chunk)}`;
    const sig = await s.sign(toSign, { signingDate: new Date(), signingRegion: 'us-west-2', signingService: 's3' });
    assert.equal(verifier.chunk(sig, sha(chunk)), true);
    previous = sig;
  }
  // A replayed or altered chunk breaks the chain.
  assert.equal(verifier.chunk(previous, sha(data[0]!)), false);
});

test('roleMay: only roles the file lists, only what their policy allows', () => {
  const a = Authorizer.fromCredentials(
    parseCredentials({
      principals: [],
      roles: [
        {
          arn: 'arn:aws:iam::111122223333:role/loader',
          policy: {
            Statement: [
              {
                Effect: 'Allow',
                Action: ['s3:GetObject', 's3:ListBucket'],
                Resource: ['arn:aws:s3:::data', 'arn:aws:s3:::data/graph/*'],
              },
            ],
          },
        },
      ],
    }),
  );
  assert.equal(
    a.roleMay('arn:aws:iam::111122223333:role/loader', 's3:GetObject', 'arn:aws:s3:::data/graph/v.csv'),
    true,
  );
  assert.equal(
    a.roleMay('arn:aws:iam::111122223333:role/loader', 's3:GetObject', 'arn:aws:s3:::data/secret/v.csv'),
    false,
  );
  assert.equal(
    a.roleMay('arn:aws:iam::111122223333:role/other', 's3:GetObject', 'arn:aws:s3:::data/graph/v.csv'),
    false,
  );
  assert.equal(Authorizer.anonymous().roleMay('', 's3:GetObject', 'arn:aws:s3:::x/y'), true);
});

test('a principal serialised for a log carries no secret', () => {
  const c = parseCredentials({
    principals: [
      { accessKeyId: KEY, secretAccessKey: SECRET, arn: 'arn:aws:iam::111122223333:user/alice', policy: [] },
    ],
  });
  assert.ok(!JSON.stringify([...c.byAccessKey.values()]).includes(SECRET));
});

test("the request gate reads the caller's address for a SourceIp condition, and only then", async () => {
  const conditional = Authorizer.fromCredentials(
    parseCredentials({
      principals: [
        {
          accessKeyId: KEY,
          secretAccessKey: SECRET,
          arn: 'arn:aws:iam::111122223333:user/alice',
          policy: {
            Version: '2012-10-17',
            Statement: [
              {
                Effect: 'Allow',
                Action: 'sagemaker:*',
                Resource: '*',
                Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } },
              },
            ],
          },
        },
      ],
    }),
  );
  const { body, signed } = await signedDescribe('e');
  const partition = { accountId: '111122223333', region: 'us-west-2' };
  const gateAt = (authorizer: Authorizer, ip: string) => {
    const a = authorizer.authenticate(signed, { body: Buffer.from(body) });
    assert.ok(ok(a));
    let reads = 0;
    const socket = {
      get remoteAddress() {
        reads++;
        return ip;
      },
    };
    return { gate: gateFor('sagemaker', authorizer, a, partition, socket), reads: () => reads };
  };
  const inside = gateAt(conditional, '10.1.2.3');
  inside.gate.operation('DescribeEndpoint', { EndpointName: 'e' });
  assert.equal(inside.reads(), 1);
  const outside = gateAt(conditional, '192.168.0.9');
  assert.throws(() => outside.gate.operation('DescribeEndpoint', { EndpointName: 'e' }), /not authorized/);
  // A policy without conditions decides without the address.
  const plain = gateAt(authz, '192.168.0.9');
  plain.gate.operation('DescribeEndpoint', { EndpointName: 'e' });
  assert.equal(plain.reads(), 0);
});

test('a remembered Authorization prefix lets through only the signature that matches', async () => {
  const { body, signed } = await signedDescribe('my-endpoint');
  const auth = signed.headers.authorization!;
  const signature = auth.slice(-64);
  const prefix = auth.slice(0, -64);
  const withSignature = (s: string) => ({ ...signed, headers: { ...signed.headers, authorization: `${prefix}${s}` } });
  const reason = (s: string) => {
    const r = authz.authenticate(withSignature(s), { body: Buffer.from(body) });
    return ok(r) ? 'ok' : r.reason;
  };
  assert.equal(reason(signature), 'ok');
  // The prefix is now remembered: other signatures after it are still checked, each on its own.
  assert.equal(reason(signature.replace(/.$/, (c) => (c === '0' ? '1' : '0'))), 'signature');
  assert.equal(reason('0'.repeat(64)), 'signature');
  assert.equal(reason(signature), 'ok');
  // Written otherwise than the SDKs write it, the header is read as before: upper-case hex is
  // still the signature, and text that splits into other fields is what those fields say.
  assert.equal(reason(signature.toUpperCase()), 'ok');
  assert.equal(reason('z'.repeat(64)), 'signature');
  const split = `abc, Credential=AKIANOBODY0000000000/${'9'.repeat(64)}`.slice(0, 64);
  assert.equal(reason(split), 'malformed');
  // A refusal reports the canonical request and the string to sign that it was checked against.
  const failure = authz.authenticate(withSignature('0'.repeat(64)), { body: Buffer.from(body) });
  assert.ok(!ok(failure) && failure.reason === 'signature');
  const amzDate = signed.headers['x-amz-date']!;
  assert.equal(
    failure.stringToSign,
    `AWS4-HMAC-SHA256\n${amzDate}\n${amzDate.slice(0, 8)}/us-west-2/sagemaker/aws4_request\n${createHash('sha256')
      .update(failure.canonicalRequest ?? '')
      .digest('hex')}`,
  );
  assert.equal(failure.signatureProvided, '0'.repeat(64));
});

test('after a reload (SIGHUP) remembered keys and decisions follow the new file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-authz-'));
  try {
    const file = join(dir, 'credentials.json');
    const write = (secret: string, actions: string[]) =>
      writeFileSync(
        file,
        JSON.stringify({
          principals: [
            {
              accessKeyId: KEY,
              secretAccessKey: secret,
              arn: 'arn:aws:iam::111122223333:user/alice',
              policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: actions, Resource: '*' }] },
            },
          ],
        }),
      );
    write(SECRET, ['sagemaker:*']);
    const a = Authorizer.fromFile(file);
    const partition = { accountId: '111122223333', region: 'us-west-2' };
    const describe = async (secret: string) => {
      const { body, signed } = await signedDescribe('e', secret);
      const r = a.authenticate(signed, { body: Buffer.from(body) });
      if (!ok(r)) return r.reason;
      try {
        gateFor('sagemaker', a, r, partition, {}).operation('DescribeEndpoint', { EndpointName: 'e' });
        return 'allowed';
      } catch (err) {
        return (err as Error).message;
      }
    };
    // Twice, so that the second answer comes from what was remembered.
    assert.equal(await describe(SECRET), 'allowed');
    assert.equal(await describe(SECRET), 'allowed');
    // The Allow is narrowed: the remembered decision must not outlive it.
    write(SECRET, ['sagemaker:ListModels']);
    a.reload();
    assert.match(await describe(SECRET), /is not authorized to perform: sagemaker:DescribeEndpoint/);
    write(SECRET, ['sagemaker:*']);
    a.reload();
    assert.equal(await describe(SECRET), 'allowed');
    // The secret is rotated: the remembered signing key must not outlive it.
    write('rotated-secret-access-key', ['sagemaker:*']);
    a.reload();
    assert.equal(await describe(SECRET), 'signature');
    assert.equal(await describe('rotated-secret-access-key'), 'allowed');
    // The key is removed.
    writeFileSync(file, JSON.stringify({ principals: [] }));
    a.reload();
    assert.equal(await describe('rotated-secret-access-key'), 'unknown-key');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an operation allowed by name is allowed again only for the same principal, name and partition', () => {
  const creds = parseCredentials({
    principals: [
      {
        accessKeyId: 'AKIAALICE00000000001',
        secretAccessKey: SECRET,
        arn: 'arn:aws:iam::111122223333:user/alice',
        policy: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Action: 'sagemaker:*', Resource: '*' },
            { Effect: 'Deny', Action: 'sagemaker:*', Resource: 'arn:aws:sagemaker:*:*:endpoint/prod-*' },
            { Effect: 'Deny', Action: 'sagemaker:*', Resource: 'arn:aws:sagemaker:eu-west-1:*:*' },
            { Effect: 'Deny', Action: 'sagemaker:*', Resource: 'arn:aws:sagemaker:*:999999999999:*' },
          ],
        },
      },
      {
        accessKeyId: 'AKIABOB000000000001',
        secretAccessKey: SECRET,
        arn: 'arn:aws:iam::111122223333:user/bob',
        policy: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'sagemaker:DescribeEndpoint', Resource: '*' }],
        },
      },
    ],
  });
  const a = Authorizer.fromCredentials(creds);
  const alice = creds.byAccessKey.get('AKIAALICE00000000001')!;
  const bob = creds.byAccessKey.get('AKIABOB000000000001')!;
  const here = { accountId: '111122223333', region: 'us-west-2' };
  const run = (
    principal: typeof alice,
    operation: string,
    name: unknown,
    partition = here,
    service: 'sagemaker' | 'sagemaker-runtime' = 'sagemaker',
  ) => {
    try {
      gateFor(service, a, { principal } as Authenticated, partition, {}).operation(operation, { EndpointName: name });
      return 'allowed';
    } catch (err) {
      return (err as Error).message;
    }
  };
  const denied = /is not authorized to perform: sagemaker:(\w+) on resource: arn:aws:sagemaker:/;
  for (let round = 0; round < 2; round++) {
    assert.equal(run(alice, 'DescribeEndpoint', 'e'), 'allowed');
    assert.match(run(alice, 'DescribeEndpoint', 'prod-1'), denied);
    // The ARN lower-cases endpoint names: a name differing in case is the same resource.
    assert.match(run(alice, 'DescribeEndpoint', 'Prod-1'), denied);
    assert.equal(run(alice, 'DescribeEndpoint', 'e'), 'allowed');
    assert.match(run(alice, 'DescribeEndpoint', 'e', { ...here, region: 'eu-west-1' }), denied);
    assert.match(run(alice, 'DescribeEndpoint', 'e', { ...here, accountId: '999999999999' }), denied);
    assert.equal(run(alice, 'InvokeEndpoint', 'e', here, 'sagemaker-runtime'), 'allowed');
    assert.match(run(alice, 'InvokeEndpoint', 'prod-1', here, 'sagemaker-runtime'), denied);
    // Another principal asking the same as an allowed one gets its own policy's answer.
    assert.match(run(bob, 'InvokeEndpoint', 'e', here, 'sagemaker-runtime'), denied);
    assert.equal(run(bob, 'DescribeEndpoint', 'e'), 'allowed');
    assert.match(run(bob, 'DeleteEndpoint', 'e'), denied);
    assert.equal(run(alice, 'DeleteEndpoint', 'e'), 'allowed');
    assert.match(run(bob, 'DeleteEndpoint', 'e'), denied);
    // A name that is not a string names no resource: only `*` decides.
    assert.equal(run(alice, 'DescribeEndpoint', undefined), 'allowed');
  }
  // The refusal says what it always said.
  assert.equal(
    run(alice, 'DescribeEndpoint', 'prod-1'),
    'User: arn:aws:iam::111122223333:user/alice is not authorized to perform: sagemaker:DescribeEndpoint on resource: arn:aws:sagemaker:us-west-2:111122223333:endpoint/prod-1 with an explicit deny in an identity-based policy',
  );
});
