// A tuning job survives its server: after `kill -9` and a restart on the same data, its run resumes
// where it was. The child that was training ends Failed (counted as a retryable error, the server's
// fault, not the job's), and the tuning job launches the rest of its budget and completes.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateHyperParameterTuningJobCommand,
  DescribeHyperParameterTuningJobCommand,
  ListTrainingJobsForHyperParameterTuningJobCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { CREDENTIALS, REGION, spawnServer, tempDir } from '../support/server.js';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('kill -9 during a tuning job: after the restart it resumes and completes its budget', async () => {
  const args = ['--containers-file', 'test/fixtures/containers/containers.json'];
  const client = (endpoint: string) => new SageMakerClient({ endpoint, region: REGION, credentials: CREDENTIALS });
  const first = await spawnServer(args, dataDir);
  const sm = client(first.endpoint);
  const s3 = new S3Client({ endpoint: first.endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'restart' }));
  await sm.send(
    new CreateHyperParameterTuningJobCommand({
      HyperParameterTuningJobName: 'survivor',
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        RandomSeed: 4,
        ResourceLimits: { MaxNumberOfTrainingJobs: 5, MaxParallelTrainingJobs: 1 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'objective' },
        ParameterRanges: { ContinuousParameterRanges: [{ Name: 'x1', MinValue: '0', MaxValue: '1' }] },
      },
      TrainingJobDefinition: {
        StaticHyperParameters: { function: 'sphere', epochs: '4', epoch_ms: '150' },
        AlgorithmSpecification: {
          TrainingImage: '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-objective:1',
          TrainingInputMode: 'File',
          MetricDefinitions: [{ Name: 'objective', Regex: 'objective=([-0-9.eE+]+)' }],
        },
        RoleArn: 'arn:aws:iam::111122223333:role/sm',
        OutputDataConfig: { S3OutputPath: 's3://restart/out' },
        ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
        StoppingCondition: { MaxRuntimeInSeconds: 600 },
      },
    }),
  );
  const describe = (c: SageMakerClient) =>
    c.send(new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'survivor' }));
  // Kill it while its second child trains.
  for (let i = 0; i < 400 && ((await describe(sm)).TrainingJobStatusCounters?.Completed ?? 0) < 1; i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  await new Promise((r) => setTimeout(r, 150));
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await spawnServer(args, dataDir);
  try {
    const sm2 = client(second.endpoint);
    let d = await describe(sm2);
    for (let i = 0; i < 600 && d.HyperParameterTuningJobStatus === 'InProgress'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      d = await describe(sm2);
    }
    const list = await sm2.send(
      new ListTrainingJobsForHyperParameterTuningJobCommand({
        HyperParameterTuningJobName: 'survivor',
        SortBy: 'Name',
      }),
    );
    const reasons = list.TrainingJobSummaries!.map(
      (s) => `${s.TrainingJobName}: ${s.TrainingJobStatus} ${s.FailureReason ?? ''}`,
    );
    assert.equal(d.HyperParameterTuningJobStatus, 'Completed', `${d.FailureReason}\n${reasons.join('\n')}`);
    const c = d.TrainingJobStatusCounters!;
    assert.equal(c.Completed! + c.RetryableError!, 5, JSON.stringify(c));
    assert.ok(c.RetryableError! >= 1, `the child killed with its server: ${JSON.stringify(c)}`);
    assert.equal(list.TrainingJobSummaries!.length, 5);
    const failed = list.TrainingJobSummaries!.find((s) => s.TrainingJobStatus === 'Failed')!;
    assert.match(failed.FailureReason!, /^InternalServerError: /);
    assert.equal(failed.ObjectiveStatus, 'Failed');
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});
