import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entityFacts } from './lineage-facts.js';

const labels = (g: { facts: readonly { label: string }[] }) => g.facts.map((f) => f.label);

test('an artifact: what it is and where it came from first, times as times, properties after', () => {
  const groups = entityFacts({
    ArtifactArn: 'arn:aws:sagemaker:us-east-1:000000000000:artifact/abc',
    ArtifactName: 'model',
    Source: { SourceUri: 's3://b/model.tar.gz', SourceTypes: [{ SourceIdType: 'S3ETag', Value: 'e1' }] },
    ArtifactType: 'Model',
    Properties: { framework: 'xgboost' },
    CreationTime: 1795764770.4,
    CreatedBy: {},
    LastModifiedTime: 1795764770.4,
    LastModifiedBy: {},
  });
  assert.deepEqual(labels(groups[0]!), ['Kind', 'Name', 'Source', 'S3ETag', 'Created', 'ARN']);
  assert.deepEqual(groups[0]!.facts[0], { label: 'Kind', text: 'Artifact · Model' });
  assert.deepEqual(groups[0]!.facts[2], { label: 'Source', uri: 's3://b/model.tar.gz' });
  assert.deepEqual(groups[0]!.facts[4], { label: 'Created', time: 1795764770.4 }, 'a time, not a number to show');
  assert.deepEqual(groups[1], { title: 'Properties', facts: [{ label: 'framework', text: 'xgboost' }] });
});

test('a trial component: its job as a link, status with its message, parameters, metrics and artifacts', () => {
  const groups = entityFacts({
    TrialComponentArn: 'arn:aws:sagemaker:us-east-1:000000000000:experiment-trial-component/j-aws-training-job',
    TrialComponentName: 'j-aws-training-job',
    DisplayName: 'shallow',
    Source: { SourceArn: 'arn:aws:sagemaker:us-east-1:000000000000:training-job/j', SourceType: 'SageMakerTrainingJob' },
    Status: { PrimaryStatus: 'Failed', Message: 'AlgorithmError: bad' },
    StartTime: 10,
    EndTime: 20,
    CreationTime: 10,
    LastModifiedTime: 20,
    LastModifiedBy: { IamIdentity: { Arn: 'arn:aws:iam::1:user/alice' } },
    Parameters: { max_depth: { NumberValue: 3 }, objective: { StringValue: 'reg:squarederror' } },
    Metrics: [{ MetricName: 'validation:rmse', Last: 1.78531, Min: 1.7, Max: 3, Count: 20 }],
    InputArtifacts: { train: { Value: 's3://b/train/' } },
    OutputArtifacts: { 'SageMaker.ModelArtifact': { Value: 's3://b/out/model.tar.gz' } },
  });
  const [key, params, metrics, inputs, outputs] = groups;
  assert.deepEqual(labels(key!), ['Kind', 'Name', 'Display name', 'Source', 'Status', 'Started', 'Ended', 'Created', 'Modified by arn:aws:iam::1:user/alice', 'ARN']);
  assert.deepEqual(key!.facts[3], { label: 'Source', note: 'SageMakerTrainingJob', arn: 'arn:aws:sagemaker:us-east-1:000000000000:training-job/j' });
  assert.deepEqual(key!.facts[4], { label: 'Status', text: 'Failed: AlgorithmError: bad' });
  assert.deepEqual(params, {
    title: 'Parameters',
    facts: [
      { label: 'max_depth', text: '3' },
      { label: 'objective', text: 'reg:squarederror' },
    ],
  });
  assert.equal(metrics!.facts[0]!.label, 'validation:rmse');
  assert.match((metrics!.facts[0] as { text: string }).text, /^last 1\.785 · min 1\.700 · max 3 · 20 values$/);
  assert.deepEqual(inputs!.facts, [{ label: 'train', uri: 's3://b/train/' }]);
  assert.equal(outputs!.title, 'Output artifacts');
});

test('an action and a context name their type and status', () => {
  const [action] = entityFacts({ ActionArn: 'arn:a', ActionName: 'deploy', ActionType: 'ModelDeployment', Status: 'Completed' });
  assert.deepEqual(action!.facts.slice(0, 3), [
    { label: 'Kind', text: 'Action · ModelDeployment' },
    { label: 'Name', text: 'deploy' },
    { label: 'Status', text: 'Completed' },
  ]);
  const [context] = entityFacts({ ContextArn: 'arn:c', ContextName: 'ep', ContextType: 'Endpoint', Source: { SourceUri: 'arn:aws:sagemaker:us-east-1:0:endpoint/ep', SourceType: 'ARN' } });
  assert.deepEqual(context!.facts[2], { label: 'Source', note: 'ARN', arn: 'arn:aws:sagemaker:us-east-1:0:endpoint/ep' });
});
