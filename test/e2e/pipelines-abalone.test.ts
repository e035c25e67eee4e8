// AWS's abalone pipeline (SKLearnProcessor preprocess, XGBoost training, ScriptProcessor evaluation
// with the XGBoost image and python3, a condition on the evaluation's JsonGet, register | fail),
// its definition as the SageMaker SDK wrote it, driven through boto3 (test/e2e/boto3_pipelines.py).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { rawAbaloneCsv } from '../support/abalone.js';
import { requirePythonModule, runPythonScript } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing =
  requirePythonModule('boto3', 'python3-boto3') ??
  requirePythonModule('sklearn', 'python3-sklearn') ??
  requirePythonModule('pandas', 'python3-pandas') ??
  requirePythonModule('xgboost', 'python3-xgboost');
let server: TestServer;
before(async () => {
  // Until script mode runs the framework images by itself, the containers file maps the
  // scikit-learn and XGBoost images to Debian's python3 (which has sklearn, pandas and xgboost).
  server = await startServer(['--containers-file', 'test/fixtures/pipelines/containers.json']);
});
after(() => server.close());

/** Batch input for the transform step: rows of the ten features the model was trained on. */
function batchCsv(rows: number): string {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const x = Array.from({ length: 7 }, (_, j) => (((i * 7 + j) % 13) / 6.5 - 1).toFixed(3));
    const sex = [0, 0, 0];
    sex[i % 3] = 1;
    lines.push([...x, ...sex].join(','));
  }
  return `${lines.join('\n')}\n`;
}

test('boto3: the abalone pipeline succeeds, registers, is cached, and fails through its FailStep', {
  skip: missing,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-pipelines-'));
  try {
    writeFileSync(join(dir, 'abalone.csv'), rawAbaloneCsv());
    writeFileSync(join(dir, 'batch.csv'), batchCsv(50));
    const { code, out } = await runPythonScript([
      'test/e2e/boto3_pipelines.py',
      server.endpoint,
      ACCOUNT,
      join(dir, 'abalone.csv'),
      join(dir, 'batch.csv'),
      'test/fixtures/pipelines/abalone',
    ]);
    assert.equal(code, 0, out);
    assert.match(out, /abalone pipeline: ok/);
    console.log(out.trim().split('\n').pop());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
