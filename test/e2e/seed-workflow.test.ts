// The seed workflow of reference §1 A, end to end with the real JS SDK clients: upload the model
// to Slipway's S3, register and approve a version, create the model, a serverless endpoint config
// and an endpoint, wait for InService, invoke it (the number xgboost computes), clean up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeEndpointCommand,
  DescribeModelPackageCommand,
  ListModelPackagesCommand,
  SageMakerClient,
  UpdateModelPackageCommand,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { ACCOUNT, CREDENTIALS, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

const manifest = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')) as {
  seedRow: { csv: string; prediction: number };
};
const IMAGE = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/AmazonSageMaker-ExecutionRole`;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`seed workflow (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;
    let rt: SageMakerRuntimeClient;
    let s3: S3Client;
    before(async () => {
      server = await startServer(databaseArgs(dialect));
      const common = { endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS };
      sm = new SageMakerClient(common);
      rt = new SageMakerRuntimeClient(common);
      s3 = new S3Client({ ...common, forcePathStyle: true });
    });
    after(async () => {
      sm.destroy();
      rt.destroy();
      s3.destroy();
      await server.close();
    });

    test('register → approve → model → serverless endpoint → invoke → clean up', async () => {
      await s3.send(new CreateBucketCommand({ Bucket: 'sagemaker-models' }));
      await s3.send(
        new PutObjectCommand({
          Bucket: 'sagemaker-models',
          Key: 'xgboost-abalone/output/model.tar.gz',
          Body: readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
        }),
      );
      const group = 'xgboost-abalone-1700000000';
      const { ModelPackageGroupArn } = await sm.send(
        new CreateModelPackageGroupCommand({ ModelPackageGroupName: group, ModelPackageGroupDescription: 'abalone' }),
      );
      await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: ModelPackageGroupArn,
          ModelPackageDescription: 'xgboost abalone',
          ModelApprovalStatus: 'PendingManualApproval',
          InferenceSpecification: {
            Containers: [{ Image: IMAGE, ModelDataUrl: 's3://sagemaker-models/xgboost-abalone/output/model.tar.gz' }],
            SupportedContentTypes: ['text/csv'],
            SupportedResponseMIMETypes: ['text/csv'],
          },
        }),
      );
      const list = await sm.send(new ListModelPackagesCommand({ ModelPackageGroupName: group }));
      const packageArn = list.ModelPackageSummaryList![0]!.ModelPackageArn!;
      const described = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: packageArn }));
      assert.equal(described.ModelApprovalStatus, 'PendingManualApproval');
      await sm.send(new UpdateModelPackageCommand({ ModelPackageArn: packageArn, ModelApprovalStatus: 'Approved' }));

      await sm.send(
        new CreateModelCommand({
          ModelName: 'abalone-model',
          ExecutionRoleArn: ROLE,
          Containers: [{ ModelPackageName: packageArn }],
        }),
      );
      await sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'abalone-config',
          ProductionVariants: [
            {
              ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 10 },
              ModelName: 'abalone-model',
              VariantName: 'AllTraffic',
            },
          ],
        }),
      );
      const t0 = Date.now();
      const { EndpointArn } = await sm.send(
        new CreateEndpointCommand({ EndpointName: 'abalone-ep', EndpointConfigName: 'abalone-config' }),
      );
      assert.equal(EndpointArn, `arn:aws:sagemaker:${REGION}:${ACCOUNT}:endpoint/abalone-ep`);
      const creating = await sm.send(new DescribeEndpointCommand({ EndpointName: 'abalone-ep' }));
      // Deployment takes milliseconds here, so the first describe may already see InService.
      assert.ok(
        ['Creating', 'InService'].includes(creating.EndpointStatus!),
        `${creating.EndpointStatus}: ${creating.FailureReason}`,
      );

      await waitUntilEndpointInService(
        { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'abalone-ep' },
      );
      assert.ok(Date.now() - t0 < 5000, 'InService within seconds');
      const ready = await sm.send(new DescribeEndpointCommand({ EndpointName: 'abalone-ep' }));
      assert.equal(ready.EndpointStatus, 'InService');
      assert.equal(ready.EndpointConfigName, 'abalone-config');
      const variant = ready.ProductionVariants![0]!;
      assert.equal(variant.VariantName, 'AllTraffic');
      assert.deepEqual(variant.CurrentServerlessConfig, { MemorySizeInMB: 1024, MaxConcurrency: 10 });
      assert.equal(variant.DeployedImages?.[0]?.SpecifiedImage, IMAGE);

      const out = await rt.send(
        new InvokeEndpointCommand({
          EndpointName: 'abalone-ep',
          ContentType: 'text/csv',
          Body: Buffer.from(manifest.seedRow.csv),
        }),
      );
      const body = Buffer.from(out.Body!).toString();
      // Container 1.0-1 answers comma-separated predictions with no newline.
      assert.doesNotMatch(body, /\n/);
      assert.ok(
        Math.abs(Number(body) - manifest.seedRow.prediction) <= 1e-6 * Math.abs(manifest.seedRow.prediction),
        body,
      );
      assert.equal(out.InvokedProductionVariant, 'AllTraffic');

      await sm.send(new DeleteModelCommand({ ModelName: 'abalone-model' }));
      await sm.send(new DeleteEndpointConfigCommand({ EndpointConfigName: 'abalone-config' }));
      await sm.send(new DeleteEndpointCommand({ EndpointName: 'abalone-ep' }));
      await waitUntilEndpointDeleted(
        { client: sm, maxWaitTime: 30, minDelay: 1, maxDelay: 1 },
        { EndpointName: 'abalone-ep' },
      );
    });
  });
}
