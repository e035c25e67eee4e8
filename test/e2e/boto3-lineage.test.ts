// boto3 (Debian's python3-boto3) drives every lineage operation: proof that a second real AWS
// client, with the lineage export notebook's retry settings, works unchanged against Slipway.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { python, requirePythonModule } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('boto3: lineage entities, associations, QueryLineage, experiments, paginators and errors', {
  skip: missing,
}, async () => {
  // Run Python asynchronously: the in-process server must keep serving while it runs.
  const child = spawn(python(), ['test/e2e/boto3_lineage.py', server.endpoint, ACCOUNT], {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /boto3 lineage workflow: ok/);
});
