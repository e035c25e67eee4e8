// Search through boto3 (Debian's python3-boto3) as the SageMaker Python SDK's ExperimentAnalytics
// uses it: the calls it makes and the fields of the answer it reads, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { python, requirePythonModule } from '../support/python.js';
import { ACCOUNT, databaseArgs, startServer } from '../support/server.js';

const missing = requirePythonModule('boto3', 'python3-boto3');

for (const dialect of ['sqlite', 'postgres'] as const) {
  test(`boto3: ExperimentAnalytics' Search calls and reads (${dialect})`, { skip: missing }, async () => {
    const server = await startServer(databaseArgs(dialect));
    try {
      // Run Python asynchronously: the in-process server must keep serving while it runs.
      const child = spawn(python(), ['test/e2e/boto3_search.py', server.endpoint, ACCOUNT], {
        env: { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null' },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      assert.equal(code, 0, out);
      assert.match(out, /boto3 search workflow: ok/);
    } finally {
      await server.close();
    }
  });
}
