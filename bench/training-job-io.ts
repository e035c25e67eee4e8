// Training jobs end to end (issue 36): the built-in XGBoost algorithm on an N × 28 CSV in S3,
// CreateTrainingJob → Completed (model.tar.gz in S3), side by side in the same run with what a
// Python user does on the same machine: xgboost 1.7.4 (Debian /usr/bin/python3) reading the same
// CSV with numpy (np.loadtxt, numpy 1.24's C reader: on this file faster than pandas.read_csv),
// training the same 100 rounds (depth 6, hist, train-rmse printed each round, as the job prints
// it) and saving the model. Python's time is measured inside its script, from before loadtxt to
// after save_model (not the interpreter's start nor `import xgboost`, as a notebook user has them
// loaded); ours from the server's CreationTime to its TrainingEndTime (what DescribeTrainingJob
// reports), with the client's own observation (polling every 200 ms, so that polling costs the server little CPU) beside it. Slipway runs as
// `npm start` does (child process, SQLite, embedded S3); its trainer thread is warm, as in a server
// that has trained before. Pairs run interleaved (the order alternates); the figure is the median
// of the pairs' ratios. CPU time: the whole server process's (every thread) against Python's.
// Usage: npm run build && node dist/bench/training-job-io.js [--rows 200000,1000000] [--threads 1,2]
//   [--runs 5] [--phases]
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateTrainingJobCommand,
  DescribeTrainingJobCommand,
  type DescribeTrainingJobCommandOutput,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { cpuMs, median, slipway } from './support.js';

/** CPU time of a process's main thread (the event loop; the trainer runs on other threads), ms. */
function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ROWS = (argOf('rows') ?? '200000,1000000').split(',').map(Number);
const THREADS = (argOf('threads') ?? '1,2').split(',').map(Number);
const RUNS = Number(argOf('runs') ?? 5);
const PHASES = process.argv.includes('--phases');
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';

/**
 * N rows: label then 28 float32 standard normal features, y = 2·x0 + sin(3·x1) + x2·x3 + noise
 * (the trainer bench's set, bench/xgboost-train), each value with 6 decimals (pandas'
 * `to_csv(float_format='%.6f')`, numpy's `savetxt(fmt='%.6f')`).
 */
async function writeCsv(n: number, file: string): Promise<void> {
  let s = 12345;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const out = createWriteStream(file);
  const x = new Float32Array(28);
  let block: string[] = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < 28; c++) x[c] = normal();
    const y = 2 * x[0]! + Math.sin(3 * x[1]!) + x[2]! * x[3]! + 0.3 * normal();
    const cells = [y.toFixed(6)];
    for (let c = 0; c < 28; c++) cells.push(x[c]!.toFixed(6));
    block.push(cells.join(','));
    if (block.length === 4096 || r === n - 1) {
      if (!out.write(`${block.join('\n')}\n`)) await new Promise<void>((res) => out.once('drain', () => res()));
      block = [];
    }
  }
  await new Promise<void>((res, rej) => out.end((e?: Error) => (e ? rej(e) : res())));
}

const PY = `
import sys, json, time, numpy as np, xgboost as xgb
file, nthread, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t = time.perf_counter(); c = time.process_time()
a = np.loadtxt(file, delimiter=',', dtype=np.float32)
dtr = xgb.DMatrix(a[:, 1:], label=a[:, 0], nthread=nthread)
read = time.perf_counter() - t
params = {'tree_method': 'hist', 'max_depth': 6, 'nthread': nthread, 'objective': 'reg:squarederror'}
b = xgb.train(params, dtr, 100, evals=[(dtr, 'train')], verbose_eval=True)
b.save_model(out)
ms = (time.perf_counter() - t) * 1000; cpu = (time.process_time() - c) * 1000
print(json.dumps({"ms": ms, "cpuMs": cpu, "readMs": read * 1000}))
`;

