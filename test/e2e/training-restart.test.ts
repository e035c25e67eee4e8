// A training job running when its server dies is never left InProgress: after `kill -9` and a
// restart on the same data, it ends Failed with a reason that says what happened.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateTrainingJobCommand,
  DescribeTrainingJobCommand,
  SageMakerClient,
  waitUntilTrainingJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import { CREDENTIALS, REGION, spawnServer, tempDir } from '../support/server.js';

const dataDir = tempDir();
after(() => rmSync(dataDir, { recursive: true, force: true }));

test('kill -9 while a job trains: after the restart the job is Failed with the reason', async () => {
  const args = ['--containers-file', 'test/fixtures/containers/containers.json'];
  const first = await spawnServer(args, dataDir);
  const clients = (endpoint: string) => ({
    sm: new SageMakerClient({ endpoint, region: REGION, credentials: CREDENTIALS }),
    s3: new S3Client({ endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true }),
  });
  const { sm, s3 } = clients(first.endpoint);
  await s3.send(new CreateBucketCommand({ Bucket: 'restart-data' }));
  await s3.send(new PutObjectCommand({ Bucket: 'restart-data', Key: 'train/a.csv', Body: '1,2\n' }));
  await sm.send(
    new CreateTrainingJobCommand({
      TrainingJobName: 'long-job',
      RoleArn: 'arn:aws:iam::111122223333:role/sm',
      AlgorithmSpecification: { TrainingImage: 'acct/slipway-test-train:1', TrainingInputMode: 'File' },
      HyperParameters: { mode: 'sleep' },
      InputDataConfig: [
        {
          ChannelName: 'train',
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://restart-data/train/' } },
        },
      ],
      OutputDataConfig: { S3OutputPath: 's3://restart-data/out' },
      ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
    }),
  );
  for (let i = 0; i < 200; i++) {
    if ((await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'long-job' }))).SecondaryStatus === 'Training')
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await spawnServer(args, dataDir);
  try {
    const { sm: sm2 } = clients(second.endpoint);
    await waitUntilTrainingJobCompletedOrStopped(
      { client: sm2, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
      { TrainingJobName: 'long-job' },
    ).catch(() => undefined);
    const d = await sm2.send(new DescribeTrainingJobCommand({ TrainingJobName: 'long-job' }));
    assert.equal(d.TrainingJobStatus, 'Failed');
    assert.match(d.FailureReason ?? '', /server stopped while the job was running/);
  } finally {
    await second.close();
  }
});
