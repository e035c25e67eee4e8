// Script mode's start (issue 30): CreateTrainingJob for a scikit-learn script (SageMaker's
// scikit-learn image, sourcedir.tar.gz, hyperparameters as the SDK sends them) → the script's first
// line, against the interpreter's own start-up (`python3 -c` printing the same line), measured the
// same way: the wall clock the line itself carries minus the moment the request (or the spawn) began,
// on a server that has finished starting (the first job, untimed, then its CPU idle).
// Slipway runs as `npm start` does (child process, SQLite, the sandbox when the host has one).
// Also: DescribeTrainingJob's latency while the jobs start one after another (the bench's polling).
// Usage: npm run build && node dist/bench/script-mode-start.js [--runs 20]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateTrainingJobCommand,
  DescribeTrainingJobCommand,
  type DescribeTrainingJobCommandOutput,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { makeTarGz } from '../src/inference/testing/tar.js';
import { awsJson, median, percentile, settled, slipway, sleep } from './support.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const RUNS = Number(arg('runs', '20'));
const PYTHON = process.env.SLIPWAY_PYTHON ?? '/usr/bin/python3';
const IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3';
const FIRST_LINE = 'import time; print("first-line %.6f" % time.time(), flush=True)';

const stat = (xs: number[]) =>
  `median ${median(xs).toFixed(1)} ms, p90 ${percentile(xs, 90).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)} ms`;

async function logEvents(port: number, job: string): Promise<Array<{ message?: string }>> {
  const group = '/aws/sagemaker/TrainingJobs';
  const streams = (
    await awsJson(port, 'Logs_20140328.DescribeLogStreams', { logGroupName: group, logStreamNamePrefix: `${job}/` })
  ).logStreams as Array<{ logStreamName: string }>;
  const got = await awsJson(port, 'Logs_20140328.GetLogEvents', {
    logGroupName: group,
    logStreamName: streams[0]!.logStreamName,
  });
  return got.events as Array<{ message?: string }>;
}

async function main(): Promise<void> {
  // The interpreter alone: spawn → the line's own timestamp.
  const interp: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = Date.now() / 1000;
    const r = spawnSync(PYTHON, ['-c', FIRST_LINE], { encoding: 'utf8' });
    const m = /first-line ([\d.]+)/.exec(r.stdout);
    if (!m) throw new Error(`python3 did not print: ${r.stderr}`);
    interp.push((Number(m[1]) - t0) * 1000);
  }

  const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-script-'));
  const server = await slipway(join(dir, 'data'));
  const cfg = {
    endpoint: `http://127.0.0.1:${server.port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'secret' },
  };
  const s3 = new S3Client({ ...cfg, forcePathStyle: true });
  const sm = new SageMakerClient(cfg);
  const job: number[] = [];
  const total: number[] = [];
  // How long the server takes to answer while jobs start one after another (its event loop is
  // shared with everything the job start does).
  const polls: number[] = [];
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench-script' }));
    await s3.send(new PutObjectCommand({ Bucket: 'bench-script', Key: 'data/train.csv', Body: '1,2,3\n4,5,6\n' }));
    const source = makeTarGz([
      {
        path: 'train.py',
        data: `${FIRST_LINE}\nimport argparse, os\np = argparse.ArgumentParser(); p.add_argument("--alpha", type=float)\nargs = p.parse_args()\nopen(os.path.join(os.environ["SM_MODEL_DIR"], "m.txt"), "w").write(str(args.alpha))\n`,
      },
    ]);
    await s3.send(new PutObjectCommand({ Bucket: 'bench-script', Key: 'src/sourcedir.tar.gz', Body: source }));
    for (let i = 0; i < RUNS + 1; i++) {
      const name = `start-${i}`;
      const t0 = Date.now() / 1000;
      await sm.send(
        new CreateTrainingJobCommand({
          TrainingJobName: name,
          RoleArn: 'arn:aws:iam::000000000000:role/bench',
          AlgorithmSpecification: { TrainingImage: IMAGE, TrainingInputMode: 'File' },
          HyperParameters: {
            alpha: '0.5',
            sagemaker_program: '"train.py"',
            sagemaker_submit_directory: '"s3://bench-script/src/sourcedir.tar.gz"',
            sagemaker_container_log_level: '20',
          },
          InputDataConfig: [
            {
              ChannelName: 'train',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://bench-script/data/' } },
            },
          ],
          OutputDataConfig: { S3OutputPath: 's3://bench-script/out' },
          ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
          StoppingCondition: { MaxRuntimeInSeconds: 60 },
        }),
      );
      let d: DescribeTrainingJobCommandOutput;
      for (;;) {
        const asked = performance.now();
        d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
        if (i > 0) polls.push(performance.now() - asked);
        if (d.TrainingJobStatus !== 'InProgress') break;
        await sleep(5);
      }
      const t1 = Date.now() / 1000;
      if (d.TrainingJobStatus !== 'Completed') throw new Error(`${name}: ${d.TrainingJobStatus} ${d.FailureReason}`);
      const events = await logEvents(server.port, name);
      const line = events.find((e) => e.message?.startsWith('first-line '));
      if (!line) throw new Error(`${name}: no first line in its log`);
      if (process.env.BENCH_DEBUG)
        console.log(
          events
            .map((e) => `${((e as { timestamp?: number }).timestamp! / 1000 - t0) * 1000} ${e.message?.slice(0, 60)}`)
            .join('\n'),
        );
      if (i === 0) {
        // The first job warms the server (the interpreter's probe, the sandbox's network pool);
        // the jobs measured start once the server has finished starting (its trainer thread is
        // readied in the background for the first seconds): a server that has been up.
        const waited = await settled(server.child.pid!);
        if (process.env.BENCH_DEBUG) console.log(`the server settled ${waited} ms after the first job`);
        continue;
      }
      job.push((Number(line.message!.split(' ')[1]) - t0) * 1000);
      total.push((t1 - t0) * 1000);
    }
  } finally {
    s3.destroy();
    sm.destroy();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const over = median(job) - median(interp);
  console.log(`script mode start, ${RUNS} runs (${PYTHON})`);
  console.log(`  python3 -c (the interpreter's own start-up) → first line: ${stat(interp)}`);
  console.log(`  CreateTrainingJob → the script's first line:             ${stat(job)}`);
  console.log(`  over the interpreter: ${over.toFixed(1)} ms (median; target ≤ 100 ms)`);
  console.log(`  CreateTrainingJob → Completed (seen by polling every 5 ms): ${stat(total)}`);
  console.log(
    `  DescribeTrainingJob while the jobs start and run (${polls.length} calls): ${stat(polls)}, p99 ${percentile(polls, 99).toFixed(1)} ms, max ${Math.max(...polls).toFixed(1)} ms`,
  );
}

await main();
