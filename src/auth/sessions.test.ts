// Temporary credentials in the authorizer: signed by the AWS SDK's own signer with a session
// token, verified against a stored session (no secret stored), authorized as the role, limited by
// a session policy, refused once expired, with a wrong token, or once their key or role is gone;
// and trust policies deciding who may assume a role.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Authorizer, type AuthFailure, type Authenticated } from './authorizer.js';
import { parseCredentials } from './credentials.js';
import {
  assumedRoleArn,
  deriveSecret,
  isTemporaryAccessKeyId,
  newNonce,
  newSessionToken,
  newTemporaryAccessKeyId,
  type SessionRecord,
  tokenHash,
} from './sessions.js';
import { compileTrustPolicy, evaluateTrust } from './trust-policy.js';

const ACCT = '111122223333';
const ROOT = { accessKeyId: 'AKIAALICE00000000001', secretAccessKey: 'alice-secret-access-key' };
const ROLE = `arn:aws:iam::${ACCT}:role/reader`;
const credentials = (withRole = true) =>
  parseCredentials({
    principals: [
      {
        ...ROOT,
        arn: `arn:aws:iam::${ACCT}:user/alice`,
        policy: { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
      },
    ],
    roles: withRole
      ? [{ arn: ROLE, policy: { Statement: [{ Effect: 'Allow', Action: 'sagemaker:List*', Resource: '*' }] } }]
      : [],
  });

function session(o: Partial<SessionRecord> = {}): { record: SessionRecord; secret: string; token: string } {
  const accessKeyId = newTemporaryAccessKeyId();
  const nonce = newNonce();
  const token = newSessionToken();
  const record: SessionRecord = {
    accessKeyId,
    accountId: ACCT,
    kind: 'AssumeRole',
    arn: assumedRoleArn(ROLE, 'tests'),
    roleArn: ROLE,
    sourceArn: `arn:aws:iam::${ACCT}:user/alice`,
    rootAccessKeyId: ROOT.accessKeyId,
    nonce,
    tokenHash: tokenHash(token),
    sessionPolicy: null,
    createdAt: Date.now(),
    expiresAt: Date.now() + 3_600_000,
    ...o,
  };
  return { record, secret: deriveSecret(ROOT.secretAccessKey, accessKeyId, nonce), token };
}

async function signed(key: string, secret: string, token: string | undefined) {
  const req = new HttpRequest({
    method: 'POST',
    hostname: '127.0.0.1',
    path: '/',
    headers: { host: '127.0.0.1', 'x-amz-target': 'SageMaker.ListModels' },
    body: '{}',
  });
  const s = await new SignatureV4({
    credentials: { accessKeyId: key, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) },
    region: 'us-east-1',
    service: 'sagemaker',
    sha256: Hash.bind(null, 'sha256'),
  }).sign(req);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.headers)) headers[k.toLowerCase()] = v;
  return { method: 'POST', url: '/', headers };
}

const failure = (r: Authenticated | AuthFailure) => ('reason' in r ? r.reason : 'ok');
const facts = { facts: () => ({ region: 'us-east-1', now: new Date() }) };

test('temporary keys look like AWS ones; the secret is never stored but derived again', () => {
  const s = session();
  assert.ok(isTemporaryAccessKeyId(s.record.accessKeyId));
  assert.equal(s.secret.length, 40);
  assert.equal(deriveSecret(ROOT.secretAccessKey, s.record.accessKeyId, s.record.nonce), s.secret);
  assert.ok(!JSON.stringify(s.record).includes(s.secret));
  assert.ok(!JSON.stringify(s.record).includes(s.token));
});

test('a session signs as its assumed role, with its token, until it expires', async () => {
  const authz = Authorizer.fromCredentials(credentials());
  const s = session();
  const store = new Map([[s.record.accessKeyId, s.record]]);
  authz.useSessions({ get: async (k) => store.get(k) });
  assert.equal(authz.needsSession(s.record.accessKeyId), true);
  assert.equal(authz.needsSession(ROOT.accessKeyId), false);
  await authz.loadSession(s.record.accessKeyId);
  assert.equal(authz.needsSession(s.record.accessKeyId), false);

  const req = await signed(s.record.accessKeyId, s.secret, s.token);
  const r = authz.authenticate(req, { body: Buffer.from('{}') });
  assert.equal(failure(r), 'ok');
  const auth = r as Authenticated;
  assert.equal(auth.principal.arn, `arn:aws:sts::${ACCT}:assumed-role/reader/tests`);
  // The role's policy applies, in the assumed role's name.
  assert.equal(authz.authorize(auth.principal, 'sagemaker:ListModels', ['*'], facts), undefined);
  const denied = authz.authorize(auth.principal, 'sagemaker:CreateModel', ['arn:x'], facts);
  assert.match(
    denied!.message,
    /^User: arn:aws:sts::111122223333:assumed-role\/reader\/tests is not authorized to perform: sagemaker:CreateModel/,
  );

  assert.equal(
    failure(
      authz.authenticate(await signed(s.record.accessKeyId, s.secret, 'not-the-token'), { body: Buffer.from('{}') }),
    ),
    'unknown-key',
  );
  assert.equal(
    failure(authz.authenticate(await signed(s.record.accessKeyId, s.secret, undefined), { body: Buffer.from('{}') })),
    'unknown-key',
  );
  assert.equal(
    failure(
      authz.authenticate(await signed(s.record.accessKeyId, 'wrong-secret-wrong-secret-wrong-secret00', s.token), {
        body: Buffer.from('{}'),
      }),
    ),
    'signature',
  );
  assert.equal(
    failure(authz.authenticate(req, { body: Buffer.from('{}'), now: s.record.expiresAt + 1 })),
    'expired-token',
  );
});

