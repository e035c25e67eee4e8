// The framework runtime through createInferenceEngine: a real scikit-learn model served by the
// user's inference.py with the inference toolkit's contract (the Debian python3 with sklearn; the
// tests skip without it on a developer's machine and fail in CI).

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { ModelError } from '../../../generated/sagemaker-runtime/errors.js';
import { DeploymentError } from '../../engine.js';
import { body, harness, metric, sleep, text, variant } from '../../testing/helpers.js';
import { makeTarGz } from '../../testing/tar.js';
import {
  dirEntries,
  frameworkMissing,
  makeModel,
  PYTORCH_IMAGE,
  SKLEARN_IMAGE,
  SKLEARN_INFERENCE,
  XGBOOST_IMAGE,
} from './test-support.js';

const skip = frameworkMissing('sklearn', 'python3-sklearn');
const env = { SAGEMAKER_PROGRAM: 'inference.py', SAGEMAKER_SUBMIT_DIRECTORY: '/opt/ml/model/code' };

describe('framework runtime (scikit-learn)', { skip }, () => {
  // Workers poll for their next request (--worker-poll-us 300): every test here runs that way.
  const h = harness({ invocationTimeoutMs: 20_000, memoryPollMs: 50, workerPollMicros: 300 });
  let modelDir = '';
  let n = 0;
  const put = async (code: Record<string, string>, extra: { path: string; data: string }[] = [], blobs = h.blobs) => {
    const uri = `s3://m/sk-${++n}.tar.gz`;
    await blobs.put(
      uri,
      makeTarGz([
        ...dirEntries(modelDir),
        ...Object.entries(code).map(([path, data]) => ({ path: `code/${path}`, data })),
        ...extra,
      ]),
    );
    return uri;
  };
  before(() => {
    modelDir = makeModel('sklearn');
  });
  after(async () => {
    await h.close();
    rmSync(modelDir, { recursive: true, force: true });
  });

  it('serves model_fn with the default CSV, JSON and NPY handlers; Accept honoured', async () => {
    const uri = await put({ 'inference.py': SKLEARN_INFERENCE });
    const v = await h.engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: uri, environment: env }));
    // y = 1.5 x0 - 2 x1 + 3
    const csv = await v.invoke({ body: body('1,2\n3,4'), contentType: 'text/csv', accept: 'text/csv' });
    assert.deepEqual(
      text(csv.body)
        .trim()
        .split('\n')
        .map((x) => Math.round(Number(x)) + 0),
      [1, 0],
    );
    assert.equal(csv.contentType, 'text/csv');
    const listed = await v.invoke({
      body: body('0,0'),
      contentType: 'text/csv',
      accept: 'application/x-foo, text/csv',
    });
    assert.equal(listed.contentType, 'text/csv');
    assert.equal(Math.round(Number(text(listed.body))), 3);
    const json = await v.invoke({ body: body('[[2,1]]'), contentType: 'application/json' });
    assert.equal(json.contentType, 'application/json');
    assert.equal(Math.round((JSON.parse(text(json.body)) as number[])[0]! * 1000), 4000);
    // NPY in (a float64 array of shape (1, 2): [[0, 0]]) and out.
    const npyIn = npy([0, 0]);
    const out = await v.invoke({ body: npyIn, contentType: 'application/x-npy', accept: 'application/x-npy' });
    assert.equal(out.contentType, 'application/x-npy');
    assert.ok(Buffer.from(out.body).subarray(0, 6).equals(Buffer.from('\x93NUMPY', 'latin1')));
    await assert.rejects(
      v.invoke({ body: body('x'), contentType: 'image/png' }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message.startsWith(
          'Received client error (415) from primary with message "Content type image/png is not supported by this framework.',
        ),
    );
    await assert.rejects(
      v.invoke({ body: body('1,2'), contentType: 'text/csv', accept: 'application/x-protobuf' }),
      (e: unknown) =>
        e instanceof ModelError && e.message.includes('Content type application/x-protobuf is not supported'),
    );
    await v.stop();
  });

  it('a body of a megabyte reaches the worker whole, and the request after it is framed right', async () => {
    // 300,001 CSV rows (≈ 1.2 MB): past the 16 KiB frame the server writes in one piece, the 64 KiB
    // the worker reads at a time and what the socket holds, so the worker reads it as it comes.
    const uri = await put({ 'inference.py': SKLEARN_INFERENCE });
    const v = await h.engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: uri, environment: env }));
    const big = await v.invoke({
      body: body(`${'0,0\n'.repeat(300000)}2,1`),
      contentType: 'text/csv',
      accept: 'text/csv',
    });
    const lines = text(big.body).trim().split('\n');
    assert.equal(lines.length, 300001);
    assert.equal(Math.round(Number(lines[0])), 3);
    assert.equal(Math.round(Number(lines[300000])), 4);
    const next = await v.invoke({ body: body('2,1'), contentType: 'text/csv', accept: 'text/csv' });
    assert.equal(Math.round(Number(text(next.body))), 4);
    await v.stop();
  });

  it('a polling worker gets --worker-poll-us and answers dense and sparse requests alike', async () => {
    const uri = await put({
      'inference.py': `${SKLEARN_INFERENCE}

def output_fn(prediction, accept):
    return "%s,%s" % (prediction[0], os.environ.get("SLIPWAY_WORKER_POLL_US", "unset"))
`,
    });
    const v = await h.engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: uri, environment: env }));
    const ask = async (x: number) => {
      const r = await v.invoke({ body: body(`${x},0`), contentType: 'text/csv', accept: 'text/csv' });
      const [y, poll] = text(r.body).split(',');
      return { y: Math.round(Number(y) * 2) / 2, poll };
    };
    // y = 1.5 x0 + 3: back to back (the worker finds each request by polling), then 5 ms apart
    // (it gives polling up and sleeps), then from three connections at once.
    for (let i = 0; i < 300; i++) assert.deepEqual(await ask(i), { y: 1.5 * i + 3, poll: '300' });
    for (let i = 0; i < 20; i++) {
      await sleep(5);
      assert.deepEqual(await ask(i), { y: 1.5 * i + 3, poll: '300' });
    }
    // Three workers side by side, each polling for its own next request.
    const loops = await Promise.all(
      [0, 1, 2].map(async (k) => {
        const ys: number[] = [];
        for (let i = 0; i < 40; i++) ys.push((await ask(100 * k + i)).y);
        return ys;
      }),
    );
    assert.deepEqual(
      loops,
      [0, 1, 2].map((k) => Array.from({ length: 40 }, (_, i) => 1.5 * (100 * k + i) + 3)),
    );
    const t0 = performance.now();
    await v.stop();
    assert.ok(performance.now() - t0 < 5000, 'a polling worker still stops when its input ends');
  });

  it('--invoke-poll-us reaches the worker’s channel: the loop turns while an answer within the window is due', async () => {
    // A model that answers in ~30 ms: with a 60 ms window the engine's loop keeps turning until
    // each answer; with the default (400 µs) it sleeps through it. Read off the loop's utilization.
    const slow = `${SKLEARN_INFERENCE}
import time

def predict_fn(data, model):
    time.sleep(0.03)
    return model.predict(data)
`;
    // A machine busy with other tests turns polling off (the cores are contended): not here.
    const polling = harness({
      invocationTimeoutMs: 20_000,
      memoryPollMs: 50,
      invokePollMicros: 60_000,
      runDelay: () => 0,
    });
    try {
      const busy = async (engine: typeof h.engine, uri: string) => {
        const v = await engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: uri, environment: env }));
        const ask = () => v.invoke({ body: body('1,0'), contentType: 'text/csv', accept: 'text/csv' });
        await ask(); // the cold start, and the answer time the next request is judged by
        const e0 = performance.eventLoopUtilization();
        await ask();
        await ask();
        const share = performance.eventLoopUtilization(e0).utilization;
        await v.stop();
        return share;
      };
      const polled = await busy(polling.engine, await put({ 'inference.py': slow }, [], polling.blobs));
      const asleep = await busy(h.engine, await put({ 'inference.py': slow }));
      assert.ok(polled > 0.7, `a 60 ms window: the loop turned while the answers were due (busy ${polled.toFixed(2)})`);
      assert.ok(asleep < 0.5, `the default window: the loop slept through a 30 ms answer (busy ${asleep.toFixed(2)})`);
    } finally {
      await polling.close();
    }
  });

  it('the model’s code runs under SCHED_BATCH at the server’s nice value, its threads too', async () => {
    const uri = await put({
      'inference.py': `${SKLEARN_INFERENCE}
import threading

def output_fn(prediction, accept):
    seen = []
    t = threading.Thread(target=lambda: seen.append(os.sched_getscheduler(0)))
    t.start()
    t.join()
    return "%d,%d,%d,%d" % (os.sched_getscheduler(0), seen[0], os.SCHED_BATCH, os.getpriority(os.PRIO_PROCESS, 0))
`,
    });
    const v = await h.engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: uri, environment: env }));
    const r = await v.invoke({ body: body('1,0'), contentType: 'text/csv', accept: 'text/csv' });
    const [policy, thread, batch, nice] = text(r.body).split(',').map(Number);
    // A request's wake-up then waits for the server to finish its turn instead of preempting it.
    assert.equal(policy, batch, 'the worker runs under SCHED_BATCH');
    assert.equal(thread, batch, 'a thread the model starts inherits it');
    assert.equal(nice, getPriority(), 'at the server’s nice value: not deprioritised, only not preempting');
    await v.stop();
  });

  it('uses the script’s input_fn/output_fn, then transform_fn when it defines one', async () => {
    const custom = `${SKLEARN_INFERENCE}
import json
import numpy as np

def input_fn(body, content_type):
    print("input_fn got", type(body).__name__, content_type)
    return np.array(json.loads(body)["rows"], dtype=float)

def output_fn(prediction, accept):
    return json.dumps({"predictions": [round(float(p), 3) for p in prediction]}), "application/vnd.custom+json"
`;
    const v = await h.engine.deploy(
      variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': custom }), environment: env }),
    );
    const r = await v.invoke({ body: body('{"rows": [[2, 1], [0, 0]]}'), contentType: 'application/json' });
    assert.deepEqual(JSON.parse(text(r.body)), { predictions: [4, 3] });
    assert.equal(r.contentType, 'application/vnd.custom+json');
    await v.stop();

    const transform = `${SKLEARN_INFERENCE}
def transform_fn(model, body, content_type, accept):
    rows = [[float(x) for x in line.split("|")] for line in body.decode().split(";")]
    return ",".join(str(round(float(p))) for p in model.predict(rows))
`;
    const t = await h.engine.deploy(
      variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': transform }), environment: env }),
    );
    const tr = await t.invoke({ body: body('2|1;0|0'), contentType: 'text/x-pipes', accept: 'text/plain' });
    assert.equal(text(tr.body), '4,3');
    assert.equal(tr.contentType, 'text/plain');
    await t.stop();
  });

  it('code written for the images imports their toolkits: sagemaker_inference decoder and encoder', async () => {
    const toolkit = `${SKLEARN_INFERENCE}
from sagemaker_inference import content_types, decoder, encoder

def input_fn(body, content_type):
    return decoder.decode(body, content_type)

def output_fn(prediction, accept):
    return encoder.encode(prediction, content_types.CSV)
`;
    const v = await h.engine.deploy(
      variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': toolkit }), environment: env }),
    );
    const r = await v.invoke({ body: body('[[2, 1], [0, 0]]'), contentType: 'application/json' });
    assert.deepEqual(
      text(r.body)
        .trim()
        .split('\n')
        .map((x) => Math.round(Number(x) * 1e6) / 1e6),
      [4, 3],
    );
    await assert.rejects(v.invoke({ body: body('x'), contentType: 'image/png' }), /not supported by this framework/);
    await v.stop();
  });

  it('an exception in predict_fn is a ModelError 500 with its message and traceback; the worker stays up', async () => {
    const failing = `${SKLEARN_INFERENCE}
def predict_fn(data, model):
    if data.shape[1] != 2:
        raise ValueError("expected 2 features, got %d" % data.shape[1])
    return model.predict(data)
`;
    const v = await h.engine.deploy(
      variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': failing }), environment: env }),
    );
    await assert.rejects(
      v.invoke({ body: body('1,2,3'), contentType: 'text/csv' }),
      (e: unknown) =>
        e instanceof ModelError &&
        e.message.startsWith(
          'Received server error (500) from primary with message "ValueError: expected 2 features, got 3',
        ) &&
        e.message.includes('in predict_fn'),
    );
    const ok = await v.invoke({ body: body('0,0'), contentType: 'text/csv', accept: 'text/csv' });
    assert.equal(Math.round(Number(text(ok.body))), 3);
    await v.stop();
  });

  it('print() in user code does not disturb the answers', async () => {
    const noisy = `${SKLEARN_INFERENCE}
import sys
def predict_fn(data, model):
    print("HTTP/1.1 200 OK\\r\\n\\r\\nnot an answer")
    sys.stdout.write("more noise\\n")
    return model.predict(data)
`;
    const v = await h.engine.deploy(
      variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': noisy }), environment: env }),
    );
    for (let i = 0; i < 3; i++) {
      const r = await v.invoke({ body: body('0,0'), contentType: 'text/csv', accept: 'text/csv' });
      assert.equal(Math.round(Number(text(r.body))), 3);
    }
    await v.stop();
  });

  it('a failing model_fn, a syntax error or a missing module fail the deployment naming the cause', async () => {
    const boom = `def model_fn(model_dir):\n    raise RuntimeError("cannot load the model: weights missing")\n`;
    await assert.rejects(
      h.engine.deploy(
        variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': boom }), environment: env }),
      ),
      (e: unknown) =>
        e instanceof DeploymentError &&
        e.message.includes('RuntimeError: cannot load the model: weights missing') &&
        e.message.includes('model_fn failed'),
    );
    const syntax = 'def model_fn(model_dir)\n    return 1\n';
    await assert.rejects(
      h.engine.deploy(
        variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': syntax }), environment: env }),
      ),
      (e: unknown) =>
        e instanceof DeploymentError && /SyntaxError/.test(e.message) && e.message.includes('inference.py'),
    );
    // A worker that ends without a word: the reason says it wrote nothing.
    const silent = 'import os\nos._exit(3)\n';
    await assert.rejects(
      h.engine.deploy(
        variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': silent }), environment: env }),
      ),
      (e: unknown) =>
        e instanceof DeploymentError &&
        e.message.includes('(inference.py) exited with code 3, having written nothing to its log'),
    );
    const missingImport = 'import not_a_module_here\n';
    await assert.rejects(
      h.engine.deploy(
        variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': missingImport }), environment: env }),
      ),
      (e: unknown) => e instanceof DeploymentError && e.message.includes("No module named 'not_a_module_here'"),
    );
    await assert.rejects(
      h.engine.deploy(
        variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({ 'other.py': SKLEARN_INFERENCE }), environment: env }),
      ),
      (e: unknown) =>
        e instanceof DeploymentError && e.message.includes('SAGEMAKER_PROGRAM "inference.py" was not found'),
    );
    // A host directory is never shown to a model's code.
    for (const dir of ['file:///etc', '/opt/ml/model/../../../etc', '/root']) {
      await assert.rejects(
        h.engine.deploy(
          variant({
            image: SKLEARN_IMAGE,
            modelDataUrl: await put({ 'inference.py': SKLEARN_INFERENCE }),
            environment: { SAGEMAKER_PROGRAM: 'inference.py', SAGEMAKER_SUBMIT_DIRECTORY: dir },
          }),
        ),
        (e: unknown) =>
          e instanceof DeploymentError && e.message.includes('Slipway shows no host directory to a model'),
      );
    }
    // No SAGEMAKER_PROGRAM: scikit-learn's default model_fn asks for one.
    await assert.rejects(
      h.engine.deploy(variant({ image: SKLEARN_IMAGE, modelDataUrl: await put({}) })),
      (e: unknown) => e instanceof DeploymentError && e.message.includes('Please provide a model_fn implementation'),
    );
  });

  it('reads the code from SAGEMAKER_SUBMIT_DIRECTORY (s3 sourcedir.tar.gz); scales to zero and cold-starts again', async () => {
    const idle = harness({ idleSeconds: 0.3, invocationTimeoutMs: 20_000 });
    try {
      await idle.blobs.put('s3://m/sourcedir.tar.gz', makeTarGz([{ path: 'inference.py', data: SKLEARN_INFERENCE }]));
      await idle.blobs.put('s3://m/bare.tar.gz', makeTarGz(dirEntries(modelDir)));
      const v = await idle.engine.deploy(
        variant(
          {
            image: SKLEARN_IMAGE,
            modelDataUrl: 's3://m/bare.tar.gz',
            environment: { SAGEMAKER_PROGRAM: 'inference.py', SAGEMAKER_SUBMIT_DIRECTORY: 's3://m/sourcedir.tar.gz' },
          },
          { maxConcurrency: 2 },
          'fw-idle',
        ),
      );
      const labels = { endpoint: 'fw-idle', variant: 'AllTraffic' };
      const rs = await Promise.all(
        [0, 1].map(() => v.invoke({ body: body('2,1'), contentType: 'text/csv', accept: 'text/csv' })),
      );
      for (const r of rs) assert.equal(Math.round(Number(text(r.body))), 4);
      assert.equal(metric(idle.engine.metrics(), 'slipway_model_setup_time_seconds_count', labels), 2);
      await sleep(1200);
      assert.equal(metric(idle.engine.metrics(), 'slipway_workers', { ...labels, state: 'idle' }), 0, 'scaled to zero');
      const r = await v.invoke({ body: body('0,0'), contentType: 'text/csv', accept: 'text/csv' });
      assert.equal(Math.round(Number(text(r.body))), 3);
      assert.equal(metric(idle.engine.metrics(), 'slipway_model_setup_time_seconds_count', labels), 3);
      await v.stop();
    } finally {
      await idle.close();
    }
  });

  it('a worker over MemorySizeInMB is stopped and replaced; the endpoint keeps answering', async () => {
    const hog = `${SKLEARN_INFERENCE}
def predict_fn(data, model):
    if data[0][0] == 999:
        hog = []
        while True:
            hog.append(bytearray(16 << 20))
    return model.predict(data)
`;
    const v = await h.engine.deploy(
      variant(
        { image: SKLEARN_IMAGE, modelDataUrl: await put({ 'inference.py': hog }), environment: env },
        { memorySizeInMB: 256 },
        'fw-oom',
      ),
    );
    await assert.rejects(
      v.invoke({ body: body('999,0'), contentType: 'text/csv' }),
      (e: unknown) => e instanceof ModelError && e.message.includes('exceeded its memory limit (MemorySizeInMB=256)'),
    );
    const r = await v.invoke({ body: body('0,0'), contentType: 'text/csv', accept: 'text/csv' });
    assert.equal(Math.round(Number(text(r.body))), 3);
    assert.equal(
      metric(h.engine.metrics(), 'slipway_worker_failures_total', { endpoint: 'fw-oom', reason: 'memory' }),
      1,
    );
    await v.stop();
  });

  it('an XGBoost image without SAGEMAKER_PROGRAM stays the built-in runtime; with it, script mode', async () => {
    const xgbDir = makeModel('xgboost');
    try {
      await h.blobs.put('s3://m/xgb.tar.gz', makeTarGz(dirEntries(xgbDir)));
      const builtin = await h.engine.deploy(variant({ image: XGBOOST_IMAGE, modelDataUrl: 's3://m/xgb.tar.gz' }));
      const a = await builtin.invoke({ body: body('2,1'), contentType: 'text/csv' });
      await builtin.stop();
      await h.blobs.put(
        's3://m/xgb-script.tar.gz',
        makeTarGz([...dirEntries(xgbDir), { path: 'code/serve.py', data: 'print("xgboost script mode")\n' }]),
      );
      const script = await h.engine.deploy(
        variant({
          image: XGBOOST_IMAGE,
          modelDataUrl: 's3://m/xgb-script.tar.gz',
          environment: { SAGEMAKER_PROGRAM: 'serve.py' },
        }),
      );
      const b = await script.invoke({ body: body('2,1'), contentType: 'text/csv', accept: 'text/csv' });
      assert.ok(Math.abs(Number(text(a.body)) - Number(text(b.body))) < 1e-4, `${text(a.body)} vs ${text(b.body)}`);
      await script.stop();
      // What AWS's XGBoost examples import: the container's encoder, decoding to a DMatrix.
      await h.blobs.put(
        's3://m/xgb-encoder.tar.gz',
        makeTarGz([
          ...dirEntries(xgbDir),
          {
            path: 'code/serve.py',
            data: 'from sagemaker_xgboost_container import encoder\n\ndef input_fn(body, content_type):\n    return encoder.decode(body, content_type)\n',
          },
        ]),
      );
      const enc = await h.engine.deploy(
        variant({
          image: XGBOOST_IMAGE,
          modelDataUrl: 's3://m/xgb-encoder.tar.gz',
          environment: { SAGEMAKER_PROGRAM: 'serve.py' },
        }),
      );
      const c = await enc.invoke({ body: body('[[2, 1]]'), contentType: 'application/json', accept: 'text/csv' });
      assert.ok(Math.abs(Number(text(a.body)) - Number(text(c.body))) < 1e-4, `${text(a.body)} vs ${text(c.body)}`);
      await enc.stop();
    } finally {
      rmSync(xgbDir, { recursive: true, force: true });
    }
  });

  it('PyTorch: the default model_fn loads TorchScript model.pt', {
    skip: frameworkMissing('torch', 'python3-torch'),
  }, async () => {
    const ptDir = makeModel('pytorch');
    try {
      await h.blobs.put('s3://m/pt.tar.gz', makeTarGz(dirEntries(ptDir)));
      const v = await h.engine.deploy(variant({ image: PYTORCH_IMAGE, modelDataUrl: 's3://m/pt.tar.gz' }));
      const r = await v.invoke({ body: body('[[2, 1]]'), contentType: 'application/json' });
      assert.equal(Math.round((JSON.parse(text(r.body)) as number[][])[0]![0]!), 4);
      await v.stop();
    } finally {
      rmSync(ptDir, { recursive: true, force: true });
    }
  });
});

/** A float64 .npy of one row. */
function npy(row: number[]): Buffer {
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (1, ${row.length}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const h = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(h);
  h[6] = 1;
  h[7] = 0;
  h.writeUInt16LE(header.length, 8);
  const data = Buffer.alloc(8 * row.length);
  for (const [i, v] of row.entries()) data.writeDoubleLE(v, i * 8);
  return Buffer.concat([h, Buffer.from(header, 'latin1'), data]);
}
