import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountRootArn, iamIdentity } from './iam-identity.js';

test('the root is named by its account id', () => {
  assert.deepEqual(iamIdentity(accountRootArn('111122223333')), {
    Arn: 'arn:aws:iam::111122223333:root',
    PrincipalId: '111122223333',
  });
});

test('users get a stable AIDA id of their own', () => {
  const alice = iamIdentity('arn:aws:iam::111122223333:user/alice').PrincipalId;
  assert.match(alice, /^AIDA[A-Z2-7]{17}$/);
  assert.equal(iamIdentity('arn:aws:iam::111122223333:user/alice').PrincipalId, alice);
  assert.notEqual(iamIdentity('arn:aws:iam::111122223333:user/bob').PrincipalId, alice);
});

test("an assumed-role session is the role's AROA id and the session name", () => {
  const role = iamIdentity('arn:aws:iam::111122223333:role/deployer').PrincipalId;
  assert.match(role, /^AROA[A-Z2-7]{17}$/);
  assert.deepEqual(iamIdentity('arn:aws:sts::111122223333:assumed-role/deployer/ci-run-7'), {
    Arn: 'arn:aws:sts::111122223333:assumed-role/deployer/ci-run-7',
    PrincipalId: `${role}:ci-run-7`,
  });
});

test('a federated user is <account>:<name>', () => {
  assert.equal(iamIdentity('arn:aws:sts::111122223333:federated-user/carol').PrincipalId, '111122223333:carol');
});