function python(file: string, threads: number, out: string): { ms: number; cpuMs: number; readMs: number } {
  const r = spawnSync('/usr/bin/python3', ['-c', PY, file, String(threads), out], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-job-io-'));
const server = await slipway(join(dir, 'data'));
try {
  const cfg = {
    endpoint: `http://127.0.0.1:${server.port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  };
  const sm = new SageMakerClient(cfg);
  const s3 = new S3Client({ ...cfg, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const files = new Map<number, string>();
  for (const n of ROWS) {
    const file = join(dir, `train-${n}.csv`);
    await writeCsv(n, file);
    files.set(n, file);
    await s3.send(
      new PutObjectCommand({
        Bucket: 'bench',
        Key: `rows-${n}/train/train.csv`,
        Body: createReadStream(file),
        ContentLength: statSync(file).size,
      }),
    );
  }

  let jobs = 0;
  const job = async (n: number, threads: number) => {
    const name = `io-${n}-${threads}-${jobs++}`;
    const t0 = performance.now();
    const c0 = cpuMs(server.child.pid!);
    const m0 = mainThreadCpuMs(server.child.pid!);
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: name,
        RoleArn: 'arn:aws:iam::000000000000:role/sm',
        AlgorithmSpecification: { TrainingImage: IMAGE, TrainingInputMode: 'File' },
        HyperParameters: { num_round: '100', max_depth: '6', tree_method: 'hist', nthread: String(threads) },
        InputDataConfig: [
          {
            ChannelName: 'train',
            ContentType: 'text/csv',
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://bench/rows-${n}/train/` } },
          },
        ],
        OutputDataConfig: { S3OutputPath: 's3://bench/output' },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 3600 },
      }),
    );
    let d: DescribeTrainingJobCommandOutput;
    for (;;) {
      d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
      if (d.TrainingJobStatus !== 'InProgress') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seen = performance.now() - t0;
    const cpu = cpuMs(server.child.pid!) - c0;
    const mainCpu = mainThreadCpuMs(server.child.pid!) - m0;
    if (d.TrainingJobStatus !== 'Completed') throw new Error(`${name}: ${d.TrainingJobStatus} ${d.FailureReason}`);
    const ms = d.TrainingEndTime!.getTime() - d.CreationTime!.getTime();
    const phases = (d.SecondaryStatusTransitions ?? [])
      .filter((t) => t.EndTime)
      .map((t) => `${t.Status} ${t.EndTime!.getTime() - t.StartTime!.getTime()}`)
      .join(', ');
    return { ms, seen, cpuMs: cpu, phases: `${phases}; server main thread CPU ${mainCpu} ms` };
  };

  // the server's trainer thread warms up by itself; one job of each kind first, as a server that
  // has trained before
  for (const t of THREADS) await job(ROWS[0]!, t);

  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| figure | threads | python: np.loadtxt + train + save, wall (CPU) | Slipway job, CreationTime → TrainingEndTime (client saw) (server CPU) | ratio wall (CPU) | load avg |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const n of ROWS) {
    for (const t of THREADS) {
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      for (let rep = 0; rep < RUNS; rep++) {
        const pyFirst = rep % 2 === 0;
        const py0 = pyFirst ? python(files.get(n)!, t, join(dir, 'py.model')) : undefined;
        const ours = await job(n, t);
        const py = py0 ?? python(files.get(n)!, t, join(dir, 'py.model'));
        ratios.push(ours.ms / py.ms);
        cpuRatios.push(ours.cpuMs / py.cpuMs);
        console.log(
          `| ${n / 1000}k × 28 CSV | ${t} | ${py.ms.toFixed(0)} (${py.cpuMs.toFixed(0)}) ms, read ${py.readMs.toFixed(0)} | ${ours.ms} (${ours.seen.toFixed(0)}) (${ours.cpuMs.toFixed(0)}) ms | ${(ours.ms / py.ms).toFixed(2)}× (${(ours.cpuMs / py.cpuMs).toFixed(2)}×) | ${loadavg()[0]!.toFixed(2)} |`,
        );
        if (PHASES) console.log(`|  | | | ${ours.phases} | | |`);
      }
      console.log(
        `| ${n / 1000}k × 28 CSV | ${t} | **median of ${RUNS} pairs** | | **${median(ratios).toFixed(2)}×** (${median(cpuRatios).toFixed(2)}×) | |`,
      );
    }
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
