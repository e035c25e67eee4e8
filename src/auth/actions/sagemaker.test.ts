import assert from 'node:assert/strict';
import { test } from 'node:test';
import { model } from '../../generated/sagemaker/model.js';
import { model as runtime } from '../../generated/sagemaker-runtime/model.js';
import { actsOnAll, SAGEMAKER_RESOURCES, sagemakerActions } from './sagemaker.js';

const P = { accountId: '111122223333', region: 'us-west-2' };

test('every served SageMaker operation has its resource in the table, or acts on *', () => {
  const missing = [...Object.keys(model.operations), ...Object.keys(runtime.operations)].filter(
    (op) => !SAGEMAKER_RESOURCES[op] && !actsOnAll(op),
  );
  assert.deepEqual(missing, []);
});

test('resources are built from the input as SageMaker names them', () => {
  assert.deepEqual(sagemakerActions('CreateEndpoint', { EndpointName: 'My-Endpoint' }, P), {
    action: 'sagemaker:CreateEndpoint',
    resources: ['arn:aws:sagemaker:us-west-2:111122223333:endpoint/my-endpoint'],
  });
  assert.deepEqual(sagemakerActions('ListEndpoints', {}, P).resources, ['*']);
  assert.deepEqual(
    sagemakerActions('AssociateTrialComponent', { TrialComponentName: 'tc', TrialName: 't' }, P).resources,
    [
      'arn:aws:sagemaker:us-west-2:111122223333:experiment-trial-component/tc',
      'arn:aws:sagemaker:us-west-2:111122223333:experiment-trial/t',
    ],
  );
  const arn = 'arn:aws:sagemaker:us-west-2:111122223333:model-package/Group/3';
  assert.deepEqual(sagemakerActions('DescribeModelPackage', { ModelPackageName: arn }, P).resources, [arn]);
  assert.deepEqual(sagemakerActions('CreateModelPackage', { ModelPackageGroupName: 'Group' }, P).resources, [
    'arn:aws:sagemaker:us-west-2:111122223333:model-package/group/*',
  ]);
});
