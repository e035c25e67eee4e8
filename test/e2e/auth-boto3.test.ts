// boto3 (Debian's python3-boto3) against a server with a credentials file: test/e2e/auth_boto3.py.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { writeCredentialsFile } from '../support/credentials.js';
import { python, requirePythonModule } from '../support/python.js';
import { ACCOUNT, startServer, tempDir, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer(['--credentials-file', writeCredentialsFile(tempDir())]);
});
after(() => server.close());

test('boto3: good, wrong and unknown keys, IAM denials, presigned URLs', {
  skip: missing,
  timeout: 60_000,
}, async () => {
  const child = spawn(python(), ['test/e2e/auth_boto3.py', server.endpoint, ACCOUNT], {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /ok/);
});
