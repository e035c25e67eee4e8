// Training jobs (issue 15): the notebook's job on 4177 rows from CreateTrainingJob to Completed, and
// how much of it is job machinery (S3 reads, packing, uploads, lineage, status writes) rather than
// training; warm InvokeEndpoint p99 at 1,000 req/s while 4 training jobs run; ListTrainingJobs with
// 1,000 completed jobs and the export of their lineage. Slipway runs as `npm start` does, in a
// child process.
// Usage: npm run build && node dist/bench/training.js [--runs 20] [--jobs 1000]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateTrainingJobCommand,
  type CreateTrainingJobCommandInput,
  DescribeTrainingJobCommand,
  type DescribeTrainingJobCommandOutput,
  ListTrainingJobsCommand,
  SageMakerClient,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import autocannon from 'autocannon';
import { abaloneCsv, NOTEBOOK_HYPERPARAMETERS, NOTEBOOK_IMAGE } from '../test/support/abalone.js';
import { slipway } from './support.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 20);
const JOBS = arg('jobs', 1000);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-training-'));
const server = await slipway(dataDir);
const cfg = {
  endpoint: `http://127.0.0.1:${server.port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
};
const sm = new SageMakerClient(cfg);
const s3 = new S3Client({ ...cfg, forcePathStyle: true });
await s3.send(new CreateBucketCommand({ Bucket: 'bench-data' }));
await s3.send(new PutObjectCommand({ Bucket: 'bench-data', Key: 'abalone/train/abalone.csv', Body: abaloneCsv() }));

const job = (name: string): CreateTrainingJobCommandInput => ({
  TrainingJobName: name,
  RoleArn: 'arn:aws:iam::000000000000:role/sm',
  AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
  HyperParameters: NOTEBOOK_HYPERPARAMETERS,
  InputDataConfig: [
    {
      ChannelName: 'train',
      ContentType: 'text/csv',
      DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://bench-data/abalone/train/' } },
    },
  ],
  OutputDataConfig: { S3OutputPath: 's3://bench-data/output' },
  ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
  StoppingCondition: { MaxRuntimeInSeconds: 3600 },
});

/** Creates a job and polls Describe every 2 ms until it ends. */
async function run(name: string): Promise<{ ms: number; d: DescribeTrainingJobCommandOutput }> {
  const t0 = performance.now();
  await sm.send(new CreateTrainingJobCommand(job(name)));
  for (;;) {
    const d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
    if (d.TrainingJobStatus !== 'InProgress') {
      if (d.TrainingJobStatus !== 'Completed') throw new Error(`${name}: ${d.TrainingJobStatus} ${d.FailureReason}`);
      return { ms: performance.now() - t0, d };
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

// 1. End to end, and the Training step alone (from its transition times).
const total: number[] = [];
const training: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const { ms, d } = await run(`notebook-${i}`);
  total.push(ms);
  const t = d.SecondaryStatusTransitions!.find((x) => x.Status === 'Training')!;
  training.push(t.EndTime!.getTime() - t.StartTime!.getTime());
}
const machinery = total.map((t, i) => t - training[i]!);
console.log(
  `notebook job (4177 x 8, 50 rounds): CreateTrainingJob -> Completed p50 ${pct(total, 50).toFixed(0)} ms (min ${Math.min(...total).toFixed(0)}), Training step p50 ${pct(training, 50)} ms, job machinery p50 ${pct(machinery, 50).toFixed(0)} ms`,
);

// 2. Warm invoke p99 at 1,000 req/s while 4 training jobs run.
const modelUrl = (await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'notebook-0' }))).ModelArtifacts!
  .S3ModelArtifacts!;
await sm.send(
  new CreateModelCommand({
    ModelName: 'm',
    ExecutionRoleArn: 'arn:aws:iam::000000000000:role/sm',
    PrimaryContainer: { Image: NOTEBOOK_IMAGE, ModelDataUrl: modelUrl },
  }),
);
await sm.send(
  new CreateEndpointConfigCommand({
    EndpointConfigName: 'c',
    ProductionVariants: [
      { VariantName: 'AllTraffic', ModelName: 'm', ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 50 } },
    ],
  }),
);
await sm.send(new CreateEndpointCommand({ EndpointName: 'e', EndpointConfigName: 'c' }));
await waitUntilEndpointInService({ client: sm, maxWaitTime: 60, minDelay: 1, maxDelay: 1 }, { EndpointName: 'e' });
const invoke = (seconds: number) =>
  autocannon({
    url: `${cfg.endpoint}/endpoints/e/invocations`,
    method: 'POST',
    headers: { 'content-type': 'text/csv' },
    body: '1,0.5,0.4,0.15,0.3,0.13,0.07,0.09',
    connections: 10,
    overallRate: 1000,
    duration: seconds,
  });
await invoke(2); // warm
const quiet = await invoke(5);
// Heavier jobs so that they are still training while the load runs: 4 at once, 500 rounds each.
const heavy = (name: string) => ({
  ...job(name),
  HyperParameters: { ...NOTEBOOK_HYPERPARAMETERS, num_round: '2000', gamma: '0' },
});
for (let i = 0; i < 4; i++) await sm.send(new CreateTrainingJobCommand(heavy(`busy-${i}`)));
const busy = await invoke(5);
const stillTraining = await Promise.all(
  [0, 1, 2, 3].map((i) => sm.send(new DescribeTrainingJobCommand({ TrainingJobName: `busy-${i}` }))),
);
console.log(
  `warm InvokeEndpoint at 1,000 req/s: p99 ${quiet.latency.p99} ms idle, ${busy.latency.p99} ms while 4 jobs train (${stillTraining.filter((d) => d.TrainingJobStatus === 'InProgress').length} still InProgress at the end; errors ${busy.errors + busy.non2xx})`,
);

// 3. ListTrainingJobs with 1,000 completed jobs (seeded as real jobs, 20 at a time).
for (let i = RUNS; i < JOBS; i += 20) {
  await Promise.all(Array.from({ length: Math.min(20, JOBS - i) }, (_, k) => run(`seed-${i + k}`)));
}
const list: number[] = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  await sm.send(new ListTrainingJobsCommand({ MaxResults: 10, StatusEquals: 'Completed' }));
  list.push(performance.now() - t0);
}
console.log(
  `ListTrainingJobs (${JOBS} completed jobs, first page of 10): p50 ${pct(list, 50).toFixed(2)} ms, p99 ${pct(list, 99).toFixed(2)} ms`,
);

// 4. Export of the lineage of those jobs (and the rest of the account) to Neptune CSV in the
// embedded S3, as `slipway lineage export` does it: time and the exporter's peak RSS, against the
// lineage export issue's limits (10 s and 300 MB for a million associations).
{
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      'maxrss_kb=%M',
      process.execPath,
      'bin/slipway.js',
      'lineage',
      'export',
      '--data-dir',
      dataDir,
      '--out',
      's3://bench/lineage-export/',
      '--s3-endpoint',
      `http://127.0.0.1:${server.port}`,
    ],
    { encoding: 'utf8', env: { ...process.env, AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' } },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`lineage export failed: ${r.stderr}`);
  const rss = Number(/maxrss_kb=(\d+)/.exec(r.stderr)![1]) / 1024;
  console.log(
    `lineage export of the account (${JOBS} training jobs): ${(ms / 1000).toFixed(2)} s, peak RSS ${rss.toFixed(0)} MB; ${r.stdout.trim().split('\n').slice(-1)[0]}`,
  );
}
console.log(
  `server RSS after: ${(Number(readFileSync(`/proc/${server.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024).toFixed(0)} MB`,
);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
