// boto3 drives processing and batch transform jobs, with botocore's waiters (test/e2e/boto3_batch_jobs.py).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { abaloneCsv } from '../support/abalone.js';
import { requirePythonModule, runPythonScript } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer(['--containers-file', 'test/fixtures/containers/containers.json']);
});
after(() => server.close());

test('boto3: processing → training → batch transform, waiters, logs and lineage', { skip: missing }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-boto3-batch-'));
  try {
    writeFileSync(join(dir, 'abalone.csv'), abaloneCsv());
    const { code, out } = await runPythonScript([
      'test/e2e/boto3_batch_jobs.py',
      server.endpoint,
      ACCOUNT,
      join(dir, 'abalone.csv'),
    ]);
    assert.equal(code, 0, out);
    assert.match(out, /batch jobs: ok/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
