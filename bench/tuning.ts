// Hyperparameter tuning jobs (issue 31). Slipway runs as `npm start` does (child process, SQLite,
// the trainer warmed up), with the test containers file for the synthetic-function image.
//  speed:     50 notebook-size jobs (abalone 4177 × 8 train, 1,177-row validation, 50 rounds),
//             2 parallel, Bayesian: CreateHyperParameterTuningJob → Completed. Peer, same run: the
//             same 50 configurations trained by xgboost 1.7.4 (Debian's python3-xgboost) in two
//             worker processes, no orchestration at all: the native floor of the same work.
//  quality:   Bayesian vs Random at equal budget, 20 jobs (2 parallel) over 10 seeds: median of the
//             best validation:rmse on abalone, and of the best value of the Hartmann 6-D function
//             (a custom image, test/fixtures/containers/objective.mjs).
//  hyperband: time for Hyperband, Random and Bayesian to reach the same objective (Random's median
//             best after 30 jobs) on abalone with num_round 243: Hyperband stops configurations
//             early and may launch 90; the others train every round of 30.
// Usage: npm run build && node dist/bench/tuning.js [--only speed,quality,hyperband] [--seeds 10] [--min-resource 9]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateHyperParameterTuningJobCommand,
  type CreateHyperParameterTuningJobCommandInput,
  DescribeHyperParameterTuningJobCommand,
  type HyperParameterTrainingJobDefinition,
  type HyperParameterTrainingJobSummary,
  ListTrainingJobsForHyperParameterTuningJobCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { abaloneCsv, NOTEBOOK_IMAGE } from '../test/support/abalone.js';
import { median, slipway, sleep } from './support.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const ONLY = new Set(arg('only', 'speed,quality,hyperband').split(','));
const SEEDS = Number(arg('seeds', '10'));
const PYTHON = process.env.SLIPWAY_PYTHON ?? '/usr/bin/python3';

