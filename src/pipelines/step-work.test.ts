import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attemptToken, JOB_ADAPTERS, resourceName } from './step-work.js';

const ARN = 'arn:aws:sagemaker:us-east-1:111122223333:pipeline/p/execution/abcdefghijkl';

test("step resources are named as SageMaker names them, within each API's limits, the same for an attempt", () => {
  const name = resourceName(ARN, 'abcdefghijkl', 'AbaloneTrain', 1);
  assert.match(name, /^pipelines-abcdefghijkl-AbaloneTrain-[A-Za-z0-9]{10}$/);
  assert.equal(resourceName(ARN, 'abcdefghijkl', 'AbaloneTrain', 1), name);
  assert.notEqual(resourceName(ARN, 'abcdefghijkl', 'AbaloneTrain', 2), name);
  const long = resourceName(ARN, 'abcdefghijkl', `Step_${'x'.repeat(80)}`, 1);
  assert.ok(long.length <= 63 && /^[a-zA-Z0-9](-*[a-zA-Z0-9])*$/.test(long), long);
  const tuning = resourceName(ARN, 'abcdefghijkl', 'TuneTheModelNicely', 1, JOB_ADAPTERS.Tuning.nameLimit);
  assert.ok(tuning.length <= 32 && /^abcdefghijkl-TuneTheModel[A-Za-z-]*-[A-Za-z0-9]{6}$/.test(tuning), tuning);
  assert.equal(attemptToken(ARN, 'Register', 1).length, 32);
});
