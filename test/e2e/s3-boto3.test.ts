// boto3 (Debian's python3-boto3) against the embedded S3 API: upload_file/download_file of 100 MiB
// (multipart), paginated listings, ranges and errors, from test/e2e/s3_boto3.py.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { python, requirePythonModule } from '../support/python.js';
import { startServer, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('boto3: upload_file/download_file 100 MiB multipart, listings, ranges, errors', {
  skip: missing,
  timeout: 120_000,
}, async () => {
  // Asynchronous spawn: the in-process server must keep serving while Python runs.
  const child = spawn(python(), ['test/e2e/s3_boto3.py', server.endpoint], {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /ok/);
});
