// Experiments, trials and trial components with the real AWS SDK for JavaScript v3, on SQLite and
// PostgreSQL: CRUD, membership, every list filter, pagination and the errors SageMaker answers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AddAssociationCommand,
  AssociateTrialComponentCommand,
  CreateArtifactCommand,
  CreateExperimentCommand,
  CreateTrialCommand,
  CreateTrialComponentCommand,
  DeleteExperimentCommand,
  DeleteTrialCommand,
  DeleteTrialComponentCommand,
  DescribeExperimentCommand,
  DescribeTrialCommand,
  DescribeTrialComponentCommand,
  DisassociateTrialComponentCommand,
  ListExperimentsCommand,
  ListTagsCommand,
  ListTrialComponentsCommand,
  ListTrialsCommand,
  QueryLineageCommand,
  SageMakerClient,
  UpdateExperimentCommand,
  UpdateTrialCommand,
  UpdateTrialComponentCommand,
  paginateListExperiments,
  paginateListTrialComponents,
} from '@aws-sdk/client-sagemaker';
import { rejects } from '../support/errors.js';
import { ACCOUNT, CREDENTIALS, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

const arnOf = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`experiments, trials and trial components (${dialect})`, () => {
    let server: TestServer;
    let sm: SageMakerClient;

    before(async () => {
      server = await startServer(databaseArgs(dialect));
      sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    });
    after(async () => {
      sm.destroy();
      await server.close();
    });

    test('experiment → trials → components, membership filters, updates and delete rules', async () => {
      const { ExperimentArn } = await sm.send(
        new CreateExperimentCommand({
          ExperimentName: 'Churn',
          Description: 'churn models',
          Tags: [{ Key: 'k', Value: 'v' }],
        }),
      );
      assert.equal(ExperimentArn, arnOf('experiment', 'churn'));
      const e = await sm.send(new DescribeExperimentCommand({ ExperimentName: 'churn' }));
      assert.equal(e.ExperimentName, 'Churn');
      assert.equal(e.DisplayName, 'Churn');
      assert.equal(e.Description, 'churn models');
      assert.deepEqual((await sm.send(new ListTagsCommand({ ResourceArn: ExperimentArn }))).Tags, [
        { Key: 'k', Value: 'v' },
      ]);
      await rejects(
        sm.send(new CreateExperimentCommand({ ExperimentName: 'CHURN' })),
        'ValidationException',
        `Experiment '${ExperimentArn}' already exists.`,
      );
      await sm.send(
        new UpdateExperimentCommand({ ExperimentName: 'Churn', DisplayName: 'Churn-2024', Description: 'v2' }),
      );
      assert.equal(
        (await sm.send(new DescribeExperimentCommand({ ExperimentName: 'Churn' }))).DisplayName,
        'Churn-2024',
      );

      await rejects(
        sm.send(new CreateTrialCommand({ TrialName: 'orphan', ExperimentName: 'nope' })),
        'ResourceNotFound',
        `Experiment '${arnOf('experiment', 'nope')}' does not exist.`,
      );
      const { TrialArn } = await sm.send(
        new CreateTrialCommand({
          TrialName: 'xgb-trial',
          ExperimentName: 'churn',
          MetadataProperties: { ProjectId: 'p' },
        }),
      );
      assert.equal(TrialArn, arnOf('experiment-trial', 'xgb-trial'));
      await sm.send(new CreateTrialCommand({ TrialName: 'other-trial', ExperimentName: 'Churn' }));
      const trial = await sm.send(new DescribeTrialCommand({ TrialName: 'xgb-trial' }));
      assert.equal(trial.ExperimentName, 'Churn');
      assert.deepEqual(trial.MetadataProperties, { ProjectId: 'p' });
      await sm.send(new UpdateTrialCommand({ TrialName: 'xgb-trial', DisplayName: 'XGB' }));
      assert.equal((await sm.send(new DescribeTrialCommand({ TrialName: 'xgb-trial' }))).DisplayName, 'XGB');

      const start = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const { TrialComponentArn } = await sm.send(
        new CreateTrialComponentCommand({
          TrialComponentName: 'train-1',
          DisplayName: 'Training',
          Status: { PrimaryStatus: 'InProgress', Message: 'running' },
          StartTime: start,
          Parameters: {
            eta: { NumberValue: 0.2 },
            objective: { StringValue: 'reg:linear' },
            depth: { NumberValue: 5 },
          },
          InputArtifacts: { train: { Value: 's3://b/train.csv', MediaType: 'text/csv' } },
          OutputArtifacts: { model: { Value: 's3://b/model.tar.gz' } },
        }),
      );
      assert.equal(TrialComponentArn, arnOf('experiment-trial-component', 'train-1'));
      await sm.send(new CreateTrialComponentCommand({ TrialComponentName: 'evaluate-1' }));
      await sm.send(new CreateTrialComponentCommand({ TrialComponentName: 'loose-1' }));
      await sm.send(
        new UpdateTrialComponentCommand({
          TrialComponentName: 'train-1',
          Status: { PrimaryStatus: 'Completed' },
          EndTime: new Date(start.getTime() + 30_000),
          Parameters: { eta: { NumberValue: 0.3 }, gamma: { NumberValue: 4 } },
          ParametersToRemove: ['depth'],
          InputArtifactsToRemove: ['train'],
          OutputArtifacts: { metrics: { Value: 's3://b/metrics.json', MediaType: 'application/json' } },
        }),
      );
      const tc = await sm.send(new DescribeTrialComponentCommand({ TrialComponentName: TrialComponentArn }));
      assert.equal(tc.TrialComponentName, 'train-1');
      assert.equal(tc.DisplayName, 'Training');
      assert.deepEqual(tc.Status, { PrimaryStatus: 'Completed' });
      assert.deepEqual(tc.StartTime, start);
      assert.deepEqual(tc.EndTime, new Date(start.getTime() + 30_000));
      assert.deepEqual(tc.Parameters, {
        eta: { NumberValue: 0.3 },
        objective: { StringValue: 'reg:linear' },
        gamma: { NumberValue: 4 },
      });
      assert.deepEqual(tc.InputArtifacts, {});
      assert.deepEqual(tc.OutputArtifacts, {
        model: { Value: 's3://b/model.tar.gz' },
        metrics: { Value: 's3://b/metrics.json', MediaType: 'application/json' },
      });

      await sm.send(new AssociateTrialComponentCommand({ TrialComponentName: 'train-1', TrialName: 'xgb-trial' }));
      await sm.send(new AssociateTrialComponentCommand({ TrialComponentName: 'evaluate-1', TrialName: 'xgb-trial' }));
      await sm.send(new AssociateTrialComponentCommand({ TrialComponentName: 'train-1', TrialName: 'other-trial' }));
      // Associating again succeeds (the SDK's Run does it whenever it opens a run) and adds nothing.
      const again = await sm.send(
        new AssociateTrialComponentCommand({ TrialComponentName: 'train-1', TrialName: 'xgb-trial' }),
      );
      assert.equal(again.TrialComponentArn, TrialComponentArn);
      assert.equal(again.TrialArn, TrialArn);
      await rejects(
        sm.send(new AssociateTrialComponentCommand({ TrialComponentName: 'nope', TrialName: 'xgb-trial' })),
        'ResourceNotFound',
        `TrialComponent '${arnOf('experiment-trial-component', 'nope')}' does not exist.`,
      );

      const names = async (input: Record<string, unknown>) =>
        (
          (await sm.send(new ListTrialComponentsCommand({ SortBy: 'Name', SortOrder: 'Ascending', ...input })))
            .TrialComponentSummaries ?? []
        ).map((s) => s.TrialComponentName);
      assert.deepEqual(await names({ TrialName: 'xgb-trial' }), ['evaluate-1', 'train-1']);
      assert.deepEqual(await names({ ExperimentName: 'Churn' }), ['evaluate-1', 'train-1']);
      assert.deepEqual(await names({}), ['evaluate-1', 'loose-1', 'train-1']);
      assert.deepEqual(await names({ CreatedAfter: new Date(Date.now() + 60_000) }), []);
      await rejects(
        sm.send(new ListTrialComponentsCommand({ TrialName: 'xgb-trial', ExperimentName: 'Churn' })),
        'ValidationException',
        /only one of ExperimentName, TrialName and SourceArn/,
      );
      await rejects(
        sm.send(new ListTrialComponentsCommand({ TrialName: 'nope' })),
        'ResourceNotFound',
        `Trial '${arnOf('experiment-trial', 'nope')}' does not exist.`,
      );
      const summary = (
        await sm.send(new ListTrialComponentsCommand({ TrialName: 'xgb-trial', SortBy: 'Name' }))
      ).TrialComponentSummaries!.find((s) => s.TrialComponentName === 'train-1')!;
      assert.deepEqual(summary.Status, { PrimaryStatus: 'Completed' });
      assert.equal(summary.TrialComponentArn, TrialComponentArn);

      const trials = async (input: Record<string, unknown>) =>
        (
          (await sm.send(new ListTrialsCommand({ SortBy: 'Name', SortOrder: 'Ascending', ...input }))).TrialSummaries ??
          []
        ).map((t) => t.TrialName);
      assert.deepEqual(await trials({ ExperimentName: 'churn' }), ['other-trial', 'xgb-trial']);
      assert.deepEqual(await trials({ TrialComponentName: 'evaluate-1' }), ['xgb-trial']);
      assert.deepEqual(await trials({ TrialComponentName: 'loose-1' }), []);

      // Delete rules: a trial with components, an experiment with trials, a component in a trial.
      await rejects(
        sm.send(new DeleteTrialCommand({ TrialName: 'xgb-trial' })),
        'ValidationException',
        /disassociate them first/,
      );
      await rejects(
        sm.send(new DeleteExperimentCommand({ ExperimentName: 'Churn' })),
        'ValidationException',
        /delete them first/,
      );
      await rejects(
        sm.send(new DeleteTrialComponentCommand({ TrialComponentName: 'train-1' })),
        'ValidationException',
        /disassociate it first/,
      );

      for (const [c, t] of [
        ['train-1', 'xgb-trial'],
        ['evaluate-1', 'xgb-trial'],
        ['train-1', 'other-trial'],
      ] as const) {
        const r = await sm.send(new DisassociateTrialComponentCommand({ TrialComponentName: c, TrialName: t }));
        assert.equal(r.TrialArn, arnOf('experiment-trial', t));
      }
      await rejects(
        sm.send(new DisassociateTrialComponentCommand({ TrialComponentName: 'train-1', TrialName: 'xgb-trial' })),
        'ResourceNotFound',
        `TrialComponent '${TrialComponentArn}' is not associated with Trial '${TrialArn}'.`,
      );
      // A trial component is a lineage vertex: artifacts may be associated with it.
      const { ArtifactArn } = await sm.send(
        new CreateArtifactCommand({ Source: { SourceUri: 's3://b/train.csv' }, ArtifactType: 'DataSet' }),
      );
      await sm.send(
        new AddAssociationCommand({
          SourceArn: ArtifactArn,
          DestinationArn: TrialComponentArn,
          AssociationType: 'ContributedTo',
        }),
      );
      const q = await sm.send(new QueryLineageCommand({ StartArns: [ArtifactArn!], Direction: 'Descendants' }));
      assert.deepEqual(q.Vertices, [{ Arn: TrialComponentArn, LineageType: 'TrialComponent' }]);
      await rejects(
        sm.send(new AddAssociationCommand({ SourceArn: TrialComponentArn, DestinationArn: ExperimentArn })),
        'ValidationException',
        'An association cannot be created between two experiment entities.',
      );

      const del = await sm.send(new DeleteTrialComponentCommand({ TrialComponentName: 'train-1' }));
      assert.equal(del.TrialComponentArn, TrialComponentArn);
      for (const t of ['xgb-trial', 'other-trial']) await sm.send(new DeleteTrialCommand({ TrialName: t }));
      assert.equal(
        (await sm.send(new DeleteExperimentCommand({ ExperimentName: 'churn' }))).ExperimentArn,
        ExperimentArn,
      );
      await rejects(
        sm.send(new DescribeExperimentCommand({ ExperimentName: 'Churn' })),
        'ResourceNotFound',
        `Experiment '${ExperimentArn}' does not exist.`,
      );
      await rejects(
        sm.send(new DescribeTrialComponentCommand({ TrialComponentName: 'train-1' })),
        'ResourceNotFound',
        `TrialComponent '${TrialComponentArn}' does not exist.`,
      );
    });

    test('experiments and trial components page in both orders', async () => {
      for (let i = 0; i < 5; i++) await sm.send(new CreateExperimentCommand({ ExperimentName: `page-exp-${i}` }));
      const asc: string[] = [];
      for await (const p of paginateListExperiments(
        { client: sm, pageSize: 2 },
        { SortBy: 'Name', SortOrder: 'Ascending' },
      )) {
        asc.push(
          ...(p.ExperimentSummaries ?? []).map((x) => x.ExperimentName!).filter((n) => n.startsWith('page-exp-')),
        );
      }
      assert.deepEqual(
        asc,
        [0, 1, 2, 3, 4].map((i) => `page-exp-${i}`),
      );
      const newest = await sm.send(new ListExperimentsCommand({ MaxResults: 1 }));
      assert.equal(newest.ExperimentSummaries?.length, 1);
      assert.ok(newest.NextToken);

      for (let i = 0; i < 5; i++)
        await sm.send(new CreateTrialComponentCommand({ TrialComponentName: `page-tc-${i}` }));
      const desc: string[] = [];
      for await (const p of paginateListTrialComponents(
        { client: sm, pageSize: 2 },
        { SortBy: 'Name', SortOrder: 'Descending' },
      )) {
        desc.push(
          ...(p.TrialComponentSummaries ?? [])
            .map((x) => x.TrialComponentName!)
            .filter((n) => n.startsWith('page-tc-')),
        );
      }
      assert.deepEqual(
        desc,
        [4, 3, 2, 1, 0].map((i) => `page-tc-${i}`),
      );
    });
  });
}
