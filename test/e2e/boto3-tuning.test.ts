// The SageMaker Python SDK's HyperparameterTuner workflow (Bayesian tuning of the built-in XGBoost,
// best job, analytics, attach, deploy and predict), its calls driven through Debian's boto3
// (test/e2e/boto3_tuning.py).
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
  server = await startServer();
});
after(() => server.close());

test('boto3: the SDK tuner’s calls — tune, best job, analytics, deploy the best model and invoke', {
  skip: missing,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-boto3-tuning-'));
  try {
    const rows = abaloneCsv().trim().split('\n');
    writeFileSync(join(dir, 'train.csv'), `${rows.slice(0, 3000).join('\n')}\n`);
    writeFileSync(join(dir, 'validation.csv'), `${rows.slice(3000).join('\n')}\n`);
    const { code, out } = await runPythonScript([
      'test/e2e/boto3_tuning.py',
      server.endpoint,
      ACCOUNT,
      join(dir, 'train.csv'),
      join(dir, 'validation.csv'),
    ]);
    assert.equal(code, 0, out);
    assert.match(out, /tuning with boto3: ok/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
