// Script mode (issue 30) with boto3, as the SageMaker Python SDK calls it: scikit-learn, XGBoost and
// PyTorch training scripts from sourcedir.tar.gz, SKLearnProcessor / ScriptProcessor /
// FrameworkProcessor, and the failures users meet (test/e2e/boto3_script_mode.py).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { abaloneCsv } from '../support/abalone.js';
import { hasPythonModule, requirePythonModule, runPythonScript } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing =
  requirePythonModule('boto3', 'python3-boto3') ??
  requirePythonModule('sklearn', 'python3-sklearn') ??
  requirePythonModule('xgboost', 'python3-xgboost') ??
  requirePythonModule('pandas', 'python3-pandas');
const torch = hasPythonModule('torch');
if (!torch) console.log('# PyTorch script mode skipped: /usr/bin/python3 has no torch (Debian: python3-torch)');
let server: TestServer;
before(async () => {
  server = await startServer([]);
});
after(() => server.close());

test("script mode: the SDK's estimators and processors run users' scripts; their mistakes fail as SageMaker words them", {
  skip: missing,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-script-mode-'));
  try {
    writeFileSync(join(dir, 'abalone.csv'), abaloneCsv());
    const { code, out } = await runPythonScript([
      'test/e2e/boto3_script_mode.py',
      server.endpoint,
      ACCOUNT,
      join(dir, 'abalone.csv'),
      'test/fixtures/script-mode',
      ...(torch ? ['torch'] : []),
    ]);
    assert.equal(code, 0, out);
    assert.match(out, /sklearn estimator: ok/);
    assert.match(out, /xgboost script mode: ok/);
    assert.match(out, /failures: ok/);
    assert.match(out, /processing: ok/);
    if (torch) assert.match(out, /pytorch estimator: ok/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
