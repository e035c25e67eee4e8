// The inference engine end to end without HTTP: XGBoost deployments, scale to zero and cold starts,
// artifact checks, runtime choice, metrics and an UpdateEndpoint-style swap.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ModelError } from '../generated/sagemaker-runtime/errors.js';
import { DeploymentError } from './engine.js';
import { TIMEOUT_MESSAGE } from './errors.js';
import {
  ABALONE_PREDICTION,
  ABALONE_ROW,
  body,
  fixture,
  harness,
  metric,
  sleep,
  text,
  variant,
  XGB_IMAGE,
} from './testing/helpers.js';
import { misbehavingProvider } from './testing/misbehaving-model.js';
import { makeTarGz } from './testing/tar.js';

describe('XGBoost deployments', () => {
  const h = harness({ idleSeconds: 0.3 });
  after(() => h.close());

  it('deploys the abalone model and answers the notebook request', async () => {
    await h.blobs.put('s3://bucket/abalone/model.tar.gz', fixture('xgboost/models/abalone.pkl3-cfgoffset.tar.gz'));
    const spec = variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/abalone/model.tar.gz' }, {}, 'abalone');
    const v = await h.engine.deploy(spec);
    assert.deepEqual(
      v.deployedImages.map((d) => d.specifiedImage),
      [XGB_IMAGE],
    );
    const r = await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' });
    assert.equal(text(r.body), ABALONE_PREDICTION);
    assert.equal(r.contentType, 'text/csv');
    await v.stop();
  });

  it('scales to zero when idle; the next request is a cold start visible in ModelSetupTime', async () => {
    await h.blobs.put('s3://bucket/abalone/json.tar.gz', fixture('xgboost/models/abalone.json.tar.gz'));
    const v = await h.engine.deploy(
      variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/abalone/json.tar.gz' }, {}, 'cold'),
    );
    const labels = { endpoint: 'cold', variant: 'AllTraffic' };
    // Deployment proves the model loads but keeps nothing warm.
    assert.equal(metric(h.engine.metrics(), 'slipway_workers', { ...labels, state: 'idle' }), 0);
    // No cold start yet: the histogram has no series until its first observation.
    assert.equal(metric(h.engine.metrics(), 'slipway_model_setup_time_seconds_count', labels), undefined);
    await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' });
    await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' });
    assert.equal(metric(h.engine.metrics(), 'slipway_model_setup_time_seconds_count', labels), 1);
    assert.equal(metric(h.engine.metrics(), 'slipway_workers', { ...labels, state: 'idle' }), 1);
    await sleep(800); // idle period 300 ms, with room for a busy machine
    assert.equal(metric(h.engine.metrics(), 'slipway_workers', { ...labels, state: 'idle' }), 0, 'scaled to zero');
    const r = await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' });
    assert.equal(text(r.body), ABALONE_PREDICTION);
    const m = h.engine.metrics();
    assert.equal(metric(m, 'slipway_model_setup_time_seconds_count', labels), 2, 'a second cold start');
    assert.equal(metric(m, 'slipway_invocations_total', labels), 3);
    assert.ok(metric(m, 'slipway_model_setup_time_seconds_sum', labels)! > 0);
    await v.stop();
  });

  it('keeps ProvisionedConcurrency warm through idle periods', async () => {
    const v = await h.engine.deploy(
      variant(
        { image: XGB_IMAGE, modelDataUrl: 's3://bucket/abalone/model.tar.gz' },
        { provisionedConcurrency: 1 },
        'provisioned',
      ),
    );
    await sleep(400);
    await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' });
    assert.equal(
      metric(h.engine.metrics(), 'slipway_model_setup_time_seconds_count', { endpoint: 'provisioned' }),
      undefined,
      'no cold start',
    );
    await v.stop();
  });

  it('answers the container version formats and its client errors as ModelError', async () => {
    const v = await h.engine.deploy(
      variant({
        image: '246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.7-1',
        modelDataUrl: 's3://bucket/abalone/model.tar.gz',
      }),
    );
    const two = `${ABALONE_ROW}\n${ABALONE_ROW}`;
    assert.equal(
      text((await v.invoke({ body: body(two), contentType: 'text/csv' })).body),
      `${ABALONE_PREDICTION}\n`.repeat(2),
    );
    const json = await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv', accept: 'application/json' });
    assert.equal(text(json.body), `{"predictions": [{"score": ${ABALONE_PREDICTION}}]}`);
    await assert.rejects(
      v.invoke({ body: body(ABALONE_ROW), contentType: 'application/x-image' }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.httpStatus === 424 &&
        e.message.startsWith('Received client error (415) from primary with message "application/x-image is not') &&
        (e.extraFields() as { OriginalStatusCode: number }).OriginalStatusCode === 415,
    );
    await v.stop();
  });

  it('serves the older xgboost repository name', async () => {
    const v = await h.engine.deploy(
      variant({
        image: '811284229777.dkr.ecr.us-east-1.amazonaws.com/xgboost:1',
        modelDataUrl: 's3://bucket/abalone/model.tar.gz',
      }),
    );
    assert.equal(text((await v.invoke({ body: body(ABALONE_ROW), contentType: 'text/csv' })).body), ABALONE_PREDICTION);
    await v.stop();
  });

  it('runs large batches in a worker thread with the same predictions', async () => {
    const v = await h.engine.deploy(variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/abalone/model.tar.gz' }));
    const rows = Array(3000).fill(ABALONE_ROW).join('\n');
    const before = h.engine.threadCount;
    const r = await v.invoke({ body: body(rows), contentType: 'text/csv' });
    assert.equal(text(r.body), Array(3000).fill(ABALONE_PREDICTION).join(','));
    assert.ok(h.engine.threadCount > before, 'a worker thread answered');
    await v.stop();
  });
});

describe('XGBoost models too big for the event loop', () => {
  const h = harness();
  after(() => h.close());

  it('serves a model over 128 KiB (900 KB) from worker threads, with xgboost’s predictions', async () => {
    await h.blobs.put('s3://bucket/large.tar.gz', fixture('xgboost/models/large.ubj.tar.gz'));
    const before = h.engine.threadCount;
    const v = await h.engine.deploy(
      variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/large.tar.gz' }, {}, 'large'),
    );
    const data = JSON.parse(fixture('xgboost/data/eight.json').toString()) as { rows: (number | null)[][] };
    const ref = JSON.parse(fixture('xgboost/ref/large.json').toString()) as { predictions: number[] };
    const csv = data.rows.map((r) => r.map((x) => (x === null ? '' : String(x))).join(',')).join('\n');
    const r = await v.invoke({ body: body(csv), contentType: 'text/csv' });
    assert.ok(h.engine.threadCount > before, 'worker threads load and run it');
    const got = text(r.body).split(',').map(Number);
    assert.equal(got.length, ref.predictions.length);
    for (const [i, g] of got.entries()) {
      assert.ok(Math.abs(g - ref.predictions[i]!) <= 1e-6 * Math.max(1, Math.abs(ref.predictions[i]!)));
    }
    // one row is also answered by the warm worker thread
    const one = await v.invoke({ body: body(csv.split('\n')[0]!), contentType: 'text/csv' });
    assert.equal(Number(text(one.body)), got[0]);
    await v.stop();
  });
});

describe('deployment failures', () => {
  const h = harness();
  after(() => h.close());

  it('fails with a clear reason when no runtime can run the image', async () => {
    await assert.rejects(
      h.engine.deploy(variant({ image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model:latest' })),
      (e: unknown) =>
        e instanceof DeploymentError &&
        /^Image "123456789012\.dkr\.ecr\.us-east-1\.amazonaws\.com\/my-model:latest" cannot be run: no runtime serves it/.test(
          e.message,
        ),
    );
  });

  it('fails when the model data does not exist', async () => {
    await assert.rejects(
      h.engine.deploy(variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/missing.tar.gz' })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('s3://bucket/missing.tar.gz'),
    );
  });

  it('refuses archives that escape the model directory, bombs and non-archives', async () => {
    await h.blobs.put('s3://bucket/escape.tar.gz', makeTarGz([{ path: '../../etc/evil', data: 'x' }]));
    await h.blobs.put(
      's3://bucket/bomb.tar.gz',
      makeTarGz([{ path: 'xgboost-model', data: Buffer.alloc(64 * 1024 * 1024) }]),
    );
    await h.blobs.put('s3://bucket/plain.txt', 'hello, not an archive');
    for (const [uri, pattern] of [
      ['s3://bucket/escape.tar.gz', /escapes the root/],
      ['s3://bucket/bomb.tar.gz', /ratio|decompresses/],
      ['s3://bucket/plain.txt', /valid tar\.gz archive/],
    ] as const) {
      await assert.rejects(
        h.engine.deploy(variant({ image: XGB_IMAGE, modelDataUrl: uri })),
        (e: unknown) => e instanceof DeploymentError && pattern.test(e.message) && e.message.length <= 1024,
        uri,
      );
    }
    assert.ok(!existsSync(join(h.dataDir, '..', 'etc', 'evil')));
  });

  it('fails when the model file cannot be loaded', async () => {
    await h.blobs.put('s3://bucket/garbage.tar.gz', makeTarGz([{ path: 'xgboost-model', data: 'not a model at all' }]));
    await assert.rejects(
      h.engine.deploy(variant({ image: XGB_IMAGE, modelDataUrl: 's3://bucket/garbage.tar.gz' })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('could not be loaded'),
    );
  });

  it('does not create symlinks from the archive', async () => {
    await h.blobs.put(
      's3://bucket/links.tar.gz',
      makeTarGz([
        { path: 'l1', type: 'symlink', linkTarget: '.' },
        { path: 'l1/l2', type: 'symlink', linkTarget: '..' },
        { path: 'data.txt', data: 'x' },
      ]),
    );
    const v = await h.engine
      .deploy(variant({ image: 'x/slipway-misbehaving:v1', modelDataUrl: 's3://bucket/links.tar.gz' }))
      .catch((e: unknown) => e);
    // misbehaving is not registered in this harness: the image cannot run, but the archive was unpacked
    assert.ok(v instanceof DeploymentError);
    const dirs = readdirSync(join(h.dataDir, 'models')).filter((d) => /^[0-9a-f]{64}$/.test(d));
    for (const d of dirs) {
      const files = readdirSync(join(h.dataDir, 'models', d, 'model'));
      assert.ok(!files.includes('l1'), 'no link was created');
    }
  });
});

describe('artifact cache', () => {
  const h = harness();
  after(() => h.close());

  it('stores identical artifacts once and skips the download of an unchanged object', async () => {
    const bytes = fixture('xgboost/models/abalone.ubj.tar.gz');
    await h.blobs.put('s3://a/one.tar.gz', bytes);
    await h.blobs.put('s3://b/two.tar.gz', bytes);
    const spec = (uri: string) => variant({ image: XGB_IMAGE, modelDataUrl: uri });
    await (await h.engine.deploy(spec('s3://a/one.tar.gz'))).stop();
    await (await h.engine.deploy(spec('s3://b/two.tar.gz'))).stop();
    const gets = h.blobs.gets;
    await (await h.engine.deploy(spec('s3://a/one.tar.gz'))).stop();
    assert.equal(h.blobs.gets, gets, 'no download for an unchanged object');
    const digests = readdirSync(join(h.dataDir, 'models')).filter((d) => /^[0-9a-f]{64}$/.test(d));
    assert.equal(digests.length, 1);
  });
});

describe('misbehaving models in worker threads', () => {
  const h = harness({ idleSeconds: 5, invocationTimeoutMs: 400, extraRuntimes: [misbehavingProvider] });
  after(() => h.close());
  const image = '1.dkr.ecr.us-east-1.amazonaws.com/slipway-misbehaving:v1';

  it('enforces MaxConcurrency exactly: 10 concurrent slow requests with MaxConcurrency 2 → 2 run, 8 throttled', async () => {
    const v = await h.engine.deploy(variant({ image }, { maxConcurrency: 2 }, 'throttle'));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => v.invoke({ body: body('sleep:200'), contentType: 'text/plain' })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const throttled = results.filter(
      (r) =>
        r.status === 'rejected' &&
        (r.reason as { code?: string }).code === 'ThrottlingException' &&
        (r.reason as { httpStatus?: number }).httpStatus === 429,
    );
    assert.equal(ok.length, 2);
    assert.equal(throttled.length, 8);
    assert.equal(metric(h.engine.metrics(), 'slipway_throttled_invocations_total', { endpoint: 'throttle' }), 8);
    // capacity comes back once the two finish
    assert.equal(text((await v.invoke({ body: body('hi') })).body), 'v1:hi');
    await v.stop();
  });

  it('replaces a worker that crashes and keeps serving', async () => {
    const v = await h.engine.deploy(variant({ image }, {}, 'crash'));
    await assert.rejects(
      v.invoke({ body: body('crash') }),
      (e: unknown) =>
        e instanceof ModelError &&
        /^Received server error \(500\) from primary with message "The model worker crashed/.test(e.message),
    );
    assert.equal(text((await v.invoke({ body: body('after') })).body), 'v1:after');
    const m = h.engine.metrics();
    assert.equal(metric(m, 'slipway_worker_failures_total', { endpoint: 'crash', reason: 'crash' }), 1);
    assert.equal(metric(m, 'slipway_invocation_5xx_errors_total', { endpoint: 'crash' }), 1);
    await v.stop();
  });

  it('times out a hanging model with SageMaker’s message, kills the worker and keeps serving', async () => {
    const v = await h.engine.deploy(variant({ image }, {}, 'hang'));
    const t0 = Date.now();
    await assert.rejects(v.invoke({ body: body('hang') }), (e: unknown) => {
      assert.ok(e instanceof ModelError);
      assert.equal(e.message, `Received server error (0) from primary with message "${TIMEOUT_MESSAGE}".`);
      assert.equal((e.extraFields() as { OriginalStatusCode: number }).OriginalStatusCode, 0);
      return true;
    });
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(text((await v.invoke({ body: body('next') })).body), 'v1:next');
    assert.equal(
      metric(h.engine.metrics(), 'slipway_worker_failures_total', { endpoint: 'hang', reason: 'timeout' }),
      1,
    );
    await v.stop();
  });

  it('kills only the worker that goes over MemorySizeInMB and answers ModelError', async () => {
    // its own engine: collecting garbage near the limit can take longer than the suite's 400 ms timeout
    const h = harness({ invocationTimeoutMs: 10_000, extraRuntimes: [misbehavingProvider] });
    after(() => h.close());
    const v = await h.engine.deploy(variant({ image }, { memorySizeInMB: 64 }, 'oom'));
    const other = await h.engine.deploy(variant({ image }, {}, 'neighbour'));
    const slow = other.invoke({ body: body('sleep:300') });
    await assert.rejects(
      v.invoke({ body: body('oom') }),
      (e: unknown) => e instanceof ModelError && e.message.includes('exceeded its memory limit (MemorySizeInMB=64)'),
    );
    assert.equal(text((await slow).body), 'v1:sleep:300', 'the other endpoint was not disturbed');
    assert.equal(text((await v.invoke({ body: body('fine') })).body), 'v1:fine');
    assert.equal(metric(h.engine.metrics(), 'slipway_worker_failures_total', { endpoint: 'oom', reason: 'memory' }), 1);
    await v.stop();
    await other.stop();
  });

  it('swaps models without a failed request (deploy new, switch, stop old)', async () => {
    let current = await h.engine.deploy(variant({ image }, { maxConcurrency: 50 }, 'swap'));
    let stop = false;
    const seen = new Set<string>();
    let failures = 0;
    const client = async () => {
      while (!stop) {
        try {
          seen.add(text((await current.invoke({ body: body('sleep:5') })).body).split(':')[0]!);
        } catch {
          failures++;
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await sleep(100);
    const next = await h.engine.deploy(variant({ image: image.replace(':v1', ':v2') }, { maxConcurrency: 50 }, 'swap'));
    const old = current;
    current = next;
    await old.stop();
    await sleep(100);
    stop = true;
    await Promise.all(clients);
    assert.equal(failures, 0);
    assert.deepEqual([...seen].sort(), ['v1', 'v2']);
    assert.ok(metric(h.engine.metrics(), 'slipway_invocations_total', { endpoint: 'swap' })! > 0, 'series kept');
    await next.stop();
    assert.equal(metric(h.engine.metrics(), 'slipway_invocations_total', { endpoint: 'swap' }), undefined);
  });

  it('fails the deployment when the model does not load', async () => {
    await assert.rejects(
      h.engine.deploy(variant({ image, environment: { FAIL_LOAD: '1' } })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('this model refuses to load'),
    );
  });

  it('answers a container error status as a client error', async () => {
    const v = await h.engine.deploy(variant({ image }));
    await assert.rejects(
      v.invoke({ body: body('fail:400') }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message === 'Received client error (400) from primary with message "failure requested".',
    );
    await v.stop();
  });
});
