// Model packages, models and endpoint configurations as SageMaker behaves, driven by the JS SDK on
// SQLite and PostgreSQL: versions, approval transitions, filters and pagination, and the errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AddTagsCommand,
  BatchDescribeModelPackageCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DeleteModelPackageCommand,
  DeleteModelPackageGroupCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  DescribeModelPackageCommand,
  ListEndpointConfigsCommand,
  ListModelPackagesCommand,
  ListModelsCommand,
  ListTagsCommand,
  SageMakerClient,
  UpdateModelPackageCommand,
  paginateListModelPackages,
} from '@aws-sdk/client-sagemaker';
import { rejects } from '../support/errors.js';
import { ACCOUNT, CREDENTIALS, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

const IMAGE = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/AmazonSageMaker-ExecutionRole`;
const SPEC = {
  Containers: [{ Image: IMAGE, ModelDataUrl: 's3://models/abalone/model.tar.gz' }],
  SupportedContentTypes: ['text/csv'],
  SupportedResponseMIMETypes: ['text/csv'],
};
const arn = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`registry (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;
    before(async () => {
      server = await startServer(databaseArgs(dialect));
      sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
      await sm.send(
        new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'abalone', ModelPackageGroupDescription: 'd' }),
      );
    });
    after(async () => {
      sm.destroy();
      await server.close();
    });

    test('versions number from 1 per group; describe by ARN and by group/version', async () => {
      const v1 = await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: 'abalone',
          ModelPackageDescription: 'first',
          InferenceSpecification: SPEC,
          CustomerMetadataProperties: { owner: 'ml' },
          Tags: [{ Key: 't', Value: '1' }],
        }),
      );
      assert.equal(v1.ModelPackageArn, arn('model-package', 'abalone/1'));
      const v2 = await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: arn('model-package-group', 'abalone'),
          InferenceSpecification: SPEC,
        }),
      );
      assert.equal(v2.ModelPackageArn, arn('model-package', 'abalone/2'));

      for (const ref of [v1.ModelPackageArn!, 'abalone/1']) {
        const d = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: ref }));
        assert.equal(d.ModelPackageArn, v1.ModelPackageArn);
        assert.equal(d.ModelPackageGroupName, 'abalone');
        assert.equal(d.ModelPackageVersion, 1);
        assert.equal(d.ModelPackageDescription, 'first');
        assert.equal(d.ModelApprovalStatus, 'PendingManualApproval');
        assert.equal(d.ModelPackageStatus, 'Completed');
        assert.deepEqual(d.InferenceSpecification, SPEC);
        assert.deepEqual(d.CustomerMetadataProperties, { owner: 'ml' });
        assert.ok(d.CreationTime instanceof Date && d.LastModifiedTime instanceof Date);
      }
      const tags = await sm.send(new ListTagsCommand({ ResourceArn: v1.ModelPackageArn }));
      assert.deepEqual(tags.Tags, [{ Key: 't', Value: '1' }]);
      // The seed notebook takes the first summary of the group's list as the package just created.
      const list = await sm.send(new ListModelPackagesCommand({ ModelPackageGroupName: 'abalone' }));
      assert.equal(list.ModelPackageSummaryList?.[0]?.ModelPackageArn, v1.ModelPackageArn);
      assert.equal(list.ModelPackageSummaryList?.length, 2);
    });

    test('CreateModelPackage errors', async () => {
      await rejects(
        sm.send(
          new CreateModelPackageCommand({
            ModelPackageGroupName: 'abalone',
            ModelPackageName: 'x',
            InferenceSpecification: SPEC,
          }),
        ),
        'ValidationException',
        'Both ModelPackageName and ModelPackageGroupName are provided in the input. Cannot determine which one to use.',
      );
      await rejects(
        sm.send(new CreateModelPackageCommand({ InferenceSpecification: SPEC })),
        'ValidationException',
        'Missing ARN.',
      );
      await rejects(
        sm.send(new CreateModelPackageCommand({ ModelPackageGroupName: 'nogroup', InferenceSpecification: SPEC })),
        'ValidationException',
        'Model Package Group does not exist.',
      );
      await rejects(
        sm.send(
          new CreateModelPackageCommand({
            ModelPackageGroupName: 'abalone',
            InferenceSpecification: { ...SPEC, Containers: [{ Image: IMAGE, ModelDataUrl: 'ftp://x/y' }] },
          }),
        ),
        'ValidationException',
        /inferenceSpecification\.containers\.1\.member\.modelDataUrl/,
      );
      await rejects(
        sm.send(new DescribeModelPackageCommand({ ModelPackageName: 'abalone/99' })),
        'ValidationException',
        `ModelPackage ${arn('model-package', 'abalone/99')} does not exist.`,
      );
    });

    test('ClientToken makes CreateModelPackage idempotent', async () => {
      const a = await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: 'abalone',
          InferenceSpecification: SPEC,
          ClientToken: 'tok-1',
        }),
      );
      const b = await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: 'abalone',
          InferenceSpecification: SPEC,
          ClientToken: 'tok-1',
        }),
      );
      assert.equal(a.ModelPackageArn, b.ModelPackageArn);
    });

    test('approval transitions allowed and refused; metadata add/remove', async () => {
      const { ModelPackageArn } = await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: 'abalone',
          InferenceSpecification: SPEC,
          CustomerMetadataProperties: { a: '1', b: '2' },
        }),
      );
      const status = async () =>
        (await sm.send(new DescribeModelPackageCommand({ ModelPackageName: ModelPackageArn }))).ModelApprovalStatus;
      await sm.send(new UpdateModelPackageCommand({ ModelPackageArn, ModelApprovalStatus: 'Rejected' }));
      assert.equal(await status(), 'Rejected');
      await rejects(
        sm.send(new UpdateModelPackageCommand({ ModelPackageArn, ModelApprovalStatus: 'PendingManualApproval' })),
        'ValidationException',
        /from Rejected to PendingManualApproval/,
      );
      await sm.send(
        new UpdateModelPackageCommand({
          ModelPackageArn,
          ModelApprovalStatus: 'Approved',
          ApprovalDescription: 'looks good',
          CustomerMetadataProperties: { c: '3' },
          CustomerMetadataPropertiesToRemove: ['a'],
        }),
      );
      const d = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: ModelPackageArn }));
      assert.equal(d.ModelApprovalStatus, 'Approved');
      assert.equal(d.ApprovalDescription, 'looks good');
      assert.deepEqual(d.CustomerMetadataProperties, { b: '2', c: '3' });
      await rejects(
        sm.send(new UpdateModelPackageCommand({ ModelPackageArn, ModelApprovalStatus: 'PendingManualApproval' })),
        'ValidationException',
        /from Approved to PendingManualApproval/,
      );
      await sm.send(new UpdateModelPackageCommand({ ModelPackageArn, ModelApprovalStatus: 'Rejected' }));
      assert.equal(await status(), 'Rejected');
      await rejects(
        sm.send(
          new UpdateModelPackageCommand({
            ModelPackageArn: arn('model-package', 'abalone/404'),
            ModelApprovalStatus: 'Approved',
          }),
        ),
        'ValidationException',
        /does not exist/,
      );
    });

    test('ListModelPackages: type defaults, approval filter, sort and pagination with ties', async () => {
      await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'paged' }));
      for (let i = 0; i < 7; i++) {
        await sm.send(new CreateModelPackageCommand({ ModelPackageGroupName: 'paged', InferenceSpecification: SPEC }));
      }
      await sm.send(new CreateModelPackageCommand({ ModelPackageName: 'standalone', InferenceSpecification: SPEC }));
      await sm.send(
        new UpdateModelPackageCommand({
          ModelPackageArn: arn('model-package', 'paged/3'),
          ModelApprovalStatus: 'Approved',
        }),
      );

      // With no group, only unversioned packages are listed.
      const unversioned = await sm.send(new ListModelPackagesCommand({}));
      assert.deepEqual(
        unversioned.ModelPackageSummaryList?.map((s) => s.ModelPackageName),
        ['standalone'],
      );
      const approved = await sm.send(
        new ListModelPackagesCommand({ ModelPackageGroupName: 'paged', ModelApprovalStatus: 'Approved' }),
      );
      assert.deepEqual(
        approved.ModelPackageSummaryList?.map((s) => s.ModelPackageVersion),
        [3],
      );

      // Every version has the same name: paging by Name must still visit each exactly once.
      for (const SortBy of ['Name', 'CreationTime'] as const) {
        for (const SortOrder of ['Ascending', 'Descending'] as const) {
          const seen: number[] = [];
          for await (const page of paginateListModelPackages(
            { client: sm, pageSize: 3 },
            { ModelPackageGroupName: 'paged', SortBy, SortOrder },
          )) {
            seen.push(...(page.ModelPackageSummaryList ?? []).map((s) => s.ModelPackageVersion!));
          }
          const want = [1, 2, 3, 4, 5, 6, 7];
          assert.deepEqual(seen, SortOrder === 'Ascending' ? want : want.reverse(), `${SortBy} ${SortOrder}`);
        }
      }
      const both = await sm.send(
        new ListModelPackagesCommand({ ModelPackageType: 'Both', NameContains: 'stand', MaxResults: 100 }),
      );
      assert.deepEqual(
        both.ModelPackageSummaryList?.map((s) => s.ModelPackageName),
        ['standalone'],
      );
      const batch = await sm.send(
        new BatchDescribeModelPackageCommand({
          ModelPackageArnList: [arn('model-package', 'paged/2'), arn('model-package', 'paged/99')],
        }),
      );
      assert.equal(batch.ModelPackageSummaries?.[arn('model-package', 'paged/2')]?.ModelPackageVersion, 2);
      assert.ok(batch.BatchDescribeModelPackageErrorMap?.[arn('model-package', 'paged/99')]);
    });

    test('a group cannot be deleted while it holds versions', async () => {
      await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'holder' }));
      await sm.send(new CreateModelPackageCommand({ ModelPackageGroupName: 'holder', InferenceSpecification: SPEC }));
      await rejects(
        sm.send(new DeleteModelPackageGroupCommand({ ModelPackageGroupName: 'holder' })),
        'ConflictException',
        /contains model packages/,
      );
      await sm.send(new DeleteModelPackageCommand({ ModelPackageName: 'holder/1' }));
      await sm.send(new DeleteModelPackageGroupCommand({ ModelPackageGroupName: 'holder' }));
    });

    test('models: from a package or an image; errors as SageMaker words them', async () => {
      const created = await sm.send(
        new CreateModelCommand({
          ModelName: 'Abalone-Model',
          ExecutionRoleArn: ROLE,
          Containers: [{ ModelPackageName: arn('model-package', 'abalone/1') }],
        }),
      );
      assert.equal(created.ModelArn, arn('model', 'abalone-model'));
      const d = await sm.send(new DescribeModelCommand({ ModelName: 'abalone-model' }));
      assert.equal(d.ModelName, 'Abalone-Model');
      assert.deepEqual(d.Containers, [{ ModelPackageName: arn('model-package', 'abalone/1') }]);
      assert.equal(d.ExecutionRoleArn, ROLE);
      await rejects(
        sm.send(
          new CreateModelCommand({
            ModelName: 'abalone-model',
            ExecutionRoleArn: ROLE,
            PrimaryContainer: { Image: IMAGE },
          }),
        ),
        'ValidationException',
        `Cannot create already existing model "${arn('model', 'abalone-model')}".`,
      );
      await rejects(
        sm.send(new CreateModelCommand({ ModelName: 'norole', PrimaryContainer: { Image: IMAGE } })),
        'ValidationException',
        /executionRoleArn/,
      );
      await rejects(
        sm.send(
          new CreateModelCommand({
            ModelName: 'nopkg',
            ExecutionRoleArn: ROLE,
            Containers: [{ ModelPackageName: 'abalone/77' }],
          }),
        ),
        'ValidationException',
        /does not exist/,
      );
      await rejects(
        sm.send(new DescribeModelCommand({ ModelName: 'ghost' })),
        'ValidationException',
        `Could not find model "${arn('model', 'ghost')}".`,
      );
      // Tags follow the resource, whatever case its ARN is written in.
      const mixedCase = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:model/Abalone-Model`;
      await sm.send(new AddTagsCommand({ ResourceArn: mixedCase, Tags: [{ Key: 'stage', Value: 'prod' }] }));
      const tags = await sm.send(new ListTagsCommand({ ResourceArn: created.ModelArn }));
      assert.deepEqual(tags.Tags, [{ Key: 'stage', Value: 'prod' }]);
      await sm.send(
        new CreateModelCommand({
          ModelName: 'img-model',
          ExecutionRoleArn: ROLE,
          PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://b/k' },
        }),
      );
      const models = await sm.send(new ListModelsCommand({}));
      // Newest first by default.
      assert.deepEqual(
        models.Models?.map((m) => m.ModelName),
        ['img-model', 'Abalone-Model'],
      );
      await sm.send(new DeleteModelCommand({ ModelName: 'img-model' }));
      await rejects(
        sm.send(new DeleteModelCommand({ ModelName: 'img-model' })),
        'ValidationException',
        /Could not find model/,
      );
    });

    test('endpoint configs: serverless rules and the model must exist', async () => {
      const variant = {
        VariantName: 'AllTraffic',
        ModelName: 'Abalone-Model',
        ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 10 },
      };
      const c = await sm.send(
        new CreateEndpointConfigCommand({ EndpointConfigName: 'Cfg', ProductionVariants: [variant] }),
      );
      assert.equal(c.EndpointConfigArn, arn('endpoint-config', 'cfg'));
      const d = await sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: 'cfg' }));
      assert.equal(d.ProductionVariants?.[0]?.ServerlessConfig?.MaxConcurrency, 10);
      await rejects(
        sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: 'cfg', ProductionVariants: [variant] })),
        'ValidationException',
        `Cannot create already existing endpoint configuration "${arn('endpoint-config', 'cfg')}".`,
      );
      await rejects(
        sm.send(
          new CreateEndpointConfigCommand({
            EndpointConfigName: 'c2',
            ProductionVariants: [{ ...variant, ModelName: 'nope' }],
          }),
        ),
        'ValidationException',
        `Could not find model "${arn('model', 'nope')}".`,
      );
      await rejects(
        sm.send(
          new CreateEndpointConfigCommand({
            EndpointConfigName: 'c3',
            ProductionVariants: [{ ...variant, ServerlessConfig: { MemorySizeInMB: 1500, MaxConcurrency: 10 } }],
          }),
        ),
        'ValidationException',
        /MemorySizeInMB 1500 is not supported/,
      );
      await rejects(
        sm.send(
          new CreateEndpointConfigCommand({
            EndpointConfigName: 'c4',
            ProductionVariants: [{ ...variant, ServerlessConfig: { MemorySizeInMB: 8192, MaxConcurrency: 201 } }],
          }),
        ),
        'ValidationException',
        "2 validation errors detected: Value '8192' at 'productionVariants.1.member.serverlessConfig.memorySizeInMB' failed to satisfy constraint: Member must have value less than or equal to 6144; Value '201' at 'productionVariants.1.member.serverlessConfig.maxConcurrency' failed to satisfy constraint: Member must have value less than or equal to 200",
      );
      await rejects(
        sm.send(
          new CreateEndpointConfigCommand({
            EndpointConfigName: 'c5',
            ProductionVariants: [
              { ...variant, ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: 2, ProvisionedConcurrency: 3 } },
            ],
          }),
        ),
        'ValidationException',
        /ProvisionedConcurrency \(3\) must be less than or equal to MaxConcurrency \(2\)/,
      );
      await rejects(
        sm.send(
          new CreateEndpointConfigCommand({
            EndpointConfigName: 'c6',
            ProductionVariants: [variant, { ...variant, VariantName: 'B' }],
          }),
        ),
        'ValidationException',
        /only one production variant/,
      );
      await sm.send(new AddTagsCommand({ ResourceArn: c.EndpointConfigArn, Tags: [{ Key: 'k', Value: 'v' }] }));
      assert.deepEqual((await sm.send(new ListTagsCommand({ ResourceArn: c.EndpointConfigArn }))).Tags, [
        { Key: 'k', Value: 'v' },
      ]);
      const list = await sm.send(new ListEndpointConfigsCommand({ NameContains: 'cf' }));
      assert.deepEqual(
        list.EndpointConfigs?.map((e) => e.EndpointConfigName),
        ['Cfg'],
      );
      await sm.send(new DeleteEndpointConfigCommand({ EndpointConfigName: 'cfg' }));
      await rejects(
        sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: 'cfg' })),
        'ValidationException',
        `Could not find endpoint configuration "${arn('endpoint-config', 'cfg')}".`,
      );
    });
  });
}
