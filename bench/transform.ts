// Batch transform and processing jobs (issue 16): 1,000,000 abalone CSV rows (8 features) in 20 S3
// objects through a MultiRecord transform job with 6 MB payloads, from the embedded S3 back to it,
// beside the engine's pure-predict ceiling (XGBoostModel.predict on one Float32Array) and the same
// rows as 6 MB requests to the XGBoost container's serving stack (gunicorn, ../shared/peers), in the
// same run; and a processing job's start (CreateProcessingJob) to its script's first output line.
// Usage: npm run build && node dist/bench/transform.js [--rows 1000000] [--runs 5]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateModelCommand,
  CreateProcessingJobCommand,
  CreateTransformJobCommand,
  DescribeProcessingJobCommand,
  DescribeTransformJobCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { loadXGBoostModel } from '../src/inference/runtimes/xgboost/index.js';
import { abaloneCsv } from '../test/support/abalone.js';
import { childrenCpuMs, cpuMs, slipway } from './support.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('rows', 1_000_000);
const RUNS = arg('runs', 5);
const ONLY_PROCESSING = process.argv.includes('--only-processing');
const OBJECTS = 20;
const XGB = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
const load = () => loadavg()[0]!.toFixed(2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The rows: abalone's features repeated to ROWS, in OBJECTS objects.
const features = abaloneCsv()
  .trim()
  .split('\n')
  .map((r) => r.split(',').slice(1).join(','));
const objects: string[] = [];
for (let o = 0; o < OBJECTS; o++) {
  const lines: string[] = [];
  for (let i = (o * ROWS) / OBJECTS; i < ((o + 1) * ROWS) / OBJECTS; i++) lines.push(features[i % features.length]!);
  objects.push(`${lines.join('\n')}\n`);
}
const megabytes = objects.reduce((a, s) => a + s.length, 0) / 1048576;

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-transform-'));
const modelDir = mkdtempSync(join(tmpdir(), 'slipway-bench-model-'));
const tarball = 'test/fixtures/xgboost/models/abalone.bin.tar.gz';
execFileSync('tar', ['xzf', tarball, '-C', modelDir]);
const server = await slipway(dataDir, ['--containers-file', 'test/fixtures/containers/containers.json']);
const cfg = {
  endpoint: `http://127.0.0.1:${server.port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
};
const sm = new SageMakerClient(cfg);
const s3 = new S3Client({ ...cfg, forcePathStyle: true });
try {
  await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'model/abalone.tar.gz', Body: readFileSync(tarball) }));
  for (const [i, body] of objects.entries()) {
    await s3.send(
      new PutObjectCommand({ Bucket: 'bench', Key: `rows/part-${String(i).padStart(2, '0')}.csv`, Body: body }),
    );
  }
  await sm.send(
    new CreateModelCommand({
      ModelName: 'abalone',
      ExecutionRoleArn: 'arn:aws:iam::000000000000:role/sm',
      PrimaryContainer: { Image: XGB, ModelDataUrl: 's3://bench/model/abalone.tar.gz' },
    }),
  );

  if (!ONLY_PROCESSING) await transformFigures();
  await processingFigures();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(modelDir, { recursive: true, force: true });
}

async function transformFigures() {
  // 1. Slipway: CreateTransformJob → Completed, S3 in and out.
  const slip: number[] = [];
  const slipCpu: number[] = [];
  const pid = server.child.pid!;
  for (let r = 0; r < RUNS; r++) {
    const name = `bench-${r}`;
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    await sm.send(
      new CreateTransformJobCommand({
        TransformJobName: name,
        ModelName: 'abalone',
        BatchStrategy: 'MultiRecord',
        MaxPayloadInMB: 6,
        MaxConcurrentTransforms: 2,
        TransformInput: {
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://bench/rows/' } },
          ContentType: 'text/csv',
          SplitType: 'Line',
        },
        TransformOutput: { S3OutputPath: `s3://bench/out/${name}`, AssembleWith: 'Line' },
        TransformResources: { InstanceType: 'ml.m5.large', InstanceCount: 1 },
      }),
    );
    for (;;) {
      const d = await sm.send(new DescribeTransformJobCommand({ TransformJobName: name }));
      if (d.TransformJobStatus === 'Completed') break;
      if (d.TransformJobStatus !== 'InProgress') throw new Error(`${name}: ${d.TransformJobStatus} ${d.FailureReason}`);
      await new Promise((res) => setTimeout(res, 20));
    }
    slip.push(performance.now() - t0);
    slipCpu.push(cpuMs(pid) - c0);
  }
  const slipMs = median(slip);
  const slipCpuMs = median(slipCpu);
  console.log(
    `transform job, ${ROWS} rows (${megabytes.toFixed(1)} MB, ${OBJECTS} objects): median ${slipMs.toFixed(0)} ms → ${Math.round(ROWS / (slipMs / 1000)).toLocaleString('en')} rows/s (runs: ${slip.map((x) => x.toFixed(0)).join(', ')} ms); server CPU (all threads) median ${slipCpuMs.toFixed(0)} ms → ${Math.round(ROWS / (slipCpuMs / 1000)).toLocaleString('en')} rows per CPU-second (runs: ${slipCpu.map((x) => x.toFixed(0)).join(', ')} ms), load ${load()}`,
  );

  // 2. The engine's pure-predict ceiling: every row already a float32, one predict call.
  const model = loadXGBoostModel(readFileSync(join(modelDir, 'xgboost-model')));
  const matrix = new Float32Array(ROWS * 8);
  for (let i = 0; i < ROWS; i++) {
    const cells = features[i % features.length]!.split(',');
    for (let j = 0; j < 8; j++) matrix[i * 8 + j] = Number(cells[j]);
  }
  const pure: number[] = [];
  const pureCpu: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    model.predict(matrix, ROWS);
    pure.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    pureCpu.push((c.user + c.system) / 1000);
  }
  const pureMs = median(pure);
  const pureCpuMs = median(pureCpu);
  console.log(
    `pure predict ceiling (one thread): median ${pureMs.toFixed(0)} ms → ${Math.round(ROWS / (pureMs / 1000)).toLocaleString('en')} rows/s; CPU ${pureCpuMs.toFixed(0)} ms → ${Math.round(ROWS / (pureCpuMs / 1000)).toLocaleString('en')} rows per CPU-second, load ${load()}`,
  );

  // 3. The XGBoost container's serving stack: the same rows as 6 MB requests, 2 in flight (2 workers).
  const peer = await gunicorn(join(modelDir, 'xgboost-model'));
  try {
    const batches: string[] = [];
    for (const body of objects) {
      let start = 0;
      while (start < body.length) {
        let end = Math.min(body.length, start + 6 * 1048576);
        if (end < body.length) end = body.lastIndexOf('\n', end) + 1;
        batches.push(body.slice(start, end));
        start = end;
      }
    }
    const times: number[] = [];
    const peerCpu: number[] = [];
    for (let r = 0; r < Math.min(RUNS, 3); r++) {
      const c0 = childrenCpuMs(peer.child.pid!);
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const b = batches[next++]!;
          const res = await fetch(`http://127.0.0.1:${peer.port}/invocations`, {
            method: 'POST',
            body: b,
            headers: { 'content-type': 'text/csv' },
          });
          if (!res.ok) throw new Error(`peer ${res.status}`);
          await res.arrayBuffer();
        }
      };
      await Promise.all([worker(), worker()]);
      times.push(performance.now() - t0);
      peerCpu.push(childrenCpuMs(peer.child.pid!) - c0);
    }
    const peerMs = median(times);
    const peerCpuMs = median(peerCpu);
    console.log(
      `xgb_container.py under gunicorn (2 workers), 6 MB requests: median ${peerMs.toFixed(0)} ms → ${Math.round(ROWS / (peerMs / 1000)).toLocaleString('en')} rows/s (no S3 read or write); workers' CPU ${peerCpuMs.toFixed(0)} ms → ${Math.round(ROWS / (peerCpuMs / 1000)).toLocaleString('en')} rows per CPU-second, load ${load()}`,
    );
  } finally {
    peer.child.kill('SIGTERM');
  }
}

