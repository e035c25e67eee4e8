// boto3 (Debian's python3-boto3) drives the same operations as the JS SDK tests: proof that a
// second real AWS client works unchanged against Slipway.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { abaloneCsv } from '../support/abalone.js';
import { python, requirePythonModule } from '../support/python.js';
import { ACCOUNT, startServer, type TestServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');
let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** Runs a Python script asynchronously: the in-process server must keep serving while it runs. */
async function runPython(args: string[]): Promise<string> {
  const child = spawn(python(), args, {
    env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  return out;
}

test('boto3: model package groups, pagination, tags and errors', { skip: missing }, async () => {
  const out = await runPython(['test/e2e/boto3_model_package_groups.py', server.endpoint, ACCOUNT]);
  assert.match(out, /ok/);
});

test('boto3: the seed workflow, from upload_file to invoke_endpoint and cleanup', { skip: missing }, async () => {
  const seed = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')).seedRow as {
    prediction: number;
  };
  const out = await runPython([
    'test/e2e/boto3_seed_workflow.py',
    server.endpoint,
    ACCOUNT,
    'test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz',
    String(seed.prediction),
  ]);
  assert.match(out, /seed workflow: ok/);
});

test('boto3: the whole loop, upload CSV → train → register → deploy → invoke → logs → lineage', {
  skip: missing,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-boto3-'));
  try {
    writeFileSync(join(dir, 'abalone.csv'), abaloneCsv());
    const out = await runPython([
      'test/e2e/boto3_training_loop.py',
      server.endpoint,
      ACCOUNT,
      join(dir, 'abalone.csv'),
    ]);
    assert.match(out, /training loop: ok/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
