// The SageMaker Python SDK's own calls for its everyday flows (default bucket, Run and load_run,
// ExperimentAnalytics, TrainingJobAnalytics, lineage helpers), replayed with Debian's boto3 by
// test/e2e/boto3_sdk_workflow.py, where every call is listed with the SDK code that makes it.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { abaloneCsv } from '../support/abalone.js';
import { python, requirePythonModule } from '../support/python.js';
import { ACCOUNT, startServer, tempDir, type TestServer } from '../support/server.js';
import { spawn } from 'node:child_process';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('the SageMaker SDK workflow, call for call', { skip: missing, timeout: 120_000 }, async () => {
  const dir = tempDir();
  const csv = join(dir, 'train.csv');
  writeFileSync(csv, abaloneCsv(500));
  // Debian's botocore 1.29 has no sagemaker-metrics client: the vendored model (with its endpoint
  // rules) is offered alone, so the other services keep botocore's own models.
  const data = join(dir, 'aws-data');
  mkdirSync(data);
  symlinkSync(resolve('models/sagemaker-metrics'), join(data, 'sagemaker-metrics'));
  const child = spawn(python(), ['test/e2e/boto3_sdk_workflow.py', server.endpoint, ACCOUNT, csv], {
    env: {
      ...process.env,
      AWS_DATA_PATH: data,
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  assert.equal(code, 0, out);
  assert.match(out, /^ok$/m);
});