test('an unknown temporary key is looked up once, then refused without the database', async () => {
  const authz = Authorizer.fromCredentials(credentials());
  let lookups = 0;
  authz.useSessions({
    get: async () => {
      lookups++;
      return undefined;
    },
  });
  const ghost = newTemporaryAccessKeyId();
  await authz.loadSession(ghost);
  assert.equal(authz.needsSession(ghost), false);
  assert.equal(
    failure(authz.authenticate(await signed(ghost, 'x'.repeat(40), 't'), { body: Buffer.from('{}') })),
    'unknown-key',
  );
  assert.equal(lookups, 1);
});

test('a session policy limits the role; a session ends when its role leaves the credentials file', async () => {
  const authz = Authorizer.fromCredentials(credentials());
  const s = session({
    sessionPolicy: JSON.stringify({ Statement: [{ Effect: 'Allow', Action: 'sagemaker:ListModels', Resource: '*' }] }),
  });
  authz.useSessions({ get: async () => s.record });
  await authz.loadSession(s.record.accessKeyId);
  const r = authz.authenticate(await signed(s.record.accessKeyId, s.secret, s.token), {
    body: Buffer.from('{}'),
  }) as Authenticated;
  assert.equal(authz.authorize(r.principal, 'sagemaker:ListModels', ['*'], facts), undefined);
  const limited = authz.authorize(r.principal, 'sagemaker:ListEndpoints', ['*'], facts);
  assert.match(limited!.message, /because no session policy allows the sagemaker:ListEndpoints action$/);

  const without = Authorizer.fromCredentials(credentials(false));
  without.useSessions({ get: async () => s.record });
  await without.loadSession(s.record.accessKeyId);
  assert.equal(
    failure(without.authenticate(await signed(s.record.accessKeyId, s.secret, s.token), { body: Buffer.from('{}') })),
    'unknown-key',
  );
});

test('trust policies: named principals, the account, conditions, explicit deny', () => {
  const bob = `arn:aws:iam::${ACCT}:user/bob`;
  const named = compileTrustPolicy({
    Statement: { Effect: 'Allow', Principal: { AWS: bob }, Action: 'sts:AssumeRole' },
  });
  assert.deepEqual(evaluateTrust(named, { principalArn: bob, sessionName: 's' }), { decision: 'Allow', named: true });
  assert.equal(
    evaluateTrust(named, { principalArn: `arn:aws:iam::${ACCT}:user/eve`, sessionName: 's' }).decision,
    'ImplicitDeny',
  );
  const account = compileTrustPolicy({
    Statement: {
      Effect: 'Allow',
      Principal: { AWS: ACCT },
      Action: 'sts:AssumeRole',
      Condition: { StringEquals: { 'sts:ExternalId': 'xyz' } },
    },
  });
  assert.deepEqual(evaluateTrust(account, { principalArn: bob, sessionName: 's', externalId: 'xyz' }), {
    decision: 'Allow',
    named: false,
  });
  assert.equal(evaluateTrust(account, { principalArn: bob, sessionName: 's' }).decision, 'ImplicitDeny');
  assert.equal(
    evaluateTrust(account, { principalArn: 'arn:aws:iam::999999999999:user/x', sessionName: 's', externalId: 'xyz' })
      .decision,
    'ImplicitDeny',
  );
  // A role's sessions are named by the role's ARN.
  const byRole = compileTrustPolicy({
    Statement: { Effect: 'Allow', Principal: { AWS: ROLE }, Action: 'sts:AssumeRole' },
  });
  assert.equal(
    evaluateTrust(byRole, { principalArn: assumedRoleArn(ROLE, 's1'), roleArn: ROLE, sessionName: 's2' }).decision,
    'Allow',
  );
  const deny = compileTrustPolicy({
    Statement: [
      { Effect: 'Allow', Principal: '*', Action: 'sts:AssumeRole' },
      { Effect: 'Deny', Principal: { AWS: bob }, Action: 'sts:*' },
    ],
  });
  assert.equal(evaluateTrust(deny, { principalArn: bob, sessionName: 's' }).decision, 'ExplicitDeny');
  assert.throws(
    () => compileTrustPolicy({ Statement: { Effect: 'Allow', Action: 'sts:AssumeRole' } }),
    /needs a Principal/,
  );
});
