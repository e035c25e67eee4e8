// The identity-policy evaluator against a matrix of statements, actions and resources, with the
// decision IAM's evaluation logic gives for each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicies, evaluate, PolicyError, type RequestFacts } from './policy.js';

const ctx: RequestFacts = {
  principalArn: 'arn:aws:iam::111122223333:user/alice',
  accountId: '111122223333',
  region: 'us-west-2',
  now: new Date('2026-11-24T12:00:00Z'),
  sourceIp: '127.0.0.1',
};
const EP = 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/prod-a';
const EP2 = 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/dev-b';
const OBJ = 'arn:aws:s3:::models/team-a/model.tar.gz';
/** An IAM policy variable (`$` + `{aws:username}`), written so that it is not read as a template. */
const HOME = `arn:aws:s3:::home/${'$'}{aws:username}/*`;

type Row = [name: string, statements: unknown[], action: string, resource: string, expected: string];

const allow = (Action: unknown, Resource: unknown, extra: object = {}) => ({
  Effect: 'Allow',
  Action,
  Resource,
  ...extra,
});
const deny = (Action: unknown, Resource: unknown, extra: object = {}) => ({
  Effect: 'Deny',
  Action,
  Resource,
  ...extra,
});

const MATRIX: Row[] = [
  ['no statement: default deny', [], 'sagemaker:DescribeEndpoint', EP, 'ImplicitDeny'],
  ['Action * Resource *', [allow('*', '*')], 'sagemaker:CreateEndpoint', EP, 'Allow'],
  ['service wildcard', [allow('sagemaker:*', '*')], 'sagemaker:CreateEndpoint', EP, 'Allow'],
  ['other service', [allow('s3:*', '*')], 'sagemaker:CreateEndpoint', EP, 'ImplicitDeny'],
  ['action prefix wildcard', [allow('sagemaker:Describe*', '*')], 'sagemaker:DescribeEndpoint', EP, 'Allow'],
  [
    'action prefix wildcard misses',
    [allow('sagemaker:Describe*', '*')],
    'sagemaker:DeleteEndpoint',
    EP,
    'ImplicitDeny',
  ],
  [
    'action names are case-insensitive',
    [allow('SageMaker:describeendpoint', '*')],
    'sagemaker:DescribeEndpoint',
    EP,
    'Allow',
  ],
  ['? matches one character', [allow('s3:?etObject', '*')], 's3:GetObject', OBJ, 'Allow'],
  [
    'resource wildcard',
    [allow('*', 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/prod-*')],
    'sagemaker:DescribeEndpoint',
    EP,
    'Allow',
  ],
  [
    'resource wildcard misses',
    [allow('*', 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/prod-*')],
    'sagemaker:DescribeEndpoint',
    EP2,
    'ImplicitDeny',
  ],
  [
    'resources are case-sensitive',
    [allow('*', 'arn:aws:sagemaker:us-west-2:111122223333:endpoint/PROD-*')],
    'sagemaker:DescribeEndpoint',
    EP,
    'ImplicitDeny',
  ],
  ['resource list', [allow('*', [EP2, EP])], 'sagemaker:DescribeEndpoint', EP, 'Allow'],
  [
    'explicit deny wins over allow',
    [allow('*', '*'), deny('sagemaker:DeleteEndpoint', EP)],
    'sagemaker:DeleteEndpoint',
    EP,
    'ExplicitDeny',
  ],
  [
    'deny elsewhere does not apply',
    [allow('*', '*'), deny('sagemaker:DeleteEndpoint', EP2)],
    'sagemaker:DeleteEndpoint',
    EP,
    'Allow',
  ],
  [
    'NotAction allows the rest',
    [{ Effect: 'Allow', NotAction: 'sagemaker:Delete*', Resource: '*' }],
    'sagemaker:CreateEndpoint',
    EP,
    'Allow',
  ],
  [
    'NotAction excludes',
    [{ Effect: 'Allow', NotAction: 'sagemaker:Delete*', Resource: '*' }],
    'sagemaker:DeleteEndpoint',
    EP,
    'ImplicitDeny',
  ],
  [
    'Deny NotAction: everything but reads',
    [allow('*', '*'), { Effect: 'Deny', NotAction: ['s3:Get*', 's3:List*'], Resource: '*' }],
    's3:PutObject',
    OBJ,
    'ExplicitDeny',
  ],
  [
    'Deny NotAction lets the named through',
    [allow('*', '*'), { Effect: 'Deny', NotAction: ['s3:Get*', 's3:List*'], Resource: '*' }],
    's3:GetObject',
    OBJ,
    'Allow',
  ],
  [
    'NotResource allows outside',
    [{ Effect: 'Allow', Action: '*', NotResource: 'arn:aws:s3:::models/secret/*' }],
    's3:GetObject',
    OBJ,
    'Allow',
  ],
  [
    'NotResource excludes inside',
    [{ Effect: 'Allow', Action: '*', NotResource: 'arn:aws:s3:::models/*' }],
    's3:GetObject',
    OBJ,
    'ImplicitDeny',
  ],
  ['policy variable aws:username', [allow('s3:*', HOME)], 's3:GetObject', 'arn:aws:s3:::home/alice/x', 'Allow'],
  ['policy variable, another user', [allow('s3:*', HOME)], 's3:GetObject', 'arn:aws:s3:::home/bob/x', 'ImplicitDeny'],
  [
    'condition met',
    [allow('*', '*', { Condition: { StringEquals: { 'aws:RequestedRegion': 'us-west-2' } } })],
    's3:GetObject',
    OBJ,
    'Allow',
  ],
  [
    'condition not met',
    [allow('*', '*', { Condition: { StringEquals: { 'aws:RequestedRegion': 'eu-west-1' } } })],
    's3:GetObject',
    OBJ,
    'ImplicitDeny',
  ],
  [
    'date condition',
    [allow('*', '*', { Condition: { DateLessThan: { 'aws:CurrentTime': '2027-01-01T00:00:00Z' } } })],
    's3:GetObject',
    OBJ,
    'Allow',
  ],
  [
    'Bool SecureTransport false (plain HTTP)',
    [allow('*', '*', { Condition: { Bool: { 'aws:SecureTransport': 'true' } } })],
    's3:GetObject',
    OBJ,
    'ImplicitDeny',
  ],
  [
    'unknown condition key never grants',
    [allow('*', '*', { Condition: { StringEquals: { 'sagemaker:InstanceTypes': 'ml.m5.large' } } })],
    'sagemaker:CreateEndpoint',
    EP,
    'ImplicitDeny',
  ],
  [
    'unknown operator never grants',
    [allow('*', '*', { Condition: { 'ForAllValues:StringEquals': { 'aws:TagKeys': 'x' } } })],
    'sagemaker:AddTags',
    EP,
    'ImplicitDeny',
  ],
  [
    'deny with an unknown condition still denies',
    [allow('*', '*'), deny('*', '*', { Condition: { StringEquals: { 'aws:ResourceTag/env': 'prod' } } })],
    'sagemaker:DeleteEndpoint',
    EP,
    'ExplicitDeny',
  ],
  [
    'deny whose known condition is false does not',
    [allow('*', '*'), deny('*', '*', { Condition: { StringEquals: { 'aws:RequestedRegion': 'eu-west-1' } } })],
    'sagemaker:DeleteEndpoint',
    EP,
    'Allow',
  ],
  [
    'IfExists on an absent key',
    [allow('*', '*', { Condition: { StringEqualsIfExists: { 'aws:SourceIp': '10.0.0.1' } } })],
    's3:GetObject',
    OBJ,
    'ImplicitDeny',
  ],
];

for (const [name, statements, action, resource, expected] of MATRIX) {
  test(`policy matrix: ${name}`, () => {
    const policy = compilePolicies({ Version: '2012-10-17', Statement: statements });
    assert.equal(evaluate(policy, action, resource, ctx), expected);
  });
}

test('a list of policy documents is one set of statements', () => {
  const p = compilePolicies([
    { Statement: allow('sagemaker:*', '*') },
    { Statement: [deny('sagemaker:DeleteModel', '*')] },
  ]);
  assert.equal(evaluate(p, 'sagemaker:CreateModel', EP, ctx), 'Allow');
  assert.equal(evaluate(p, 'sagemaker:DeleteModel', EP, ctx), 'ExplicitDeny');
});

test('malformed policies are refused when loaded, not at request time', () => {
  assert.throws(() => compilePolicies({ Statement: [{ Effect: 'Permit', Action: '*', Resource: '*' }] }), PolicyError);
  assert.throws(() => compilePolicies({ Statement: [{ Effect: 'Allow', Resource: '*' }] }), /Action/);
  assert.throws(
    () => compilePolicies({ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*', NotResource: 'x' }] }),
    /Resource/,
  );
  assert.throws(
    () => compilePolicies({ Statement: [{ Effect: 'Allow', Principal: '*', Action: '*', Resource: '*' }] }),
    /Principal/,
  );
});

test('IpAddress and NotIpAddress on aws:SourceIp: CIDR blocks, single addresses, IPv6, v4-mapped', () => {
  const decide = (operator: string, block: string | string[], sourceIp: string) =>
    evaluate(
      compilePolicies([
        {
          Version: '2012-10-17',
          Statement: [allow('sagemaker:*', '*', { Condition: { [operator]: { 'aws:SourceIp': block } } })],
        },
      ]),
      'sagemaker:DescribeEndpoint',
      EP,
      { ...ctx, sourceIp },
    );
  assert.equal(decide('IpAddress', '10.0.0.0/8', '10.20.30.40'), 'Allow');
  assert.equal(decide('IpAddress', '10.0.0.0/8', '11.0.0.1'), 'ImplicitDeny');
  assert.equal(decide('IpAddress', '10.0.0.0/8', '::ffff:10.0.0.1'), 'Allow');
  assert.equal(decide('IpAddress', ['192.168.1.7', '127.0.0.0/8'], '127.0.0.1'), 'Allow');
  assert.equal(decide('IpAddress', '192.168.1.7', '192.168.1.8'), 'ImplicitDeny');
  assert.equal(decide('IpAddress', '2001:db8::/32', '2001:db8::1'), 'Allow');
  assert.equal(decide('IpAddress', 'not-a-cidr', '10.0.0.1'), 'ImplicitDeny');
  assert.equal(decide('NotIpAddress', '10.0.0.0/8', '127.0.0.1'), 'Allow');
  assert.equal(decide('NotIpAddress', '10.0.0.0/8', '10.0.0.1'), 'ImplicitDeny');
});
