// STS end to end: boto3 through test/e2e/boto3_sts.py against a server with roles and trust
// policies; the temporary credentials it issued still work after a restart (SQLite) and on
// another replica of the same PostgreSQL database (the JavaScript SDK signing with the session
// token); an open server answers GetCallerIdentity with its account and still issues sessions.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { ListModelsCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { HttpRequest } from '@smithy/protocol-http';
import { credentialsDocument, sdkSigner, writeCredentialsFile } from '../support/credentials.js';
import { python, requirePythonModule } from '../support/python.js';
import {
  ACCOUNT,
  CREDENTIALS,
  databaseArgs,
  REGION,
  startServer,
  tempDir,
  type TestServer,
} from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');

/** The test credentials file plus the roles boto3_sts.py assumes. */
function withRoles(): unknown {
  const doc = credentialsDocument() as { principals: unknown[]; roles: unknown[] };
  const allow = (Action: string | string[]) => ({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action, Resource: '*' }],
  });
  return {
    ...doc,
    roles: [
      ...doc.roles,
      {
        arn: `arn:aws:iam::${ACCOUNT}:role/runner`,
        maxSessionDuration: 7200,
        trustPolicy: {
          Version: '2012-10-17',
          Statement: [
            { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:user/bob` }, Action: 'sts:AssumeRole' },
          ],
        },
        policy: allow(['sagemaker:List*', 'sts:AssumeRole', 's3:*', 'cloudwatch:*']),
      },
      { arn: `arn:aws:iam::${ACCOUNT}:role/wide`, policy: allow('sagemaker:*') },
    ],
  };
}

async function runScript(
  endpoint: string,
): Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken: string }> {
  const child = spawn(python(), ['test/e2e/boto3_sts.py', endpoint, ACCOUNT], {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  const c = JSON.parse(out.trim().split('\n').at(-2)!) as Record<string, string>;
  return { accessKeyId: c.AccessKeyId!, secretAccessKey: c.SecretAccessKey!, sessionToken: c.SessionToken! };
}

/** An STS query-protocol call signed by the SDK's signer; the XML answer as text. */
async function sts(
  endpoint: string,
  creds: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  params: Record<string, string>,
) {
  const url = new URL(endpoint);
  const body = new URLSearchParams({ Version: '2011-06-15', ...params }).toString();
  const req = new HttpRequest({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const signed = await sdkSigner(creds, 'sts', REGION).sign(req);
  const res = await fetch(url, { method: 'POST', headers: signed.headers as Record<string, string>, body });
  return { status: res.status, text: await res.text() };
}

const listModels = (
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string },
) => new SageMakerClient({ endpoint, region: REGION, credentials, maxAttempts: 1 }).send(new ListModelsCommand({}));

describe('STS with a credentials file', () => {
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  test('boto3: identities, AssumeRole with trust and session policies, GetSessionToken; the session outlives a restart', {
    skip: missing,
    timeout: 60_000,
  }, async () => {
    const dataDir = tempDir();
    const args = ['--credentials-file', writeCredentialsFile(tempDir(), withRoles())];
    let server = await startServer(args, { dataDir });
    const session = await runScript(server.endpoint);
    await server.close();
    server = await startServer(args, { dataDir });
    servers.push(server);
    assert.deepEqual((await listModels(server.endpoint, session)).Models, []);
    const who = await sts(server.endpoint, session, { Action: 'GetCallerIdentity' });
    assert.match(who.text, new RegExp(`<Arn>arn:aws:sts::${ACCOUNT}:assumed-role/runner/nightly</Arn>`));
  });

  test('a session issued by one replica works on the other (PostgreSQL)', async () => {
    const args = ['--credentials-file', writeCredentialsFile(tempDir(), withRoles()), ...databaseArgs('postgres')];
    const a = await startServer(args);
    servers.push(a);
    const b = await startServer(args);
    servers.push(b);
    const bob = { accessKeyId: 'AKIABOB0000000000002', secretAccessKey: 'bob-secret-access-key' };
    const issued = await sts(a.endpoint, bob, {
      Action: 'AssumeRole',
      RoleArn: `arn:aws:iam::${ACCOUNT}:role/runner`,
      RoleSessionName: 'replica',
    });
    assert.equal(issued.status, 200, issued.text);
    const field = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(issued.text)![1]!;
    const session = {
      accessKeyId: field('AccessKeyId'),
      secretAccessKey: field('SecretAccessKey'),
      sessionToken: field('SessionToken'),
    };
    assert.deepEqual((await listModels(b.endpoint, session)).Models, []);
    // The secret is derived, not stored: the database holds only the token's hash.
    const tampered = await sts(
      b.endpoint,
      { ...session, sessionToken: `${session.sessionToken}x` },
      { Action: 'GetCallerIdentity' },
    );
    assert.equal(tampered.status, 403);
    assert.match(tampered.text, /<Code>InvalidClientTokenId<\/Code>/);
  });
});

describe('STS on an open server', () => {
  let server: TestServer;
  after(() => server.close());

  test('GetCallerIdentity names the account; AssumeRole issues sessions that identify as the role', async () => {
    server = await startServer();
    const root = await sts(server.endpoint, CREDENTIALS, { Action: 'GetCallerIdentity' });
    assert.equal(root.status, 200);
    assert.match(
      root.text,
      new RegExp(
        `<GetCallerIdentityResult><UserId>${ACCOUNT}</UserId><Account>${ACCOUNT}</Account><Arn>arn:aws:iam::${ACCOUNT}:root</Arn>`,
      ),
    );
    const issued = await sts(server.endpoint, CREDENTIALS, {
      Action: 'AssumeRole',
      RoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
      RoleSessionName: 'notebook',
    });
    const field = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(issued.text)![1]!;
    const who = await sts(
      server.endpoint,
      { accessKeyId: field('AccessKeyId'), secretAccessKey: 'anything', sessionToken: field('SessionToken') },
      { Action: 'GetCallerIdentity' },
    );
    assert.match(who.text, new RegExp(`<Arn>arn:aws:sts::${ACCOUNT}:assumed-role/sm/notebook</Arn>`));
    // Unsigned, as curl sends it: the Version names the service.
    const unsigned = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    assert.match(
      await unsigned.text(),
      /<GetCallerIdentityResponse xmlns="https:\/\/sts.amazonaws.com\/doc\/2011-06-15\/">/,
    );
    const bad = await sts(server.endpoint, CREDENTIALS, {
      Action: 'AssumeRole',
      RoleArn: 'arn:aws:iam::1:user/x',
      RoleSessionName: 'notebook',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /<Code>ValidationError<\/Code>/);
    // A service this server does not serve answers as such (never as S3).
    const iam = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
      },
      body: 'Action=GetRole&RoleName=sm&Version=2010-05-08',
    });
    assert.equal(iam.status, 400);
    assert.match(await iam.text(), /<Code>InvalidAction<\/Code><Message>This server does not serve the iam API/);
  });
});