/**
 * A processing job's start: CreateProcessingJob sent → the script's first output line (its log
 * event's time), for the Node script of the test image and for a Python script run the way
 * SKLearnProcessor runs one (ContainerEntrypoint python3 on a code input from S3).
 */
async function processingFigures() {
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'raw/rows.csv', Body: objects[0]!.slice(0, 10000) }));
  await s3.send(
    new PutObjectCommand({
      Bucket: 'bench',
      Key: 'code/preprocess.py',
      Body: [
        'import os',
        "print('processing started', flush=True)",
        "rows = open('/opt/ml/processing/input/raw/rows.csv').read().splitlines()",
        "os.makedirs('/opt/ml/processing/output/train', exist_ok=True)",
        "open('/opt/ml/processing/output/train/rows.csv', 'w').write('\\n'.join(rows[: len(rows) // 2]))",
        "print('rows', len(rows))",
      ].join('\n'),
    }),
  );
  const raw = {
    InputName: 'raw',
    S3Input: { S3Uri: 's3://bench/raw', LocalPath: '/opt/ml/processing/input/raw', S3DataType: 'S3Prefix' as const },
  };
  const code = {
    InputName: 'code',
    S3Input: {
      S3Uri: 's3://bench/code/preprocess.py',
      LocalPath: '/opt/ml/processing/input/code',
      S3DataType: 'S3Prefix' as const,
    },
  };
  const variants = [
    {
      label: 'Node script (test image process.mjs)',
      app: { ContainerArguments: ['--mode', 'ok'] },
      inputs: [raw],
      floor: [process.execPath, '-e', "console.log('processing started')"],
    },
    {
      label: 'Python script (ContainerEntrypoint python3, code from S3)',
      app: { ContainerEntrypoint: ['/usr/bin/python3', '/opt/ml/processing/input/code/preprocess.py'] },
      inputs: [raw, code],
      floor: ['/usr/bin/python3', '-c', "print('processing started', flush=True)"],
    },
  ];
  for (const [v, variant] of variants.entries()) {
    const starts: number[] = [];
    for (let r = 0; r < RUNS * 2; r++) {
      const name = `proc-${v}-${r}`;
      const t0 = Date.now();
      await sm.send(
        new CreateProcessingJobCommand({
          ProcessingJobName: name,
          RoleArn: 'arn:aws:iam::000000000000:role/sm',
          AppSpecification: {
            ImageUri: '000000000000.dkr.ecr.us-east-1.amazonaws.com/slipway-test-process:1',
            ...variant.app,
          },
          ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.large', VolumeSizeInGB: 1 } },
          ProcessingInputs: variant.inputs,
        }),
      );
      for (;;) {
        const d = await sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: name }));
        if (d.ProcessingJobStatus === 'Completed') break;
        if (d.ProcessingJobStatus !== 'InProgress') throw new Error(`${name}: ${d.FailureReason}`);
        await new Promise((res) => setTimeout(res, 20));
      }
      const events = await logs('GetLogEvents', {
        logGroupName: '/aws/sagemaker/ProcessingJobs',
        logStreamName: (
          await logs('DescribeLogStreams', {
            logGroupName: '/aws/sagemaker/ProcessingJobs',
            logStreamNamePrefix: `${name}/`,
          })
        ).logStreams[0].logStreamName,
      });
      const first = events.events.find((e: { message: string }) => e.message.startsWith('processing started'));
      starts.push(first.timestamp - t0);
    }
    console.log(
      `processing job, ${variant.label}, CreateProcessingJob → first script line: median ${median(starts)} ms, max ${Math.max(...starts)} ms (${starts.join(', ')}), sandbox bubblewrap, load ${load()}`,
    );
    // The floor: the same interpreter started by hand, spawn → its first line, no job, no sandbox.
    const floor: number[] = [];
    for (let r = 0; r < RUNS * 2; r++) {
      const t0 = Date.now();
      await new Promise<void>((resolve) => {
        const child = spawn(variant.floor[0]!, variant.floor.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
        child.stdout!.once('data', () => {
          floor.push(Date.now() - t0);
          resolve();
        });
      });
    }
    console.log(
      `floor: ${variant.floor[0]} started by hand → its first line: median ${median(floor)} ms (${floor.join(', ')}), load ${load()}`,
    );
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON answer read by hand
async function logs(op: string, body: object): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${server.port}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `Logs_20140328.${op}`,
      authorization:
        'AWS4-HMAC-SHA256 Credential=a/20260101/us-east-1/logs/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${op}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function gunicorn(model: string): Promise<{ child: ChildProcess; port: number }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    'gunicorn',
    ['-w', '2', '-b', `127.0.0.1:${port}`, '--timeout', '300', '--chdir', '/work/shared/peers', 'xgb_container:app'],
    {
      env: { ...process.env, MODEL: model },
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ping`)).ok) return { child, port };
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('gunicorn did not start');
}