/** The peer: trains each configuration with xgboost 1.7.4 (50 rounds, validation rmse), two processes. */
const PEER = `
import json, sys, time
from multiprocessing import Pool
d = sys.argv[1]
def run(cfg):
    import xgboost as xgb
    dtrain = xgb.DMatrix(d + '/train.csv?format=csv&label_column=0')
    dval = xgb.DMatrix(d + '/validation.csv?format=csv&label_column=0')
    params = {'objective': 'reg:squarederror', 'eval_metric': 'rmse', 'nthread': 1, **{k: float(v) for k, v in cfg.items()}}
    params['max_depth'] = int(params['max_depth'])
    res = {}
    xgb.train(params, dtrain, 50, evals=[(dval, 'validation')], evals_result=res, verbose_eval=False)
    return res['validation']['rmse'][-1]
if __name__ == '__main__':
    configs = json.load(open(d + '/configs.json'))
    t0 = time.time()
    with Pool(2) as pool:
        out = pool.map(run, configs, chunksize=1)
    print(f'{time.time() - t0:.2f} s for {len(out)} jobs, best validation rmse {min(out):.4f}')
`;

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-bench-tuning-'));
const server = await slipway(dataDir, ['--containers-file', 'test/fixtures/containers/containers.json']);
const cfg = {
  endpoint: `http://127.0.0.1:${server.port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
};
const sm = new SageMakerClient(cfg);
const s3 = new S3Client({ ...cfg, forcePathStyle: true });
const rows = abaloneCsv().trim().split('\n');
await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
const put = (key: string, lines: string[]) =>
  s3.send(new PutObjectCommand({ Bucket: 'bench', Key: key, Body: `${lines.join('\n')}\n` }));
// The notebook's job trains on all 4,177 rows (speed); the quality runs hold the last 1,177 out
// as the validation set the objective is measured on.
await put('abalone/all/abalone.csv', rows);
await put('abalone/train/abalone.csv', rows.slice(0, 3000));
await put('abalone/validation/abalone.csv', rows.slice(3000));
// Let the trainer's warm-up (a second after start) finish before measuring.
await sleep(3000);

const ROLE = 'arn:aws:iam::000000000000:role/sm';
const abalone = (statics: Record<string, string>, train = 'train'): HyperParameterTrainingJobDefinition => ({
  StaticHyperParameters: { objective: 'reg:squarederror', ...statics },
  AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
  RoleArn: ROLE,
  InputDataConfig: [
    ['train', train],
    ['validation', 'validation'],
  ].map(([c, prefix]) => ({
    ChannelName: c!,
    ContentType: 'text/csv',
    DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://bench/abalone/${prefix}/` } },
  })),
  OutputDataConfig: { S3OutputPath: 's3://bench/output' },
  ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
  StoppingCondition: { MaxRuntimeInSeconds: 3600 },
});
const ABALONE_RANGES = {
  ContinuousParameterRanges: [
    { Name: 'eta', MinValue: '0.01', MaxValue: '0.5', ScalingType: 'Logarithmic' as const },
    { Name: 'min_child_weight', MinValue: '1', MaxValue: '20' },
    { Name: 'subsample', MinValue: '0.5', MaxValue: '1' },
    { Name: 'gamma', MinValue: '0', MaxValue: '5' },
  ],
  IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '1', MaxValue: '10' }],
};
const HARTMANN: HyperParameterTrainingJobDefinition = {
  StaticHyperParameters: { function: 'hartmann6', epochs: '1' },
  AlgorithmSpecification: {
    TrainingImage: '000000000000.dkr.ecr.us-east-1.amazonaws.com/slipway-test-objective:1',
    TrainingInputMode: 'File',
    MetricDefinitions: [{ Name: 'objective', Regex: 'objective=([-0-9.eE+]+)' }],
  },
  RoleArn: ROLE,
  OutputDataConfig: { S3OutputPath: 's3://bench/output' },
  ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
  StoppingCondition: { MaxRuntimeInSeconds: 600 },
};

let counter = 0;
interface Tuned {
  readonly ms: number;
  readonly created: number;
  readonly children: HyperParameterTrainingJobSummary[];
  readonly status: string;
}

/** Runs a tuning job to its end; returns its wall time and children in launch order. */
async function tune(
  strategy: 'Bayesian' | 'Random' | 'Hyperband',
  def: HyperParameterTrainingJobDefinition,
  over: Partial<CreateHyperParameterTuningJobCommandInput['HyperParameterTuningJobConfig']> & { MetricName: string },
): Promise<Tuned> {
  const name = `bench-${strategy.toLowerCase()}-${++counter}`;
  const { MetricName, ...rest } = over;
  const t0 = performance.now();
  const created = Date.now();
  await sm.send(
    new CreateHyperParameterTuningJobCommand({
      HyperParameterTuningJobName: name,
      HyperParameterTuningJobConfig: {
        Strategy: strategy,
        ResourceLimits: { MaxNumberOfTrainingJobs: 20, MaxParallelTrainingJobs: 2 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName },
        ...rest,
      },
      TrainingJobDefinition: def,
    }),
  );
  let status: string;
  for (;;) {
    status = (await sm.send(new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: name })))
      .HyperParameterTuningJobStatus!;
    if (status !== 'InProgress' && status !== 'Stopping') break;
    await sleep(10);
  }
  const ms = performance.now() - t0;
  const children: HyperParameterTrainingJobSummary[] = [];
  let token: string | undefined;
  do {
    const page = await sm.send(
      new ListTrainingJobsForHyperParameterTuningJobCommand({
        HyperParameterTuningJobName: name,
        MaxResults: 100,
        NextToken: token,
      }),
    );
    children.push(...page.TrainingJobSummaries!);
    token = page.NextToken;
  } while (token);
  // Launch order: the NNN in `<tuning-job>-NNN-<hex>`.
  children.sort((a, b) => a.TrainingJobName!.localeCompare(b.TrainingJobName!));
  return { ms, created, children, status };
}

