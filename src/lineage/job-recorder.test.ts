// The job lineage recorder on every dialect: a training job's trial component and artifacts, its
// trial, and the chain from the training data to an endpoint that deploys the job's model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../test/support/databases.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { LineageAssociationRepository } from '../storage/repositories/lineage-associations.js';
import { LineageEntityRepository } from '../storage/repositories/lineage-entities.js';
import { LineageTrialMemberRepository } from '../storage/repositories/lineage-trial-members.js';
import { entityArn } from './entities.js';
import { JobLineageError, recordJobProgress, recordJobStarted } from './job-recorder.js';
import { traverse } from './query-lineage.js';
import { recordEndpointDeployment } from './recorder.js';

const P = { accountId: '111122223333', region: 'us-west-2' };
const JOB = `arn:aws:sagemaker:${P.region}:${P.accountId}:training-job/abalone-1`;
const IMAGE = '246618743249.dkr.ecr.us-west-2.amazonaws.com/sagemaker-xgboost:1.7-1';
const TRAIN = 's3://data/abalone/train/';
const MODEL = 's3://data/abalone/output/abalone-1/output/model.tar.gz';

const entities = new LineageEntityRepository();
const associations = new LineageAssociationRepository();
const members = new LineageTrialMemberRepository();

for (const d of DIALECTS) {
  describe(`job lineage recorder (${d.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await d.open(MIGRATIONS);
      await t.db.run(
        `INSERT INTO lineage_entities (account_id, region, arn, kind, name_key, name, entity_type, source_key, unique_source, parent_key, doc, created_at, last_modified_at)
         VALUES (?, ?, ?, 'experiment', 'abalone-exp', 'abalone-exp', NULL, NULL, NULL, NULL, '{"ExperimentName":"abalone-exp"}', 1, 1)`,
        [P.accountId, P.region, entityArn(P, 'experiment', 'abalone-exp')],
      );
    });
    after(() => t.cleanup());

    it('records the trial component, its inputs, a new trial, and what the job produced', async () => {
      const tcArn = await t.db.transaction((tx) =>
        recordJobStarted(tx, P, {
          kind: 'training',
          jobName: 'abalone-1',
          jobArn: JOB,
          at: 1000,
          parameters: { max_depth: { NumberValue: 5 }, objective: { StringValue: 'reg:linear' } },
          inputs: {
            train: { uri: TRAIN, type: 'DataSet', mediaType: 'text/csv' },
            'SageMaker.ImageUri': { uri: IMAGE, type: 'Image' },
          },
          experiment: { ExperimentName: 'abalone-exp' },
        }),
      );
      assert.equal(tcArn, entityArn(P, 'experiment-trial-component', 'abalone-1-aws-training-job'));
      await t.db.transaction((tx) =>
        recordJobProgress(tx, P, {
          kind: 'training',
          jobArn: JOB,
          at: 2000,
          status: 'Completed',
          message: 'Status: Completed, secondary status: Completed',
          endTime: 2000,
          metrics: [{ MetricName: 'validation:rmse', Min: 2.1, Max: 3, Last: 2.1, Count: 50, Avg: 2.5 }],
          outputs: { 'SageMaker.ModelArtifact': { uri: MODEL, type: 'Model' } },
        }),
      );
      const tc = await entities.getByArn(t.db, P, tcArn);
      const doc = JSON.parse(tc!.doc);
      assert.equal(tc!.entity_type, 'TrainingJob');
      assert.deepEqual(doc.Source, { SourceArn: JOB, SourceType: 'SageMakerTrainingJob' });
      assert.deepEqual(doc.Status, {
        PrimaryStatus: 'Completed',
        Message: 'Status: Completed, secondary status: Completed',
      });
      assert.deepEqual(doc.OutputArtifacts, { 'SageMaker.ModelArtifact': { Value: MODEL } });
      assert.equal(doc.InputArtifacts.train.MediaType, 'text/csv');
      assert.equal(doc.Metrics[0].MetricName, 'validation:rmse');
      const trial = await entities.getByName(t.db, P, 'experiment-trial', 'abalone-1-aws-training-job');
      assert.equal(trial?.parent_key, 'abalone-exp');
      assert.equal(await members.has(t.db, trial!.arn, tcArn), true);

      // An endpoint deploying the job's model: Ascendants from the endpoint reach the training data.
      const { contextArn } = await t.db.transaction((tx) =>
        recordEndpointDeployment(tx, P, {
          endpointName: 'abalone-ep',
          endpointArn: `arn:aws:sagemaker:${P.region}:${P.accountId}:endpoint/abalone-ep`,
          modelPackageArns: [],
          containers: [{ image: IMAGE, modelDataUrl: MODEL }],
          endpointCreatedAt: 3000,
          at: 3000,
        }),
      );
      const up = await traverse(
        { from: (a) => associations.edgesFrom(t.db, a), to: (a) => associations.edgesTo(t.db, a) },
        { arn: contextArn, type: 'Endpoint', lineageType: 'Context' },
        'Ascendants',
        10,
        1000,
      );
      const reached = up.vertices.map((v) => `${v.lineageType}:${v.type}`).sort();
      assert.ok(reached.includes('TrialComponent:TrainingJob'), reached.join());
      assert.ok(reached.includes('Artifact:DataSet'), reached.join());
    });

    it('an ExperimentConfig naming a missing trial is refused and writes nothing', async () => {
      await assert.rejects(
        t.db.transaction((tx) =>
          recordJobStarted(tx, P, {
            kind: 'training',
            jobName: 'orphan',
            jobArn: `${JOB}-orphan`,
            at: 1,
            parameters: {},
            inputs: {},
            experiment: { TrialName: 'nope' },
          }),
        ),
        (e: Error) => e instanceof JobLineageError && /Trial 'nope' does not exist/.test(e.message),
      );
      assert.equal(
        await entities.getByName(t.db, P, 'experiment-trial-component', 'orphan-aws-training-job'),
        undefined,
      );
    });
  });
}
