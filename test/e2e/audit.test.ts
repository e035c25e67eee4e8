// Who registered and who approved a model: CreatedBy / LastModifiedBy (UserContext.IamIdentity) of
// model packages and groups name the signing principal of a credentials file, and the account root
// on a server without one, as SageMaker records them.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  DescribeModelPackageCommand,
  DescribeModelPackageGroupCommand,
  SageMakerClient,
  SearchCommand,
  UpdateModelPackageCommand,
} from '@aws-sdk/client-sagemaker';
import { ALICE, ALICE_ARN, BOB, BOB_ARN, writeCredentialsFile } from '../support/credentials.js';
import { ACCOUNT, REGION, startServer, tempDir, type TestServer } from '../support/server.js';

const CONTAINERS = [
  { Image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.7-1`, ModelDataUrl: 's3://m/model.tar.gz' },
];
const IAM_USER_ID = /^AIDA[A-Z2-7]{17}$/;

describe('audit fields', () => {
  describe('with a credentials file', () => {
    const dir = tempDir();
    let server: TestServer;
    const client = (c: typeof ALICE) =>
      new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: c, maxAttempts: 1 });

    before(async () => {
      // alice registers; bob reviews (approves) and may do nothing else.
      const file = writeCredentialsFile(dir, {
        principals: [
          {
            ...ALICE,
            arn: ALICE_ARN,
            policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
          },
          {
            ...BOB,
            arn: BOB_ARN,
            policy: {
              Version: '2012-10-17',
              Statement: [
                { Effect: 'Allow', Action: ['sagemaker:UpdateModelPackage', 'sagemaker:Describe*'], Resource: '*' },
              ],
            },
          },
        ],
      });
      server = await startServer(['--credentials-file', file]);
    });
    after(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('names who registered a version and who approved it', async () => {
      const alice = client(ALICE);
      const bob = client(BOB);
      try {
        await alice.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'audited' }));
        const group = await bob.send(new DescribeModelPackageGroupCommand({ ModelPackageGroupName: 'audited' }));
        assert.equal(group.CreatedBy?.IamIdentity?.Arn, ALICE_ARN);
        assert.match(group.CreatedBy?.IamIdentity?.PrincipalId ?? '', IAM_USER_ID);

        const { ModelPackageArn } = await alice.send(
          new CreateModelPackageCommand({
            ModelPackageGroupName: 'audited',
            ModelApprovalStatus: 'PendingManualApproval',
            InferenceSpecification: {
              Containers: CONTAINERS,
              SupportedContentTypes: ['text/csv'],
              SupportedResponseMIMETypes: ['text/csv'],
            },
          }),
        );
        const registered = await bob.send(new DescribeModelPackageCommand({ ModelPackageName: ModelPackageArn }));
        assert.equal(registered.CreatedBy?.IamIdentity?.Arn, ALICE_ARN);
        assert.equal(registered.LastModifiedBy?.IamIdentity?.Arn, ALICE_ARN);

        await bob.send(
          new UpdateModelPackageCommand({
            ModelPackageArn,
            ModelApprovalStatus: 'Approved',
            ApprovalDescription: 'metrics look right',
          }),
        );
        const approved = await alice.send(new DescribeModelPackageCommand({ ModelPackageName: ModelPackageArn }));
        assert.equal(approved.ModelApprovalStatus, 'Approved');
        assert.equal(approved.CreatedBy?.IamIdentity?.Arn, ALICE_ARN);
        assert.equal(approved.LastModifiedBy?.IamIdentity?.Arn, BOB_ARN);
        const ids = [approved.CreatedBy?.IamIdentity?.PrincipalId, approved.LastModifiedBy?.IamIdentity?.PrincipalId];
        assert.notEqual(ids[0], ids[1], 'each principal has its own id');
        assert.equal(ids[0], group.CreatedBy?.IamIdentity?.PrincipalId, 'the same principal keeps its id');

        // Search returns the same record.
        const found = await alice.send(
          new SearchCommand({
            Resource: 'ModelPackage',
            SearchExpression: { Filters: [{ Name: 'ModelPackageGroupName', Operator: 'Equals', Value: 'audited' }] },
          }),
        );
        assert.equal(found.Results?.[0]?.ModelPackage?.LastModifiedBy?.IamIdentity?.Arn, BOB_ARN);
      } finally {
        alice.destroy();
        bob.destroy();
      }
    });
  });

  describe('without a credentials file', () => {
    let server: TestServer;
    before(async () => {
      server = await startServer();
    });
    after(async () => server?.close());

    it('records the account root, as AWS shows it', async () => {
      const sm = new SageMakerClient({
        endpoint: server.endpoint,
        region: REGION,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      try {
        await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'local' }));
        const group = await sm.send(new DescribeModelPackageGroupCommand({ ModelPackageGroupName: 'local' }));
        assert.deepEqual(group.CreatedBy, {
          IamIdentity: { Arn: `arn:aws:iam::${ACCOUNT}:root`, PrincipalId: ACCOUNT },
        });
      } finally {
        sm.destroy();
      }
    });
  });
});