const objective = (c: HyperParameterTrainingJobSummary) =>
  c.FinalHyperParameterTuningJobObjectiveMetric?.Value ?? Number.POSITIVE_INFINITY;
const bestOf = (t: Tuned, n = t.children.length) => Math.min(...t.children.slice(0, n).map(objective));
const fmt = (v: number, d = 4) => v.toFixed(d);

try {
  if (ONLY.has('speed')) {
    const t = await tune('Bayesian', abalone({ num_round: '50' }, 'all'), {
      MetricName: 'validation:rmse',
      ResourceLimits: { MaxNumberOfTrainingJobs: 50, MaxParallelTrainingJobs: 2 },
      ParameterRanges: ABALONE_RANGES,
    });
    const trained = t.children.map((c) => c.TrainingEndTime!.getTime() - c.TrainingStartTime!.getTime());
    console.log(
      `speed: 50 jobs, 2 parallel, Bayesian, ${t.status}: Create → Completed ${fmt(t.ms / 1000, 2)} s (target ≤ 10 s)`,
    );
    console.log(
      `  per child, TrainingStartTime → TrainingEndTime: median ${median(trained)} ms, sum ${trained.reduce((a, b) => a + b, 0)} ms; best validation:rmse ${fmt(bestOf(t))}`,
    );
    // Peer: the same 50 configurations, trained natively by xgboost 1.7.4 in two worker processes.
    const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-tuning-peer-'));
    writeFileSync(join(dir, 'train.csv'), `${rows.join('\n')}\n`);
    writeFileSync(join(dir, 'validation.csv'), `${rows.slice(3000).join('\n')}\n`);
    writeFileSync(join(dir, 'configs.json'), JSON.stringify(t.children.map((c) => c.TunedHyperParameters)));
    const peer = spawnSync(PYTHON, ['-c', PEER, dir], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    if (peer.status === 0)
      console.log(
        `  peer (xgboost 1.7.4, same 50 configurations, 2 processes, no orchestration): ${peer.stdout.trim()}`,
      );
    else
      console.log(
        `  peer did not run (${PYTHON} with python3-xgboost needed): ${peer.stderr.trim().split('\n').pop()}`,
      );
  }

  if (ONLY.has('quality')) {
    for (const [label, def, metric, ranges] of [
      ['abalone validation:rmse', abalone({ num_round: '50' }), 'validation:rmse', ABALONE_RANGES],
      [
        'Hartmann 6-D (minimum −3.32237)',
        HARTMANN,
        'objective',
        { ContinuousParameterRanges: [1, 2, 3, 4, 5, 6].map((i) => ({ Name: `x${i}`, MinValue: '0', MaxValue: '1' })) },
      ],
    ] as const) {
      const best: Record<string, number[]> = { Bayesian: [], Random: [] };
      const time: Record<string, number[]> = { Bayesian: [], Random: [] };
      for (let seed = 1; seed <= SEEDS; seed++) {
        for (const strategy of ['Bayesian', 'Random'] as const) {
          const t = await tune(strategy, def, { MetricName: metric, RandomSeed: seed, ParameterRanges: ranges });
          // Hartmann's objective is f + 2 (one epoch of the settling curve): report f.
          best[strategy]!.push(bestOf(t, 20) - (metric === 'objective' ? 2 : 0));
          time[strategy]!.push(t.ms);
        }
      }
      console.log(
        `quality, ${label}, 20 jobs (2 parallel), ${SEEDS} seeds: median best Bayesian ${fmt(median(best.Bayesian!))}, Random ${fmt(median(best.Random!))}` +
          ` (Bayesian better in ${best.Bayesian!.filter((b, i) => b < best.Random![i]!).length} of ${SEEDS} seeds); median tuning time ${fmt(median(time.Bayesian!) / 1000, 1)} s vs ${fmt(median(time.Random!) / 1000, 1)} s`,
      );
      console.log(`  Bayesian: ${best.Bayesian!.map((v) => fmt(v, 3)).join(' ')}`);
      console.log(`  Random:   ${best.Random!.map((v) => fmt(v, 3)).join(' ')}`);
    }
  }

  if (ONLY.has('hyperband')) {
    // Time to reach `target`: the end time of the first child whose objective is at or below it.
    const timeTo = (t: Tuned, target: number) => {
      const ends = t.children
        .filter((c) => objective(c) <= target)
        .map((c) => c.TrainingEndTime!.getTime() - t.created);
      return ends.length ? Math.min(...ends) : Number.POSITIVE_INFINITY;
    };
    const minResource = Number(arg('min-resource', '9'));
    const workloads = [
      {
        label: `abalone, num_round 243 (MinResource ${minResource})`,
        def: abalone({ num_round: '243' }),
        metric: 'validation:rmse',
        ranges: ABALONE_RANGES,
        hyperband: { MinResource: minResource, MaxResource: 243 },
      },
      {
        // A learning curve whose early values rank configurations as the final ones do: what
        // Hyperband bets on. 27 epochs of 20 ms each.
        label: 'Hartmann 6-D, 27 epochs of 20 ms (MinResource 1)',
        def: { ...HARTMANN, StaticHyperParameters: { function: 'hartmann6', epochs: '27', epoch_ms: '20' } },
        metric: 'objective',
        ranges: {
          ContinuousParameterRanges: [1, 2, 3, 4, 5, 6].map((i) => ({ Name: `x${i}`, MinValue: '0', MaxValue: '1' })),
        },
        hyperband: { MinResource: 1, MaxResource: 27 },
      },
    ];
    const seeds = Math.min(SEEDS, 5);
    for (const w of workloads) {
      const runs: Record<string, Tuned[]> = { Hyperband: [], Random: [], Bayesian: [] };
      for (let seed = 1; seed <= seeds; seed++) {
        for (const strategy of ['Hyperband', 'Random', 'Bayesian'] as const) {
          runs[strategy]!.push(
            await tune(strategy, w.def, {
              MetricName: w.metric,
              RandomSeed: seed,
              // Hyperband's point is more configurations in the same time: it may launch three times as many.
              ResourceLimits: {
                MaxNumberOfTrainingJobs: strategy === 'Hyperband' ? 90 : 30,
                MaxParallelTrainingJobs: 2,
              },
              ParameterRanges: w.ranges,
              ...(strategy === 'Hyperband' ? { StrategyConfig: { HyperbandStrategyConfig: w.hyperband } } : {}),
            }),
          );
        }
      }
      // The objective to reach: Random's median best after its 30 jobs.
      const target = median(runs.Random!.map((t) => bestOf(t)));
      console.log(
        `hyperband: ${w.label}, 2 parallel, ${seeds} seeds; Random and Bayesian 30 jobs, Hyperband up to 90; target ${w.metric} ${fmt(target)} (Random's median best after 30)`,
      );
      for (const [strategy, list] of Object.entries(runs)) {
        const times = list.map((t) => timeTo(t, target));
        const reached = times.filter(Number.isFinite);
        const stopped = list.map((t) => t.children.filter((c) => c.TrainingJobStatus === 'Stopped').length);
        console.log(
          `  ${strategy}: reached it in ${reached.length} of ${seeds} seeds, median time ${reached.length ? fmt(median(reached) / 1000, 2) : '—'} s;` +
            ` whole tuning median ${fmt(median(list.map((t) => t.ms)) / 1000, 2)} s; median best ${fmt(median(list.map((t) => bestOf(t))))}; children stopped early: median ${median(stopped)}`,
        );
      }
    }
  }

  console.log(
    `(machine: ${process.env.BENCH_NOTE ?? 'shared with other agents; see the load average'}; load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
