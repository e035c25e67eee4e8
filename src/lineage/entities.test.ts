// ARNs, names and source keys of lineage entities.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  artifactSourceKey,
  entityArn,
  nameFromNameOrArn,
  parseEntityArn,
  sourceKey,
  trialComponentType,
} from './entities.js';

const P = { accountId: '111122223333', region: 'us-west-2' };

describe('lineage entity ARNs', () => {
  it('lower-cases names as SageMaker does, and parses only ARNs of the caller', () => {
    assert.equal(entityArn(P, 'context', 'MyContext'), 'arn:aws:sagemaker:us-west-2:111122223333:context/mycontext');
    assert.deepEqual(parseEntityArn(P, 'arn:aws:sagemaker:us-west-2:111122223333:experiment-trial-component/tc'), {
      kind: 'experiment-trial-component',
      resource: 'tc',
    });
    assert.equal(parseEntityArn(P, 'arn:aws:sagemaker:eu-west-1:111122223333:context/c'), undefined);
    assert.equal(parseEntityArn(P, 'arn:aws:sagemaker:us-west-2:999999999999:context/c'), undefined);
    assert.equal(parseEntityArn(P, 'arn:aws:sagemaker:us-west-2:111122223333:model-package/g/1'), undefined);
    assert.equal(nameFromNameOrArn(P, 'action', 'deploy'), 'deploy');
    assert.equal(nameFromNameOrArn(P, 'action', 'arn:aws:sagemaker:us-west-2:111122223333:action/deploy'), 'deploy');
    assert.equal(nameFromNameOrArn(P, 'action', 'arn:aws:sagemaker:us-west-2:111122223333:context/deploy'), undefined);
  });

  it('keys an artifact by its URI and source types, in any order', () => {
    const a = artifactSourceKey('s3://b/k', [
      { SourceIdType: 'S3ETag', Value: 'e' },
      { SourceIdType: 'S3Version', Value: 'v' },
    ]);
    const b = artifactSourceKey('s3://b/k', [
      { SourceIdType: 'S3Version', Value: 'v' },
      { SourceIdType: 'S3ETag', Value: 'e' },
    ]);
    assert.equal(a, b);
    assert.notEqual(a, artifactSourceKey('s3://b/k'));
    assert.match(sourceKey('x'.repeat(2048)), /^[0-9a-f]{64}$/);
  });

  it('names a trial component type after its job', () => {
    assert.equal(trialComponentType('SageMakerTrainingJob'), 'TrainingJob');
    assert.equal(trialComponentType(undefined), null);
  });
});
