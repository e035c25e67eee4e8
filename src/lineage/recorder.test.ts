// The automatic lineage recorder against every dialect: what it creates for a group, a package, an
// approval change and two deployments, and that it reuses artifacts and rolls back with its caller.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../test/support/databases.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { LineageAssociationRepository } from '../storage/repositories/lineage-associations.js';
import { LineageEntityRepository, type LineageEntityRow } from '../storage/repositories/lineage-entities.js';
import { type Traversal, traverse } from './query-lineage.js';
import type { Queryable } from '../storage/db/types.js';
import {
  type RecordedContainer,
  recordApprovalChange,
  recordEndpointDeployment,
  recordModelPackage,
  recordModelPackageGroup,
} from './recorder.js';

const P = { accountId: '111122223333', region: 'us-west-2' };
const arn = (type: string, name: string) => `arn:aws:sagemaker:${P.region}:${P.accountId}:${type}/${name}`;
const GROUP = arn('model-package-group', 'Abalone');
const PKG = arn('model-package', 'Abalone/1');
const PKG2 = arn('model-package', 'Abalone/2');
const ENDPOINT = arn('endpoint', 'abalone-ep');
const IMAGE = '246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
const DATA = 's3://bucket/abalone/output/model.tar.gz';

const entities = new LineageEntityRepository();
const associations = new LineageAssociationRepository();

