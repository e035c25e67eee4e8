// The `process` runtime: a custom image mapped by the containers file to a local Node script that
// speaks SageMaker's container contract (test/fixtures/containers/echo-server.mjs).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ModelError } from '../../../generated/sagemaker-runtime/errors.js';
import { DeploymentError } from '../../engine.js';
import { TIMEOUT_MESSAGE } from '../../errors.js';
import { body, FIXTURES, harness, metric, text, variant } from '../../testing/helpers.js';
import { makeTarGz } from '../../testing/tar.js';
import { findContainerEntry, parseContainersFile } from './containers-file.js';

const IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/slipway-test-echo:1.0';

describe('process runtime', () => {
  const h = harness({
    containerConfigPath: join(FIXTURES, 'containers', 'containers.json'),
    invocationTimeoutMs: 500,
    memoryPollMs: 50,
  });
  after(() => h.close());

  it('runs the command with the model directory, forwards headers and answers', async () => {
    await h.blobs.put('s3://m/scale.tar.gz', makeTarGz([{ path: 'scale.txt', data: '3' }]));
    const v = await h.engine.deploy(variant({ image: IMAGE, modelDataUrl: 's3://m/scale.tar.gz' }, {}, 'echo'));
    const r = await v.invoke({ body: body('1,2.5'), contentType: 'text/csv', customAttributes: 'trace=abc' });
    assert.equal(text(r.body), '3,7.5');
    assert.equal(r.contentType, 'text/csv');
    assert.equal(r.customAttributes, 'trace=abc');
    await assert.rejects(
      v.invoke({ body: body('fail:404') }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message === 'Received client error (404) from primary with message "failure requested".',
    );
    await assert.rejects(
      v.invoke({ body: body('fail:503') }),
      (e: unknown) => e instanceof ModelError && e.message.startsWith('Received server error (503)'),
    );
    const m = h.engine.metrics();
    assert.equal(metric(m, 'slipway_invocation_4xx_errors_total', { endpoint: 'echo' }), 1);
    assert.equal(metric(m, 'slipway_invocation_5xx_errors_total', { endpoint: 'echo' }), 1);
    await v.stop();
  });

  it('replaces a container that crashes or hangs; the endpoint keeps serving', async () => {
    const v = await h.engine.deploy(variant({ image: IMAGE }, {}, 'proc-faults'));
    await assert.rejects(
      v.invoke({ body: body('crash') }),
      (e: unknown) => e instanceof ModelError && e.message.includes('exited with code 3'),
    );
    assert.equal(text((await v.invoke({ body: body('2') })).body), '2');
    await assert.rejects(
      v.invoke({ body: body('hang') }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message === `Received server error (0) from primary with message "${TIMEOUT_MESSAGE}".`,
    );
    assert.equal(text((await v.invoke({ body: body('4') })).body), '4');
    const m = h.engine.metrics();
    assert.equal(metric(m, 'slipway_worker_failures_total', { endpoint: 'proc-faults', reason: 'crash' }), 1);
    assert.equal(metric(m, 'slipway_worker_failures_total', { endpoint: 'proc-faults', reason: 'timeout' }), 1);
    await v.stop();
  });

  it('kills a container that goes over MemorySizeInMB and answers ModelError', async () => {
    // its own engine: filling 300 MB on a busy machine can outlast the suite's 500 ms timeout
    const h = harness({
      containerConfigPath: join(FIXTURES, 'containers', 'containers.json'),
      invocationTimeoutMs: 20_000,
      memoryPollMs: 50,
    });
    after(() => h.close());
    const v = await h.engine.deploy(variant({ image: IMAGE }, { memorySizeInMB: 128 }, 'proc-oom'));
    await assert.rejects(
      v.invoke({ body: body('alloc:300') }),
      (e: unknown) => e instanceof ModelError && e.message.includes('exceeded its memory limit (MemorySizeInMB=128)'),
    );
    assert.equal(text((await v.invoke({ body: body('5') })).body), '5');
    assert.equal(
      metric(h.engine.metrics(), 'slipway_worker_failures_total', { endpoint: 'proc-oom', reason: 'memory' }),
      1,
    );
    await v.stop();
  });

  it('fails the deployment of a command that does not start or does not answer /ping', async () => {
    await assert.rejects(
      h.engine.deploy(variant({ image: 'acct/slipway-test-broken:1' })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('exited with code 1'),
    );
    await assert.rejects(
      h.engine.deploy(variant({ image: 'acct/slipway-test-slow-start:1' })),
      (e: unknown) =>
        e instanceof DeploymentError &&
        e.message.includes('did not answer GET /ping with 200 within 0.5 s') &&
        // What it printed while it was not ready.
        e.message.includes('Its last output: echo-server: warming up for 60000 ms'),
    );
  });
});

describe('containers file', () => {
  it('matches exact images before globs, longest glob first, and resolves cwd from the file', () => {
    const f = parseContainersFile(
      '/etc/slipway/containers.json',
      JSON.stringify({
        images: {
          '*': { command: ['a'] },
          '*/team/*': { command: ['b'], cwd: 'team' },
          'r/team/model:1': { command: ['c'] },
        },
      }),
    );
    assert.equal(findContainerEntry(f, 'r/team/model:1')?.command[0], 'c');
    assert.equal(findContainerEntry(f, 'r/team/model:2')?.command[0], 'b');
    assert.equal(findContainerEntry(f, 'r/team/model:2')?.cwd, '/etc/slipway/team');
    assert.equal(findContainerEntry(f, 'other')?.command[0], 'a');
  });

  it('explains what is wrong with an invalid file', () => {
    assert.throws(() => parseContainersFile('c.json', '{"images": {"x": {}}}'), /entry "x": command is required/);
    assert.throws(() => parseContainersFile('c.json', '[]'), /expected \{"images"/);
  });

  it('applies edits to the next deployment', async () => {
    const h = harness();
    const path = join(h.dataDir, 'containers.json');
    writeFileSync(path, '{"images": {}}');
    const h2 = harness({ containerConfigPath: path });
    await assert.rejects(h2.engine.deploy(variant({ image: 'acct/late:1' })), DeploymentError);
    writeFileSync(
      path,
      JSON.stringify({
        images: { 'acct/late:1': { command: ['node', join(FIXTURES, 'containers', 'echo-server.mjs')] } },
      }),
    );
    const v = await h2.engine.deploy(variant({ image: 'acct/late:1' }));
    assert.equal(text((await v.invoke({ body: body('1') })).body), '1');
    await h2.close();
    await h.close();
  });
});
