// Search with the real AWS SDK for JavaScript v3, on SQLite and PostgreSQL: trial components by
// metrics, parameters, parents and tags, sorted and paged; the other resource types; the index
// following updates, tags, membership and deletes; and the errors for bad expressions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AddTagsCommand,
  AssociateTrialComponentCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateExperimentCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  CreateTrialCommand,
  CreateTrialComponentCommand,
  DeleteTrialComponentCommand,
  DisassociateTrialComponentCommand,
  SageMakerClient,
  SearchCommand,
  type SearchCommandInput,
  UpdateModelPackageCommand,
  UpdateTrialComponentCommand,
  paginateSearch,
} from '@aws-sdk/client-sagemaker';
import { openDatabase } from '../../src/storage/db/index.js';
import type { Database } from '../../src/storage/db/types.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { rejects } from '../support/errors.js';
import { ACCOUNT, CREDENTIALS, PG_URL, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

const arnOf = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`Search (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;
    /** A second connection to the server's database: writes metrics as training jobs do. */
    let db: Database;
    const args = databaseArgs(dialect);

    before(async () => {
      server = await startServer(args);
      sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
      const schema = args[args.indexOf('--database-schema') + 1];
      db = await openDatabase(
        dialect === 'sqlite'
          ? { dataDir: server.dataDir, migrations: MIGRATIONS }
          : { url: PG_URL, schema, migrations: MIGRATIONS },
      );
    });
    after(async () => {
      await db.close();
      sm.destroy();
      await server.close();
    });

    const search = async (
      input: Omit<SearchCommandInput, 'Resource'> & { Resource?: SearchCommandInput['Resource'] },
    ) => sm.send(new SearchCommand({ Resource: 'ExperimentTrialComponent', ...input }));
    const names = (r: Awaited<ReturnType<typeof search>>) =>
      (r.Results ?? []).map((x) => x.TrialComponent?.TrialComponentName);

    /** Metrics as a training job records them on its trial component (no API writes them). */
    const setMetrics = async (name: string, rmse: number) => {
      const arn = arnOf('experiment-trial-component', name);
      const row = await db.get<{ doc: string }>('SELECT doc FROM lineage_entities WHERE arn = ?', [arn]);
      const doc = JSON.parse(row!.doc);
      doc.Metrics = [
        { MetricName: 'validation:rmse', Min: rmse, Max: rmse * 2, Last: rmse * 1.5, Count: 10, Avg: rmse * 1.2 },
        { MetricName: 'train:rmse', Min: rmse / 2, Max: rmse, Last: rmse / 2, Count: 10 },
      ];
      await db.run('UPDATE lineage_entities SET doc = ? WHERE arn = ?', [JSON.stringify(doc), arn]);
    };

    test('trial components by metric, parameter, parent and tag; sorted, paged, kept up to date', async () => {
      await sm.send(new CreateExperimentCommand({ ExperimentName: 'xgb' }));
      await sm.send(new CreateTrialCommand({ TrialName: 'xgb-t1', ExperimentName: 'xgb' }));
      for (let i = 0; i < 12; i++) {
        const name = `tc-${String(i).padStart(2, '0')}`;
        await sm.send(
          new CreateTrialComponentCommand({
            TrialComponentName: name,
            Parameters: {
              max_depth: { NumberValue: i % 6 },
              objective: { StringValue: i % 2 ? 'reg:squarederror' : 'binary:logistic' },
            },
            Tags: i % 3 === 0 ? [{ Key: 'team', Value: 'ml' }] : undefined,
          }),
        );
        await setMetrics(name, 1 + i / 10);
        if (i < 5) await sm.send(new AssociateTrialComponentCommand({ TrialComponentName: name, TrialName: 'xgb-t1' }));
      }

      // Metrics.validation:rmse.Min < 1.5, best first: an index range read in order.
      const best = await search({
        SearchExpression: { Filters: [{ Name: 'Metrics.validation:rmse.Min', Operator: 'LessThan', Value: '1.5' }] },
        SortBy: 'Metrics.validation:rmse.Min',
        SortOrder: 'Ascending',
        MaxResults: 3,
      });
      assert.deepEqual(names(best), ['tc-00', 'tc-01', 'tc-02']);
      const tc = best.Results![0]!.TrialComponent!;
      assert.equal(tc.Metrics?.find((m) => m.MetricName === 'validation:rmse')?.Min, 1);
      assert.deepEqual(tc.Parameters?.max_depth, { NumberValue: 0 });
      assert.deepEqual(tc.Parents, [{ TrialName: 'xgb-t1', ExperimentName: 'xgb' }]);
      assert.deepEqual(tc.Tags, [{ Key: 'team', Value: 'ml' }]);
      assert.ok(tc.CreationTime instanceof Date && tc.LastModifiedTime instanceof Date);
      const rest = await search({
        SearchExpression: { Filters: [{ Name: 'Metrics.validation:rmse.Min', Operator: 'LessThan', Value: '1.5' }] },
        SortBy: 'Metrics.validation:rmse.Min',
        SortOrder: 'Ascending',
        MaxResults: 3,
        NextToken: best.NextToken,
      });
      assert.deepEqual(names(rest), ['tc-03', 'tc-04']);
      assert.equal(rest.NextToken, undefined);

      // The SDK's paginator walks every page; descending by default order of the sort path.
      const all: string[] = [];
      for await (const page of paginateSearch(
        { client: sm, pageSize: 5 },
        { Resource: 'ExperimentTrialComponent', SortBy: 'Metrics.validation:rmse.Min' },
      )) {
        all.push(...names(page).map(String));
      }
      assert.deepEqual(
        all,
        Array.from({ length: 12 }, (_, i) => `tc-${String(11 - i).padStart(2, '0')}`),
      );

      // Parameters: NumberValue compares as a number, StringValue as text.
      const deep = await search({
        SearchExpression: {
          Filters: [
            { Name: 'Parameters.max_depth', Operator: 'GreaterThanOrEqualTo', Value: '4' },
            { Name: 'Parameters.objective', Operator: 'Equals', Value: 'reg:squarederror' },
          ],
        },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(deep), ['tc-05', 'tc-11']);

      // Parents (ExperimentAnalytics' filter), Tags, Or, Contains, In, NotExists, NestedFilters.
      const inExperiment = await search({
        SearchExpression: { Filters: [{ Name: 'Parents.ExperimentName', Operator: 'Equals', Value: 'xgb' }] },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(inExperiment), ['tc-00', 'tc-01', 'tc-02', 'tc-03', 'tc-04']);
      const tagged = await search({
        SearchExpression: { Filters: [{ Name: 'Tags.team', Value: 'ml' }] },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(tagged), ['tc-00', 'tc-03', 'tc-06', 'tc-09']);
      const either = await search({
        SearchExpression: {
          Operator: 'Or',
          SubExpressions: [
            { Filters: [{ Name: 'TrialComponentName', Operator: 'Contains', Value: 'C-1' }] },
            { Filters: [{ Name: 'Parameters.max_depth', Operator: 'Equals', Value: '0' }] },
          ],
        },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(either), ['tc-00', 'tc-06', 'tc-10', 'tc-11']);
      const picked = await search({
        SearchExpression: { Filters: [{ Name: 'TrialComponentName', Operator: 'In', Value: 'tc-01,tc-07' }] },
      });
      assert.deepEqual(names(picked).sort(), ['tc-01', 'tc-07']);
      const orphans = await search({
        SearchExpression: { Filters: [{ Name: 'Parents.TrialName', Operator: 'NotExists' }] },
        MaxResults: 100,
      });
      assert.equal(names(orphans).length, 7);
      const nested = await search({
        SearchExpression: {
          NestedFilters: [
            {
              NestedPropertyName: 'Parents',
              Filters: [
                { Name: 'Parents.TrialName', Operator: 'Equals', Value: 'xgb-t1' },
                { Name: 'Parents.ExperimentName', Operator: 'Equals', Value: 'xgb' },
              ],
            },
          ],
        },
      });
      assert.equal(names(nested).length, 5);

      // The index follows updates, membership changes and deletes.
      await sm.send(
        new UpdateTrialComponentCommand({ TrialComponentName: 'tc-11', Parameters: { max_depth: { NumberValue: 0 } } }),
      );
      await sm.send(new DisassociateTrialComponentCommand({ TrialComponentName: 'tc-00', TrialName: 'xgb-t1' }));
      await sm.send(new DeleteTrialComponentCommand({ TrialComponentName: 'tc-00' }));
      await sm.send(
        new AddTagsCommand({
          ResourceArn: arnOf('experiment-trial-component', 'tc-01'),
          Tags: [{ Key: 'team', Value: 'ml' }],
        }),
      );
      // Overwriting a tag (an upsert of the tag row) moves the resource too.
      await sm.send(
        new AddTagsCommand({
          ResourceArn: arnOf('experiment-trial-component', 'tc-03'),
          Tags: [{ Key: 'team', Value: 'ds' }],
        }),
      );
      const zero = await search({
        SearchExpression: { Filters: [{ Name: 'Parameters.max_depth', Value: '0' }] },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(zero), ['tc-06', 'tc-11']);
      const tagged2 = await search({
        SearchExpression: { Filters: [{ Name: 'Tags.team', Value: 'ml' }] },
        SortBy: 'TrialComponentName',
        SortOrder: 'Ascending',
      });
      assert.deepEqual(names(tagged2), ['tc-01', 'tc-06', 'tc-09']);
    });

    test('model packages, groups and experiments answer in their own record members', async () => {
      await sm.send(
        new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'churn', Tags: [{ Key: 'stage', Value: 'prod' }] }),
      );
      for (let i = 0; i < 3; i++)
        await sm.send(
          new CreateModelPackageCommand({ ModelPackageGroupName: 'churn', ModelPackageDescription: `v${i + 1}` }),
        );
      await sm.send(
        new UpdateModelPackageCommand({
          ModelPackageArn: arnOf('model-package', 'churn/2'),
          ModelApprovalStatus: 'Approved',
        }),
      );
      const approved = await sm.send(
        new SearchCommand({
          Resource: 'ModelPackage',
          SearchExpression: { Filters: [{ Name: 'ModelApprovalStatus', Operator: 'Equals', Value: 'Approved' }] },
        }),
      );
      assert.deepEqual(
        approved.Results?.map((r) => [r.ModelPackage?.ModelPackageArn, r.ModelPackage?.ModelPackageDescription]),
        [[arnOf('model-package', 'churn/2'), 'v2']],
      );
      const versions = await sm.send(
        new SearchCommand({
          Resource: 'ModelPackage',
          SearchExpression: { Filters: [{ Name: 'ModelPackageVersion', Operator: 'GreaterThan', Value: '1' }] },
          SortBy: 'ModelPackageVersion',
          SortOrder: 'Ascending',
        }),
      );
      assert.deepEqual(
        versions.Results?.map((r) => r.ModelPackage?.ModelPackageVersion),
        [2, 3],
      );
      const groups = await sm.send(
        new SearchCommand({
          Resource: 'ModelPackageGroup',
          SearchExpression: { Filters: [{ Name: 'Tags.stage', Value: 'prod' }] },
        }),
      );
      assert.equal(groups.Results?.[0]?.ModelPackageGroup?.ModelPackageGroupArn, arnOf('model-package-group', 'churn'));
      const experiments = await sm.send(new SearchCommand({ Resource: 'Experiment' }));
      assert.deepEqual(
        experiments.Results?.map((r) => r.Experiment?.ExperimentName),
        ['xgb'],
      );
      const trials = await sm.send(
        new SearchCommand({
          Resource: 'ExperimentTrial',
          SearchExpression: { Filters: [{ Name: 'ExperimentName', Value: 'xgb' }] },
        }),
      );
      assert.deepEqual(
        trials.Results?.map((r) => r.Trial?.TrialName),
        ['xgb-t1'],
      );
      // Nothing of a type Slipway does not serve; nothing shared from other accounts.
      assert.deepEqual((await sm.send(new SearchCommand({ Resource: 'Pipeline' }))).Results, []);
      assert.deepEqual(
        (await sm.send(new SearchCommand({ Resource: 'Experiment', CrossAccountFilterOption: 'CrossAccount' })))
          .Results,
        [],
      );
    });

    test('endpoints: a deployment that fails in the background is found by its new status', async () => {
      await sm.send(
        new CreateModelCommand({
          ModelName: 'lost',
          ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/sagemaker`,
          PrimaryContainer: {
            Image: '246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.7-1',
            ModelDataUrl: 's3://no-such-bucket/model.tar.gz',
          },
        }),
      );
      await sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'lost-cfg',
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: 'lost',
              ServerlessConfig: { MemorySizeInMB: 2048, MaxConcurrency: 1 },
            },
          ],
        }),
      );
      await sm.send(
        new CreateEndpointCommand({
          EndpointName: 'lost-ep',
          EndpointConfigName: 'lost-cfg',
          Tags: [{ Key: 'team', Value: 'ml' }],
        }),
      );
      const failed = () =>
        sm.send(
          new SearchCommand({
            Resource: 'Endpoint',
            SearchExpression: { Filters: [{ Name: 'EndpointStatus', Value: 'Failed' }] },
          }),
        );
      const deadline = Date.now() + 20_000;
      let found = await failed();
      while (found.Results?.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        found = await failed();
      }
      const ep = found.Results?.[0]?.Endpoint;
      assert.equal(ep?.EndpointName, 'lost-ep');
      assert.equal(ep?.EndpointConfigName, 'lost-cfg');
      assert.match(ep?.FailureReason ?? '', /.+/);
      assert.deepEqual(ep?.Tags, [{ Key: 'team', Value: 'ml' }]);
    });

    test('bad expressions are ValidationExceptions', async () => {
      await rejects(
        search({ SearchExpression: { Filters: [{ Name: 'Nope.Nothing', Value: 'x' }] } }),
        'ValidationException',
        /Nope\.Nothing.*not a valid property/,
      );
      await rejects(search({ SortBy: 'NoSuchField' }), 'ValidationException', /NoSuchField/);
      await rejects(
        search({
          SearchExpression: { Filters: [{ Name: 'TrialComponentName', Operator: 'GreaterThan', Value: 'a' }] },
        }),
        'ValidationException',
        /not supported for text property/,
      );
      await rejects(
        search({ SearchExpression: { Filters: [{ Name: 'Metrics.x.Min', Operator: 'LessThan', Value: 'abc' }] } }),
        'ValidationException',
        /must be a number/,
      );
      await rejects(
        search({
          SearchExpression: {
            Filters: [
              { Name: 'DisplayName', Operator: 'Contains', Value: 'a' },
              { Name: 'TrialComponentName', Operator: 'Contains', Value: 'b' },
            ],
          },
        }),
        'ValidationException',
        "A SearchExpression can't include more than one Contains operator.",
      );
      let deep: NonNullable<SearchCommandInput['SearchExpression']> = {
        Filters: [{ Name: 'DisplayName', Value: 'x' }],
      };
      for (let i = 0; i < 6; i++) deep = { SubExpressions: [deep] };
      await rejects(search({ SearchExpression: deep }), 'ValidationException', /nested at most/);
      const many = Array.from({ length: 20 }, () => ({ Name: 'DisplayName', Value: 'x' }));
      await rejects(
        search({ SearchExpression: { SubExpressions: [{ Filters: many }, { Filters: many }, { Filters: many }] } }),
        'ValidationException',
        /maximum number of recursive/,
      );
      // The model's own limit: at most 20 filters in one list.
      await rejects(search({ SearchExpression: { Filters: [...many, many[0]!] } }), 'ValidationException', /20/);
    });
  });
}
