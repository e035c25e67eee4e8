import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameFromArnOrName, parseArn, sagemakerArn } from './arn.js';

const p = { accountId: '111122223333', region: 'us-west-2' };

test('endpoint, config, model, model package and job ARNs are lower-cased; model package groups keep case', () => {
  assert.equal(sagemakerArn(p, 'endpoint', 'My-EP'), 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/my-ep');
  assert.equal(sagemakerArn(p, 'model', 'M'), 'arn:aws:sagemaker:us-west-2:111122223333:model/m');
  assert.equal(
    sagemakerArn(p, 'model-package', 'AbaloneModelPackageGroupName/2'),
    'arn:aws:sagemaker:us-west-2:111122223333:model-package/abalonemodelpackagegroupname/2',
  );
  for (const kind of ['training-job', 'processing-job', 'transform-job']) {
    assert.equal(
      sagemakerArn(p, kind, 'Abalone-Train'),
      `arn:aws:sagemaker:us-west-2:111122223333:${kind}/abalone-train`,
    );
  }
  assert.equal(
    sagemakerArn(p, 'model-package-group', 'Abalone'),
    'arn:aws:sagemaker:us-west-2:111122223333:model-package-group/Abalone',
  );
});

test('parses ARNs and resolves ArnOrName within the caller partition only', () => {
  assert.deepEqual(parseArn('arn:aws:sagemaker:us-west-2:111122223333:model-package/g/3'), {
    partition: 'aws',
    service: 'sagemaker',
    region: 'us-west-2',
    accountId: '111122223333',
    resourceType: 'model-package',
    resource: 'g/3',
  });
  assert.equal(nameFromArnOrName(p, 'grp', 'model-package-group'), 'grp');
  assert.equal(
    nameFromArnOrName(p, 'arn:aws:sagemaker:us-west-2:111122223333:model-package-group/grp', 'model-package-group'),
    'grp',
  );
  assert.equal(
    nameFromArnOrName(p, 'arn:aws:sagemaker:eu-west-1:111122223333:model-package-group/grp', 'model-package-group'),
    undefined,
  );
  assert.equal(
    nameFromArnOrName(p, 'arn:aws:sagemaker:us-west-2:111122223333:model/grp', 'model-package-group'),
    undefined,
  );
});
