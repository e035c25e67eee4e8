// Starting a server instance: a sandbox that bwrap could not finish setting up (its loopback, a
// netlink answer lost under load, after the sandbox was let go) is started again; a server that
// fails on its own is not.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { hostCaps, serverLimits } from '../../../sandbox/limits.js';
import { type ServerSpec, startUnsandboxedServer } from '../../../sandbox/sandbox.js';
import { ContainerFailure } from '../../failure.js';
import { startServerInstance } from './process-runtime.js';

const modelDir = mkdtempSync(join(tmpdir(), 'slipway-setup-retry-'));
after(() => rmSync(modelDir, { recursive: true, force: true }));
const host = hostCaps();
const spec: ServerSpec = {
  argv: ['node', resolve('test/fixtures/containers/echo-server.mjs')],
  modelDir,
  network: 'none',
  limits: serverLimits(256, host),
  env: ({ port, modelDir: dir }) => ({ SAGEMAKER_BIND_TO_PORT: String(port), SM_MODEL_DIR: dir }),
};
const options = { spec, memoryMB: 256, memoryPollMs: 100, startupTimeoutMs: 10_000 };
/** What bwrap writes and does when its loopback setup fails (seen in CI). */
const BWRAP_LOOPBACK = ['sh', '-c', 'echo "bwrap: loopback: Failed RTM_NEWADDR: No child processes" >&2; exit 1'];

/** A sandbox whose first `failing` starts run `argv` instead of the server. */
function sandboxFailing(failing: number, argv: string[]) {
  const s = {
    starts: 0,
    host,
    startServer: (sp: ServerSpec, port: number) =>
      startUnsandboxedServer(++s.starts <= failing ? { ...sp, argv } : sp, port),
  };
  return s;
}

test('a sandbox that bwrap could not finish setting up is started again, at most five times', async () => {
  const twice = sandboxFailing(2, BWRAP_LOOPBACK);
  const instance = await startServerInstance(twice, options);
  assert.equal(twice.starts, 3);
  const r = await instance.invoke({ body: Buffer.from('1.5'), contentType: 'text/csv' });
  assert.equal(Buffer.from(r.body).toString().trim(), '1.5');
  instance.kill('startup');

  const always = sandboxFailing(Number.POSITIVE_INFINITY, BWRAP_LOOPBACK);
  await assert.rejects(
    startServerInstance(always, options),
    (e: unknown) => e instanceof ContainerFailure && e.message.includes('bwrap: loopback: Failed'),
  );
  assert.equal(always.starts, 5);
});

test("a server's own failure to start is not retried", async () => {
  const own = sandboxFailing(Number.POSITIVE_INFINITY, ['sh', '-c', 'echo "no model here" >&2; exit 1']);
  await assert.rejects(
    startServerInstance(own, options),
    (e: unknown) => e instanceof ContainerFailure && e.message.includes('no model here'),
  );
  assert.equal(own.starts, 1);
});
