// Answers as AWS answers them, through Debian's boto3 (test/e2e/boto3_aws_answers.py, issue 34);
// SigV2 presigned S3 URLs are in auth_boto3.py (they need a credentials file), the graph port's
// answer for openCypher and SPARQL in graph-loader.test.ts (boto3 1.26 has no neptunedata client).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { requirePythonModule, runPythonScript } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
const seed = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')).seedRow as { csv: string };
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('boto3: errors, ARNs, failed variants, weights and capacities, list order as AWS answers', {
  skip: missing,
  timeout: 120_000,
}, async () => {
  const { code, out } = await runPythonScript([
    'test/e2e/boto3_aws_answers.py',
    server.endpoint,
    ACCOUNT,
    'test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz',
    seed.csv,
  ]);
  assert.equal(code, 0, out);
  assert.match(out, /aws answers: ok/);
});
