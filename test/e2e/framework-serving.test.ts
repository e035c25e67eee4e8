// Framework models through the real server and boto3, as the SageMaker Python SDK deploys them
// (test/e2e/boto3_framework_serving.py): scikit-learn (code repacked into model.tar.gz, or a
// sourcedir.tar.gz), XGBoost script mode, PyTorch when python3-torch is installed, a batch
// transform, and the sandbox keeping the user's code out of the data directory.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hasPythonModule, requirePythonModule, runPythonScript } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing =
  requirePythonModule('boto3', 'python3-boto3') ??
  requirePythonModule('sklearn', 'python3-sklearn') ??
  requirePythonModule('xgboost', 'python3-xgboost');
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server?.close());

test('boto3: SKLearnModel-style deploys (serverless), XGBoost script mode, PyTorch, batch transform, sandbox', {
  skip: missing,
}, async (t) => {
  const torch = hasPythonModule('torch');
  if (!torch)
    t.diagnostic('PyTorch part skipped: /usr/bin/python3 cannot import torch (apt-get install -y python3-torch)');
  const { code, out } = await runPythonScript([
    'test/e2e/boto3_framework_serving.py',
    server.endpoint,
    ACCOUNT,
    server.dataDir,
    torch ? '1' : '0',
  ]);
  assert.equal(code, 0, out);
  assert.match(out, /framework serving: ok/);
});
