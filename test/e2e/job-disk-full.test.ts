// A job whose output does not fit on the disk: Slipway's data directory on a small tmpfs (in a
// user and mount namespace, so no privileges are needed), a processing script that writes more
// than the space left for its upload. The job must fail with a reason a user can act on, leave
// nothing half-uploaded under its output prefix, and the server must keep serving.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  CreateProcessingJobCommand,
  type CreateProcessingJobCommandInput,
  DescribeProcessingJobCommand,
  type SageMakerClient,
  waitUntilProcessingJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import { sdkClients } from '../support/clients.js';
import { spawnServer, tempDir } from '../support/server.js';

const PROC = '111122223333.dkr.ecr.us-west-2.amazonaws.com/slipway-test-process:1';

describe('a job whose output is larger than the disk allows', () => {
  let endpoint: string;
  let stop: () => Promise<void>;
  let sm: SageMakerClient;
  let s3: S3Client;
  before(async () => {
    const dataDir = tempDir('slipway-full-disk-');
    // The data directory becomes a 40 MiB tmpfs seen only by this server and its children.
    const server = await spawnServer(['--containers-file', 'test/fixtures/containers/containers.json'], dataDir, [
      'unshare',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      'mount -t tmpfs -o size=40m tmpfs "$0" && exec "$@"',
      dataDir,
    ]);
    endpoint = server.endpoint;
    stop = () => server.close();
    ({ sm, s3 } = sdkClients(endpoint));
    await s3.send(new CreateBucketCommand({ Bucket: 'ml-data' }));
    await s3.send(new PutObjectCommand({ Bucket: 'ml-data', Key: 'raw/rows.csv', Body: '1,2,3\n4,5,6\n' }));
  });
  after(() => stop());

  const job = (name: string, files: number): CreateProcessingJobCommandInput => ({
    ProcessingJobName: name,
    RoleArn: 'arn:aws:iam::111122223333:role/sm',
    AppSpecification: { ImageUri: PROC, ContainerArguments: ['--mode', 'big'] },
    ProcessingResources: { ClusterConfig: { InstanceCount: 1, InstanceType: 'ml.m5.xlarge', VolumeSizeInGB: 1 } },
    ProcessingInputs: [
      {
        InputName: 'raw',
        S3Input: { S3Uri: 's3://ml-data/raw', LocalPath: '/opt/ml/processing/input/raw', S3DataType: 'S3Prefix' },
      },
    ],
    ProcessingOutputConfig: {
      Outputs: [
        {
          OutputName: 'train',
          S3Output: {
            S3Uri: `s3://ml-data/${name}/train`,
            LocalPath: '/opt/ml/processing/output/train',
            S3UploadMode: 'EndOfJob',
          },
        },
      ],
    },
    Environment: { BIG_FILES: String(files) },
  });
  const finish = async (name: string) => {
    await waitUntilProcessingJobCompletedOrStopped(
      { client: sm, minDelay: 1, maxDelay: 1, maxWaitTime: 120 },
      { ProcessingJobName: name },
    ).catch(() => undefined);
    return sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: name }));
  };
  const keys = async (prefix: string) =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: 'ml-data', Prefix: prefix }))).Contents ?? []).map((o) => o.Key);

  test('fails with the reason, uploads nothing, and the server goes on', async () => {
    // 6 × 4 MiB written by the script fit; uploading them needs as much again, which does not.
    await sm.send(new CreateProcessingJobCommand(job('too-big', 6)));
    const d = await finish('too-big');
    assert.equal(d.ProcessingJobStatus, 'Failed');
    assert.match(
      d.FailureReason ?? '',
      /^ClientError: The job's output does not fit: no space left on the device that holds Slipway's data directory/,
    );
    assert.deepEqual(await keys('too-big/'), [], 'nothing half-uploaded under the output prefix');
    assert.equal((await fetch(`${endpoint}/_slipway/health`)).status, 200);
    // The failed job's files are gone, so a job that fits runs.
    await sm.send(new CreateProcessingJobCommand(job('fits', 1)));
    const ok = await finish('fits');
    assert.equal(ok.ProcessingJobStatus, 'Completed', ok.FailureReason);
    assert.deepEqual(await keys('fits/'), ['fits/train/part-0']);
  });
});