for (const d of DIALECTS) {
  describe(`lineage recorder (${d.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await d.open(MIGRATIONS);
    });
    after(() => t.cleanup());

    const all = async (): Promise<LineageEntityRow[]> => {
      const out: LineageEntityRow[] = [];
      for await (const page of entities.iterate(t.db, P, ['artifact', 'action', 'context'], 2)) out.push(...page);
      return out;
    };
    const bySource = async (uri: string) => (await all()).filter((e) => JSON.parse(e.doc).Source.SourceUri === uri);
    const edges = async () => {
      const out: string[] = [];
      const names = new Map(
        (await all()).map((e) => [e.arn, `${e.kind}:${e.entity_type}:${JSON.parse(e.doc).Source.SourceUri}`]),
      );
      for await (const page of associations.iterate(t.db, P, 3)) {
        for (const a of page)
          out.push(`${names.get(a.source_arn)} -${a.association_type}-> ${names.get(a.destination_arn)}`);
      }
      return out.sort();
    };

    it('records a group, a package, its approval and a deployment with SageMaker types and edges', async () => {
      await t.db.transaction((tx) =>
        recordModelPackageGroup(tx, P, { groupName: 'Abalone', groupArn: GROUP, createdAt: 1000 }),
      );
      await t.db.transaction((tx) =>
        recordModelPackage(tx, P, {
          packageArn: PKG,
          groupName: 'Abalone',
          groupArn: GROUP,
          version: 1,
          approvalStatus: 'PendingManualApproval',
          containers: [{ image: IMAGE, modelDataUrl: DATA }],
          createdAt: 2000,
        }),
      );
      const [group] = await bySource(GROUP);
      assert.equal(group!.kind, 'context');
      assert.equal(group!.entity_type, 'ModelGroup');
      assert.equal(group!.name, 'Abalone-aws-model-package-group');
      assert.deepEqual(JSON.parse(group!.doc).Source.SourceType, 'ARN');
      const approval = (await bySource(PKG)).find((e) => e.kind === 'action')!;
      assert.equal(approval.entity_type, 'Approval');
      assert.equal(approval.name, 'Abalone-1-aws-approval');
      assert.equal(JSON.parse(approval.doc).Status, 'InProgress');

      await t.db.transaction((tx) =>
        recordApprovalChange(tx, P, { packageArn: PKG, approvalStatus: 'Approved', at: 3000 }),
      );
      const approved = (await entities.getByArn(t.db, P, approval.arn))!;
      assert.equal(JSON.parse(approved.doc).Status, 'Completed');
      assert.deepEqual(JSON.parse(approved.doc).Properties, { ModelApprovalStatus: 'Approved' });
      assert.equal(approved.last_modified_at, 3000);

      const { contextArn, actionArn } = await t.db.transaction((tx) =>
        recordEndpointDeployment(tx, P, {
          endpointName: 'abalone-ep',
          endpointArn: ENDPOINT,
          modelPackageArns: [PKG],
          containers: [{ image: IMAGE, modelDataUrl: DATA }],
          endpointCreatedAt: 4000,
          at: 4000,
        }),
      );
      assert.equal(contextArn, arn('context', 'abalone-ep-aws-endpoint'));
      assert.equal(actionArn, arn('action', 'abalone-ep-aws-model-deployment'));
      assert.deepEqual(
        await edges(),
        [
          `action:Approval:${PKG} -ContributedTo-> action:ModelDeployment:${ENDPOINT}`,
          `action:ModelDeployment:${ENDPOINT} -AssociatedWith-> context:Endpoint:${ENDPOINT}`,
          `artifact:Image:${IMAGE} -ContributedTo-> action:ModelDeployment:${ENDPOINT}`,
          `artifact:Image:${IMAGE} -ContributedTo-> artifact:Model:${PKG}`,
          `artifact:Model:${DATA} -ContributedTo-> action:ModelDeployment:${ENDPOINT}`,
          `artifact:Model:${DATA} -ContributedTo-> artifact:Model:${PKG}`,
          `artifact:Model:${PKG} -AssociatedWith-> context:ModelGroup:${GROUP}`,
          `artifact:Model:${PKG} -ContributedTo-> action:Approval:${PKG}`,
          `artifact:Model:${PKG} -ContributedTo-> action:ModelDeployment:${ENDPOINT}`,
        ].sort(),
      );

      // From the endpoint context, upstream: the image and the model data (and the package).
      const loader = {
        from: (arns: readonly string[]) => associations.edgesFrom(t.db, arns),
        to: (arns: readonly string[]) => associations.edgesTo(t.db, arns),
      };
      const up: Traversal = await traverse(
        loader,
        { arn: contextArn, type: 'Endpoint', lineageType: 'Context' },
        'Ascendants',
        10,
        1000,
      );
      const types = up.vertices.map((v) => `${v.lineageType}:${v.type}`).sort();
      assert.deepEqual(types, [
        'Action:Approval',
        'Action:ModelDeployment',
        'Artifact:Image',
        'Artifact:Model',
        'Artifact:Model',
        'Context:Endpoint',
      ]);
    });

    it('reuses one artifact per source URI and one context per endpoint across packages and deployments', async () => {
      await t.db.transaction((tx) =>
        recordModelPackage(tx, P, {
          packageArn: PKG2,
          groupName: 'Abalone',
          groupArn: GROUP,
          version: 2,
          approvalStatus: 'Approved',
          containers: [{ image: IMAGE, modelDataUrl: 's3://bucket/abalone/v2/model.tar.gz' }],
          createdAt: 5000,
        }),
      );
      await t.db.transaction((tx) =>
        recordEndpointDeployment(tx, P, {
          endpointName: 'abalone-ep',
          endpointArn: ENDPOINT,
          modelPackageArns: [PKG2],
          containers: [{ image: IMAGE, modelDataUrl: 's3://bucket/abalone/v2/model.tar.gz' }],
          endpointCreatedAt: 4000,
          at: 6000,
        }),
      );
      assert.equal((await bySource(IMAGE)).length, 1);
      assert.equal((await bySource(GROUP)).length, 1);
      const endpointEntities = await bySource(ENDPOINT);
      assert.deepEqual(endpointEntities.map((e) => e.name).sort(), [
        'abalone-ep-aws-endpoint',
        'abalone-ep-aws-model-deployment',
        'abalone-ep-aws-model-deployment-2',
      ]);
      const approval2 = (await bySource(PKG2)).find((e) => e.kind === 'action')!;
      assert.equal(JSON.parse(approval2.doc).Status, 'Completed');

      // Deleted and created again (same ARN) with another model: a context of its own, and the
      // old deployments' lineage stays with the old context.
      const again = await t.db.transaction((tx) =>
        recordEndpointDeployment(tx, P, {
          endpointName: 'abalone-ep',
          endpointArn: ENDPOINT,
          modelPackageArns: [],
          containers: [{ image: IMAGE, modelDataUrl: 's3://bucket/other/model.tar.gz' }],
          endpointCreatedAt: 8000,
          at: 8000,
        }),
      );
      assert.equal(again.contextArn, arn('context', 'abalone-ep-8-aws-endpoint'));
      const loader = {
        from: (arns: readonly string[]) => associations.edgesFrom(t.db, arns),
        to: (arns: readonly string[]) => associations.edgesTo(t.db, arns),
      };
      const newer = await traverse(
        loader,
        { arn: again.contextArn, type: 'Endpoint', lineageType: 'Context' },
        'Ascendants',
        10,
        1000,
      );
      const artifactOf = async (uri: string) => (await bySource(uri)).find((e) => e.kind === 'artifact')!.arn;
      const [pkg1, pkg2] = [await artifactOf(PKG), await artifactOf(PKG2)];
      const newerArns = new Set(newer.vertices.map((v) => v.arn));
      assert.ok(newerArns.has(await artifactOf('s3://bucket/other/model.tar.gz')));
      assert.ok(
        !newerArns.has(pkg2) && !newerArns.has(pkg1),
        "the old incarnation's packages are not the new one's lineage",
      );
      const older = await traverse(
        loader,
        { arn: arn('context', 'abalone-ep-aws-endpoint'), type: 'Endpoint', lineageType: 'Context' },
        'Ascendants',
        10,
        1000,
      );
      assert.ok(
        older.vertices.some((v) => v.arn === pkg2),
        'the old context keeps its lineage',
      );
      assert.ok(!older.vertices.some((v) => v.arn === again.actionArn), 'and gains nothing of the new one');
    });

    it('deployments recorded at the same moment share the artifacts they name first', async () => {
      const [image, data] = ['acct/concurrent:1', 's3://bucket/concurrent/model.tar.gz'];
      const deploy = (tx: Queryable, i: number, containers: RecordedContainer[]) =>
        recordEndpointDeployment(tx, P, {
          endpointName: `concurrent-${i}`,
          endpointArn: arn('endpoint', `concurrent-${i}`),
          modelPackageArns: [],
          containers,
          endpointCreatedAt: 9000,
          at: 9000,
        });
      // The first holds its new artifacts uncommitted while the second finds none and inserts the
      // same ones (PostgreSQL: it waits, then reads the first one's; SQLite: it starts after).
      let recorded!: () => void;
      const first = t.db.transaction(async (tx) => {
        await deploy(tx, 0, [{ image, modelDataUrl: data }]);
        recorded();
        await new Promise((resolve) => setTimeout(resolve, 200));
      });
      await new Promise<void>((resolve) => {
        recorded = resolve;
      });
      await Promise.all([first, t.db.transaction((tx) => deploy(tx, 1, [{ image, modelDataUrl: data }]))]);
      // Several at once, naming two new images in opposite orders: none waits for another both ways.
      const [a, b] = ['acct/concurrent-a:1', 'acct/concurrent-b:1'];
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.db.transaction((tx) =>
            deploy(tx, 2 + i, i % 2 ? [{ image: a }, { image: b }] : [{ image: b }, { image: a }]),
          ),
        ),
      );
      for (const uri of [image, data, a, b]) {
        const artifacts = (await bySource(uri)).filter((e) => e.kind === 'artifact');
        assert.equal(artifacts.length, 1, uri);
        const into = (await associations.edgesFrom(t.db, [artifacts[0]!.arn])).length;
        assert.equal(into, uri === image || uri === data ? 2 : 6, uri);
      }
    });

    it('writes nothing when the caller rolls back', async () => {
      const before = (await all()).length;
      await assert.rejects(
        t.db.transaction(async (tx) => {
          await recordModelPackageGroup(tx, P, {
            groupName: 'Gone',
            groupArn: arn('model-package-group', 'Gone'),
            createdAt: 1,
          });
          throw new Error('the operation failed');
        }),
        /the operation failed/,
      );
      assert.equal((await all()).length, before);
    });
  });
}
