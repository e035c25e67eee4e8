// Lineage tracking entities, associations and QueryLineage, driven by the real AWS SDK for
// JavaScript v3 against a real server on port 0, once on SQLite and once on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AddAssociationCommand,
  AddTagsCommand,
  CreateActionCommand,
  CreateArtifactCommand,
  CreateContextCommand,
  DeleteActionCommand,
  DeleteArtifactCommand,
  DeleteAssociationCommand,
  DeleteContextCommand,
  DescribeActionCommand,
  DescribeArtifactCommand,
  DescribeContextCommand,
  ListActionsCommand,
  ListArtifactsCommand,
  ListAssociationsCommand,
  ListContextsCommand,
  ListTagsCommand,
  QueryLineageCommand,
  type QueryLineageCommandInput,
  SageMakerClient,
  UpdateActionCommand,
  UpdateArtifactCommand,
  UpdateContextCommand,
  paginateListArtifacts,
  paginateListAssociations,
  paginateListContexts,
} from '@aws-sdk/client-sagemaker';
import { rejects } from '../support/errors.js';
import { ACCOUNT, CREDENTIALS, REGION, databaseArgs, startServer, type TestServer } from '../support/server.js';

const arnOf = (type: string, name: string) => `arn:aws:sagemaker:${REGION}:${ACCOUNT}:${type}/${name}`;
const ARTIFACT_ARN = new RegExp(`^arn:aws:sagemaker:${REGION}:${ACCOUNT}:artifact/[0-9a-f]{32}$`);

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`lineage entities and associations (${dialect})`, () => {
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

    test('artifacts: create, describe, duplicates, update, list, delete', async () => {
      const t0 = new Date(Date.now() - 1000);
      const { ArtifactArn: arn } = await sm.send(
        new CreateArtifactCommand({
          ArtifactName: 'train-data',
          Source: { SourceUri: 's3://bucket/train.csv', SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'abc' }] },
          ArtifactType: 'DataSet',
          Properties: { rows: '4177', split: 'train' },
          MetadataProperties: { CommitId: 'c0ffee' },
          Tags: [{ Key: 'team', Value: 'ml' }],
        }),
      );
      assert.match(arn!, ARTIFACT_ARN);
      const d = await sm.send(new DescribeArtifactCommand({ ArtifactArn: arn }));
      assert.equal(d.ArtifactName, 'train-data');
      assert.equal(d.ArtifactArn, arn);
      assert.deepEqual(d.Source, {
        SourceUri: 's3://bucket/train.csv',
        SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'abc' }],
      });
      assert.equal(d.ArtifactType, 'DataSet');
      assert.deepEqual(d.Properties, { rows: '4177', split: 'train' });
      assert.deepEqual(d.MetadataProperties, { CommitId: 'c0ffee' });
      assert.ok(d.CreationTime! >= t0 && d.LastModifiedTime! >= t0);
      assert.deepEqual((await sm.send(new ListTagsCommand({ ResourceArn: arn }))).Tags, [{ Key: 'team', Value: 'ml' }]);

      // One artifact per source (URI and source types); names are unique too.
      await rejects(
        sm.send(
          new CreateArtifactCommand({
            Source: { SourceUri: 's3://bucket/train.csv', SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'abc' }] },
            ArtifactType: 'DataSet',
          }),
        ),
        'ValidationException',
        `Artifact '${arn}' already exists.`,
      );
      await rejects(
        sm.send(
          new CreateArtifactCommand({
            ArtifactName: 'TRAIN-DATA',
            Source: { SourceUri: 's3://other' },
            ArtifactType: 'x',
          }),
        ),
        'ValidationException',
        `Artifact '${arn}' already exists.`,
      );
      // Another ETag of the same URI is another artifact.
      const { ArtifactArn: v2 } = await sm.send(
        new CreateArtifactCommand({
          Source: { SourceUri: 's3://bucket/train.csv', SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'def' }] },
          ArtifactType: 'DataSet',
        }),
      );
      assert.notEqual(v2, arn);

      await sm.send(
        new UpdateArtifactCommand({
          ArtifactArn: arn,
          ArtifactName: 'train-data-v1',
          Properties: { rows: '4000', owner: 'me' },
          PropertiesToRemove: ['split'],
        }),
      );
      const u = await sm.send(new DescribeArtifactCommand({ ArtifactArn: arn }));
      assert.equal(u.ArtifactName, 'train-data-v1');
      assert.deepEqual(u.Properties, { rows: '4000', owner: 'me' });
      assert.ok(u.LastModifiedTime! >= u.CreationTime!);

      const listed = await sm.send(
        new ListArtifactsCommand({ SourceUri: 's3://bucket/train.csv', SortOrder: 'Ascending' }),
      );
      assert.deepEqual(
        listed.ArtifactSummaries?.map((a) => a.ArtifactArn),
        [arn, v2],
      );
      assert.equal(listed.ArtifactSummaries?.[0]?.ArtifactName, 'train-data-v1');
      assert.equal((await sm.send(new ListArtifactsCommand({ ArtifactType: 'Nope' }))).ArtifactSummaries?.length, 0);
      assert.equal(
        (await sm.send(new ListArtifactsCommand({ CreatedAfter: new Date(Date.now() + 60_000) }))).ArtifactSummaries
          ?.length,
        0,
      );

      await sm.send(
        new DeleteArtifactCommand({
          Source: { SourceUri: 's3://bucket/train.csv', SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'def' }] },
        }),
      );
      const deleted = await sm.send(new DeleteArtifactCommand({ ArtifactArn: arn }));
      assert.equal(deleted.ArtifactArn, arn);
      await rejects(
        sm.send(new DescribeArtifactCommand({ ArtifactArn: arn })),
        'ResourceNotFound',
        `Artifact '${arn}' does not exist.`,
      );
      await rejects(
        sm.send(new DeleteArtifactCommand({ ArtifactArn: arn })),
        'ResourceNotFound',
        `Artifact '${arn}' does not exist.`,
      );
      await rejects(
        sm.send(new DeleteArtifactCommand({})),
        'ValidationException',
        'Either ArtifactArn or Source must be specified.',
      );
      await rejects(
        sm.send(new UpdateArtifactCommand({ ArtifactArn: arn, ArtifactName: 'x' })),
        'ResourceNotFound',
        `Artifact '${arn}' does not exist.`,
      );
      await rejects(
        sm.send(new DescribeArtifactCommand({ ArtifactArn: 'not-an-arn' })),
        'ValidationException',
        /^1 validation error detected: Value 'not-an-arn' at 'artifactArn' failed to satisfy constraint: Member must satisfy regular expression pattern: /,
      );
    });

    test('artifacts page by creation time in both orders', async () => {
      const arns: string[] = [];
      for (let i = 0; i < 7; i++) {
        const r = await sm.send(
          new CreateArtifactCommand({ Source: { SourceUri: `s3://paged/${i}` }, ArtifactType: 'Paged' }),
        );
        arns.push(r.ArtifactArn!);
      }
      for (const order of ['Ascending', 'Descending'] as const) {
        const seen: string[] = [];
        let pages = 0;
        for await (const page of paginateListArtifacts(
          { client: sm, pageSize: 3 },
          { ArtifactType: 'Paged', SortBy: 'CreationTime', SortOrder: order },
        )) {
          pages++;
          seen.push(...(page.ArtifactSummaries ?? []).map((a) => a.ArtifactArn!));
        }
        assert.equal(pages, 3);
        assert.equal(seen.length, 7);
        assert.equal(new Set(seen).size, 7);
        // Creation times can tie within a millisecond; the order is by time, then ARN.
        assert.deepEqual([...seen].sort(), [...arns].sort());
      }
      // The default order is newest first; a token is bound to its filters.
      const first = await sm.send(new ListArtifactsCommand({ ArtifactType: 'Paged', MaxResults: 2 }));
      assert.ok(first.NextToken);
      await rejects(
        sm.send(new ListArtifactsCommand({ ArtifactType: 'Other', NextToken: first.NextToken })),
        'ValidationException',
        'Invalid pagination token. Please use the NextToken from a previous response.',
      );
    });

    test('actions and contexts: by name or ARN, case-insensitive names, sort by name, update, delete', async () => {
      const { ActionArn } = await sm.send(
        new CreateActionCommand({
          ActionName: 'Deploy-Abalone',
          Source: {
            SourceUri: 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/ep',
            SourceType: 'ARN',
            SourceId: '1',
          },
          ActionType: 'ModelDeployment',
          Description: 'deploys',
          Status: 'InProgress',
          Properties: { k: 'v' },
          Tags: [{ Key: 'a', Value: 'b' }],
        }),
      );
      assert.equal(ActionArn, arnOf('action', 'deploy-abalone'));
      for (const name of ['Deploy-Abalone', 'deploy-abalone']) {
        const a = await sm.send(new DescribeActionCommand({ ActionName: name }));
        assert.equal(a.ActionName, 'Deploy-Abalone');
        assert.equal(a.ActionArn, ActionArn);
        assert.equal(a.ActionType, 'ModelDeployment');
        assert.equal(a.Status, 'InProgress');
        assert.equal(a.Description, 'deploys');
        assert.deepEqual(a.Source, {
          SourceUri: 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/ep',
          SourceType: 'ARN',
          SourceId: '1',
        });
      }
      assert.equal((await sm.send(new DescribeActionCommand({ ActionName: ActionArn }))).ActionName, 'Deploy-Abalone');
      await rejects(
        sm.send(new CreateActionCommand({ ActionName: 'DEPLOY-abalone', Source: { SourceUri: 'x' }, ActionType: 't' })),
        'ValidationException',
        `Action '${ActionArn}' already exists.`,
      );
      await sm.send(
        new UpdateActionCommand({
          ActionName: 'deploy-abalone',
          Status: 'Completed',
          PropertiesToRemove: ['k'],
          Properties: { n: '1' },
        }),
      );
      const a = await sm.send(new DescribeActionCommand({ ActionName: 'deploy-abalone' }));
      assert.equal(a.Status, 'Completed');
      assert.deepEqual(a.Properties, { n: '1' });
      const actions = await sm.send(new ListActionsCommand({ ActionType: 'ModelDeployment' }));
      assert.deepEqual(
        actions.ActionSummaries?.map((s) => [s.ActionName, s.Status]),
        [['Deploy-Abalone', 'Completed']],
      );
      assert.equal(
        (await sm.send(new ListActionsCommand({ SourceUri: 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/ep' })))
          .ActionSummaries?.length,
        1,
      );
      await sm.send(new DeleteActionCommand({ ActionName: 'Deploy-Abalone' }));
      await rejects(
        sm.send(new DescribeActionCommand({ ActionName: 'deploy-abalone' })),
        'ResourceNotFound',
        `Action '${ActionArn}' does not exist.`,
      );
      await rejects(
        sm.send(new UpdateActionCommand({ ActionName: 'nope' })),
        'ResourceNotFound',
        `Action '${arnOf('action', 'nope')}' does not exist.`,
      );
      await rejects(
        sm.send(
          new DescribeActionCommand({ ActionName: `arn:aws:sagemaker:eu-west-1:${ACCOUNT}:action/deploy-abalone` }),
        ),
        'ResourceNotFound',
        /does not exist/,
      );

      for (const n of ['ctx-b', 'ctx-a', 'ctx-c', 'Ctx_d']) {
        await sm.send(
          new CreateContextCommand({ ContextName: n, Source: { SourceUri: `uri:${n}` }, ContextType: 'Sorted' }),
        );
      }
      const names: string[] = [];
      for await (const page of paginateListContexts(
        { client: sm, pageSize: 2 },
        { ContextType: 'Sorted', SortBy: 'Name', SortOrder: 'Ascending' },
      )) {
        names.push(...(page.ContextSummaries ?? []).map((c) => c.ContextName!));
      }
      assert.deepEqual(names, ['ctx-a', 'ctx-b', 'ctx-c', 'Ctx_d']);
      const desc = await sm.send(
        new ListContextsCommand({ ContextType: 'Sorted', SortBy: 'Name', SortOrder: 'Descending', MaxResults: 1 }),
      );
      assert.equal(desc.ContextSummaries?.[0]?.ContextName, 'Ctx_d');
      const c = await sm.send(new DescribeContextCommand({ ContextName: arnOf('context', 'ctx_d') }));
      assert.equal(c.ContextName, 'Ctx_d');
      assert.equal(c.ContextArn, arnOf('context', 'ctx_d'));
      await sm.send(new UpdateContextCommand({ ContextName: 'ctx-a', Description: 'first', Properties: { p: 'q' } }));
      const ca = await sm.send(new DescribeContextCommand({ ContextName: 'ctx-a' }));
      assert.equal(ca.Description, 'first');
      assert.deepEqual(ca.Properties, { p: 'q' });
      await sm.send(new AddTagsCommand({ ResourceArn: ca.ContextArn, Tags: [{ Key: 'x', Value: 'y' }] }));
      assert.deepEqual((await sm.send(new ListTagsCommand({ ResourceArn: ca.ContextArn }))).Tags, [
        { Key: 'x', Value: 'y' },
      ]);
      for (const n of ['ctx-a', 'ctx-b', 'ctx-c', 'ctx_d']) await sm.send(new DeleteContextCommand({ ContextName: n }));
      await rejects(
        sm.send(new DeleteContextCommand({ ContextName: 'ctx-a' })),
        'ResourceNotFound',
        `Context '${arnOf('context', 'ctx-a')}' does not exist.`,
      );
      await rejects(
        sm.send(new ListTagsCommand({ ResourceArn: ca.ContextArn })),
        'ValidationException',
        /does not exist/,
      );
    });

    test('associations: the five types, both ends must exist, duplicates refused, filters, sorts, pages', async () => {
      const art = async (uri: string, type: string, name?: string) =>
        (
          await sm.send(
            new CreateArtifactCommand({ ArtifactName: name, Source: { SourceUri: uri }, ArtifactType: type }),
          )
        ).ArtifactArn!;
      const data = await art('s3://assoc/data', 'DataSet', 'assoc-data');
      const model = await art('s3://assoc/model.tar.gz', 'Model');
      const copy = await art('s3://assoc/model-copy.tar.gz', 'Model');
      const image = await art('assoc.dkr.ecr/xgb:1', 'Image');
      const { ActionArn: deploy } = await sm.send(
        new CreateActionCommand({
          ActionName: 'assoc-deploy',
          Source: { SourceUri: 'x' },
          ActionType: 'ModelDeployment',
        }),
      );
      const { ContextArn: endpoint } = await sm.send(
        new CreateContextCommand({
          ContextName: 'assoc-endpoint',
          Source: { SourceUri: 'y' },
          ContextType: 'Endpoint',
        }),
      );
      const edges: Array<[string, string, 'ContributedTo' | 'AssociatedWith' | 'DerivedFrom' | 'Produced' | 'SameAs']> =
        [
          [data, model, 'Produced'],
          [model, deploy!, 'ContributedTo'],
          [image, deploy!, 'ContributedTo'],
          [deploy!, endpoint!, 'AssociatedWith'],
          [copy, model, 'DerivedFrom'],
          [copy, image, 'SameAs'],
        ];
      for (const [s, d, t] of edges) {
        const r = await sm.send(new AddAssociationCommand({ SourceArn: s, DestinationArn: d, AssociationType: t }));
        assert.deepEqual([r.SourceArn, r.DestinationArn], [s, d]);
      }
      await rejects(
        sm.send(new AddAssociationCommand({ SourceArn: model, DestinationArn: deploy, AssociationType: 'Produced' })),
        'ValidationException',
        `Association between '${model}' and '${deploy}' already exists.`,
      );
      const ghost = arnOf('artifact', '0'.repeat(32));
      await rejects(
        sm.send(new AddAssociationCommand({ SourceArn: ghost, DestinationArn: deploy })),
        'ResourceNotFound',
        `Artifact '${ghost}' does not exist.`,
      );
      await rejects(
        sm.send(new AddAssociationCommand({ SourceArn: model, DestinationArn: arnOf('context', 'nope') })),
        'ResourceNotFound',
        `Context '${arnOf('context', 'nope')}' does not exist.`,
      );
      await rejects(
        sm.send(new AddAssociationCommand({ SourceArn: model, DestinationArn: arnOf('model-package', 'x') })),
        'ValidationException',
        /^1 validation error detected: Value '.*' at 'destinationArn' failed to satisfy constraint/,
      );

      const into = await sm.send(new ListAssociationsCommand({ DestinationArn: deploy }));
      assert.equal(into.AssociationSummaries?.length, 2);
      const s = into.AssociationSummaries!.find((x) => x.SourceArn === model)!;
      assert.equal(s.DestinationArn, deploy);
      assert.equal(s.SourceType, 'Model');
      assert.equal(s.DestinationType, 'ModelDeployment');
      assert.equal(s.AssociationType, 'ContributedTo');
      assert.equal(s.SourceName, undefined);
      assert.equal(s.DestinationName, 'assoc-deploy');
      assert.ok(s.CreationTime instanceof Date);
      const fromData = await sm.send(new ListAssociationsCommand({ SourceArn: data }));
      assert.equal(fromData.AssociationSummaries?.[0]?.SourceName, 'assoc-data');

      const list = async (input: Record<string, unknown>) => {
        const out: string[] = [];
        for await (const page of paginateListAssociations({ client: sm, pageSize: 2 }, input)) {
          for (const a of page.AssociationSummaries ?? []) out.push(`${a.SourceArn}>${a.DestinationArn}`);
        }
        return out;
      };
      const key = (e: [string, string, string]) => `${e[0]}>${e[1]}`;
      assert.deepEqual(await list({ SourceArn: copy, SortBy: 'DestinationArn', SortOrder: 'Ascending' }), [
        ...[
          [copy, model],
          [copy, image],
        ]
          .map((e) => `${e[0]}>${e[1]}`)
          .sort(),
      ]);
      assert.deepEqual(await list({ AssociationType: 'SameAs' }), [key(edges[5]!)]);
      assert.deepEqual((await list({ SourceType: 'DataSet' })).length, 1);
      // The SageMaker Python SDK filters by the kind of entity too ("Action", "Context").
      assert.deepEqual(await list({ DestinationType: 'Context' }), [key(edges[3]!)]);
      assert.deepEqual(await list({ DestinationType: 'ModelDeployment', SourceType: 'Image' }), [key(edges[2]!)]);
      assert.deepEqual(await list({ CreatedAfter: new Date(Date.now() + 60_000) }), []);
      for (const sortBy of ['SourceArn', 'DestinationArn', 'SourceType', 'DestinationType', 'CreationTime'] as const) {
        for (const order of ['Ascending', 'Descending'] as const) {
          const got = await list({ SortBy: sortBy, SortOrder: order });
          assert.equal(got.length, edges.length, `${sortBy} ${order}`);
          assert.equal(new Set(got).size, edges.length);
        }
      }
      const bySourceType = await sm.send(new ListAssociationsCommand({ SortBy: 'SourceType', SortOrder: 'Ascending' }));
      const types = bySourceType.AssociationSummaries!.map((a) => a.SourceType!);
      assert.deepEqual(types, [...types].sort());

      const other = `arn:aws:sagemaker:eu-west-1:${ACCOUNT}:action/assoc-deploy`;
      assert.deepEqual(
        (await sm.send(new ListAssociationsCommand({ DestinationArn: other }))).AssociationSummaries,
        [],
      );

      await sm.send(new DeleteAssociationCommand({ SourceArn: copy, DestinationArn: image }));
      await rejects(
        sm.send(new DeleteAssociationCommand({ SourceArn: copy, DestinationArn: image })),
        'ResourceNotFound',
        `Association between '${copy}' and '${image}' does not exist.`,
      );
      // Deleting an entity takes its associations with it.
      await sm.send(new DeleteArtifactCommand({ ArtifactArn: copy }));
      assert.deepEqual(
        (await sm.send(new ListAssociationsCommand({ DestinationArn: model }))).AssociationSummaries?.length,
        1,
      );
      // Renaming an artifact renames it in association summaries.
      await sm.send(new UpdateArtifactCommand({ ArtifactArn: model, ArtifactName: 'assoc-model' }));
      const renamed = await sm.send(new ListAssociationsCommand({ SourceArn: model }));
      assert.equal(renamed.AssociationSummaries?.[0]?.SourceName, 'assoc-model');
    });

    test('QueryLineage: directions, depth, edges, filters, pages, errors', async () => {
      // raw → (processing) → features → (training) → model → deploy → endpoint; image → training, deploy
      const art = async (uri: string, type: string, props?: Record<string, string>) =>
        (
          await sm.send(
            new CreateArtifactCommand({ Source: { SourceUri: uri }, ArtifactType: type, Properties: props }),
          )
        ).ArtifactArn!;
      const act = async (name: string, type: string) =>
        (await sm.send(new CreateActionCommand({ ActionName: name, Source: { SourceUri: name }, ActionType: type })))
          .ActionArn!;
      const raw = await art('s3://q/raw', 'DataSet', { stage: 'raw' });
      const features = await art('s3://q/features', 'DataSet', { stage: 'features' });
      const image = await art('q.dkr.ecr/xgb:1', 'Image');
      const model = await art('s3://q/model.tar.gz', 'Model');
      const processing = await act('q-processing', 'ProcessingJob');
      const training = await act('q-training', 'TrainingJob');
      const deploy = await act('q-deploy', 'ModelDeployment');
      const endpoint = (
        await sm.send(
          new CreateContextCommand({ ContextName: 'q-endpoint', Source: { SourceUri: 'e' }, ContextType: 'Endpoint' }),
        )
      ).ContextArn!;
      const link = (s: string, d: string, t: 'ContributedTo' | 'Produced' | 'AssociatedWith') =>
        sm.send(new AddAssociationCommand({ SourceArn: s, DestinationArn: d, AssociationType: t }));
      await link(raw, processing, 'ContributedTo');
      await link(processing, features, 'Produced');
      await link(features, training, 'ContributedTo');
      await link(image, training, 'ContributedTo');
      await link(training, model, 'Produced');
      await link(model, deploy, 'ContributedTo');
      await link(image, deploy, 'ContributedTo');
      await link(deploy, endpoint, 'AssociatedWith');

      const q = async (input: Omit<QueryLineageCommandInput, 'StartArns'> & { StartArns?: string[] }) =>
        sm.send(new QueryLineageCommand({ StartArns: [model], ...input }));
      const arns = (r: { Vertices?: { Arn?: string }[] }) => (r.Vertices ?? []).map((v) => v.Arn!).sort();

      const up = await q({ Direction: 'Ascendants' });
      assert.deepEqual(arns(up), [raw, features, image, processing, training].sort());
      assert.deepEqual(up.Edges, []);
      const down = await q({ Direction: 'Descendants' });
      assert.deepEqual(arns(down), [deploy, endpoint].sort());
      const both = await q({ Direction: 'Both' });
      assert.deepEqual(arns(both), [raw, features, image, processing, training, deploy, endpoint].sort());
      assert.deepEqual(arns(await q({ Direction: 'Ascendants', MaxDepth: 1 })), [training]);
      assert.deepEqual(arns(await q({ Direction: 'Ascendants', MaxDepth: 2 })), [features, image, training].sort());
      assert.deepEqual(arns(await q({ MaxDepth: 0 })), []);

      const v = (await q({ Direction: 'Descendants' })).Vertices!.find((x) => x.Arn === endpoint)!;
      assert.deepEqual(v, { Arn: endpoint, Type: 'Endpoint', LineageType: 'Context' });

      // From the endpoint, upstream: the image and model data artifacts (the seed workflow's question).
      const fromEndpoint = await q({
        StartArns: [endpoint],
        Direction: 'Ascendants',
        Filters: { LineageTypes: ['Artifact'], Types: ['Model', 'Image'] },
      });
      assert.deepEqual(arns(fromEndpoint), [image, model].sort());

      const withEdges = await q({
        Direction: 'Ascendants',
        IncludeEdges: true,
        Filters: { Types: ['DataSet'], Properties: { stage: 'raw' } },
      });
      // The match and every entity on its path from the start, and the edges between them.
      assert.deepEqual(arns(withEdges), [model, training, features, processing, raw].sort());
      assert.deepEqual(
        withEdges.Edges!.map((e) => `${e.SourceArn}>${e.DestinationArn}:${e.AssociationType}`).sort(),
        [
          `${raw}>${processing}:ContributedTo`,
          `${processing}>${features}:Produced`,
          `${features}>${training}:ContributedTo`,
          `${training}>${model}:Produced`,
        ].sort(),
      );
      assert.deepEqual(
        arns(await q({ Direction: 'Ascendants', Filters: { LineageTypes: ['Action'] } })),
        [processing, training].sort(),
      );
      assert.deepEqual(
        arns(await q({ Direction: 'Ascendants', Filters: { CreatedAfter: new Date(Date.now() + 60_000) } })),
        [],
      );
      assert.equal(
        arns(await q({ Direction: 'Ascendants', Filters: { CreatedBefore: new Date(Date.now() + 60_000) } })).length,
        5,
      );
      assert.equal(arns(await q({ Direction: 'Ascendants', Filters: { ModifiedAfter: new Date(0) } })).length, 5);

      // Pages: vertices split by MaxResults; edges each on exactly one page.
      const seenV: string[] = [];
      const seenE: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const r = await q({ Direction: 'Both', IncludeEdges: true, MaxResults: 3, NextToken: token });
        pages++;
        seenV.push(...(r.Vertices ?? []).map((x) => x.Arn!));
        seenE.push(...(r.Edges ?? []).map((e) => `${e.SourceArn}>${e.DestinationArn}`));
        token = r.NextToken;
      } while (token);
      assert.equal(pages, 3);
      assert.deepEqual([...seenV].sort(), [model, raw, features, image, processing, training, deploy, endpoint].sort());
      // Both = the upstream walk plus the downstream walk: image → deploy lies on neither path.
      assert.equal(seenE.length, 7);
      assert.equal(new Set(seenE).size, 7);
      assert.ok(!seenE.includes(`${image}>${deploy}`));

      // The pages after the first are sliced from the first page's walk (kept a minute on the
      // server, not walked again per page): an entity linked meanwhile shows in the next read, not
      // in the read under way, which stays one consistent answer.
      const readAll = async (first: Awaited<ReturnType<typeof q>>) => {
        const all = arns(first);
        for (let t = first.NextToken; t; ) {
          const r = await q({ Direction: 'Both', IncludeEdges: true, MaxResults: 3, NextToken: t });
          all.push(...arns(r));
          t = r.NextToken;
        }
        return all.sort();
      };
      const underWay = await q({ Direction: 'Both', IncludeEdges: true, MaxResults: 3 });
      const late = await art('s3://q/late', 'DataSet');
      await link(late, processing, 'ContributedTo');
      assert.deepEqual(await readAll(underWay), [...seenV].sort());
      assert.deepEqual(
        await readAll(await q({ Direction: 'Both', IncludeEdges: true, MaxResults: 3 })),
        [...seenV, late].sort(),
      );

      await rejects(
        q({ StartArns: [arnOf('artifact', 'f'.repeat(32))] }),
        'ResourceNotFound',
        `Artifact '${arnOf('artifact', 'f'.repeat(32))}' does not exist.`,
      );
      await rejects(
        q({ Direction: 'Ascendants', NextToken: 'bogus' }),
        'ValidationException',
        /Invalid pagination token/,
      );
      await rejects(
        q({ MaxDepth: 11 }),
        'ValidationException',
        "1 validation error detected: Value '11' at 'maxDepth' failed to satisfy constraint: Member must have value less than or equal to 10",
      );
    });
  });
}
