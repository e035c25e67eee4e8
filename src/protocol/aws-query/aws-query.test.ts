// The AWS query protocol over the CloudWatch and STS models: form parameters read into nested
// structures, lists and maps; XML answers with their result wrapper; errors with query codes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { model as cloudwatch } from '../../generated/cloudwatch/model.js';
import { InvalidParameterValueException } from '../../generated/cloudwatch/errors.js';
import { model as sts } from '../../generated/sts/model.js';
import type { RequestContext } from '../context.js';
import { parseXml } from '../rest-xml/xml.js';
import type { WireRequest } from '../wire.js';
import { AwsQueryProtocol } from './aws-query.js';
import { parameterTree, readInput } from './form.js';

const ctx: RequestContext = {
  requestId: 'req-1',
  accountId: '111122223333',
  region: 'us-east-1',
  log: pino({ level: 'silent' }),
  receivedAt: 0,
};
const form = (body: string, headers: Record<string, string> = {}): WireRequest => ({
  method: 'POST',
  path: '/',
  query: new URLSearchParams(),
  headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', ...headers },
  body: Buffer.from(body),
});

describe('query protocol: reading parameters', () => {
  test('nested lists of structures, scalars typed, timestamps parsed, empty lists', () => {
    const params = new URLSearchParams(
      'Action=PutMetricData&Version=2010-08-01&Namespace=App' +
        '&MetricData.member.1.MetricName=Latency&MetricData.member.1.Value=1.5&MetricData.member.1.StorageResolution=1' +
        '&MetricData.member.1.Dimensions.member.1.Name=Host&MetricData.member.1.Dimensions.member.1.Value=a' +
        '&MetricData.member.1.Timestamp=2026-01-02T03%3A04%3A05Z' +
        '&MetricData.member.2.MetricName=Count&MetricData.member.2.Values.member.1=1&MetricData.member.2.Values.member.2=2' +
        '&MetricData.member.2.Dimensions=' +
        // A gap ends a list: member.4 is never read.
        '&MetricData.member.4.MetricName=Lost',
    );
    const input = readInput(cloudwatch, 'PutMetricDataInput', parameterTree(params));
    assert.deepEqual(input, {
      Namespace: 'App',
      MetricData: [
        {
          MetricName: 'Latency',
          Dimensions: [{ Name: 'Host', Value: 'a' }],
          Timestamp: new Date('2026-01-02T03:04:05Z'),
          Value: 1.5,
          StorageResolution: 1,
        },
        { MetricName: 'Count', Dimensions: [], Values: [1, 2] },
      ],
    });
  });

  test('a value that is not a number is a SerializationException naming the parameter', async () => {
    const q = new AwsQueryProtocol({ model: cloudwatch, handlers: new Proxy({}, { get: () => async () => ({}) }) });
    const r = await q.handle(
      form('Action=ListMetrics&Version=2010-08-01&NextToken=x&Dimensions.member.1.Name=a&Dimensions.member.1.Value=b'),
      ctx,
    );
    assert.equal(r.status, 200);
    const bad = await q.handle(form('Action=GetMetricStatistics&Version=2010-08-01&Period=sixty'), ctx);
    assert.equal(bad.status, 400);
    assert.match(
      String(bad.body),
      /<Code>MalformedInput<\/Code><Message>Invalid value &apos;sixty&apos; for parameter Period.<\/Message>/,
    );
  });
});

describe('query protocol: answers', () => {
  const handlers = {
    getCallerIdentity: async () => ({
      UserId: 'AIDA1',
      Account: '111122223333',
      Arn: 'arn:aws:iam::111122223333:user/a&b',
    }),
    assumeRole: async () => ({
      Credentials: {
        AccessKeyId: 'ASIA1',
        SecretAccessKey: 's',
        SessionToken: 't',
        Expiration: new Date(Date.UTC(2026, 0, 1)),
      },
      AssumedRoleUser: { AssumedRoleId: 'AROA1:s', Arn: 'arn:aws:sts::111122223333:assumed-role/r/s' },
    }),
    getSessionToken: async () => {
      throw new InvalidParameterValueException('nope');
    },
    getAccessKeyInfo: async () => {
      throw new Error('internal detail');
    },
  };
  const q = new AwsQueryProtocol({ model: sts, handlers });

  test('the result wrapped as AWS writes it, escaped, with the request id', async () => {
    const r = await q.handle(form('Action=GetCallerIdentity&Version=2011-06-15'), ctx);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/xml');
    const doc = parseXml(String(r.body));
    assert.equal(doc.name, 'GetCallerIdentityResponse');
    assert.equal(doc.attributes.xmlns, 'https://sts.amazonaws.com/doc/2011-06-15/');
    const result = doc.children[0]!;
    assert.equal(result.name, 'GetCallerIdentityResult');
    assert.deepEqual(
      result.children.map((c) => [c.name, c.text]),
      [
        ['UserId', 'AIDA1'],
        ['Account', '111122223333'],
        ['Arn', 'arn:aws:iam::111122223333:user/a&b'],
      ],
    );
    assert.equal(doc.children[1]!.children[0]!.text, 'req-1');
  });

  test('timestamps in ISO 8601, nested structures', async () => {
    const r = await q.handle(
      form(
        'Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2Fr&RoleSessionName=s1',
      ),
      ctx,
    );
    assert.match(String(r.body), /<Expiration>2026-01-01T00:00:00.000Z<\/Expiration>/);
    assert.match(String(r.body), /<AssumedRoleUser><AssumedRoleId>AROA1:s<\/AssumedRoleId>/);
  });

  test('errors: query codes, validation as ValidationError, unknown actions, internals hidden', async () => {
    const invalid = await q.handle(form('Action=AssumeRole&Version=2011-06-15&RoleArn=short&RoleSessionName=s'), ctx);
    assert.equal(invalid.status, 400);
    assert.match(
      String(invalid.body),
      /<Type>Sender<\/Type><Code>ValidationError<\/Code><Message>2 validation errors detected: /,
    );
    const unknown = await q.handle(form('Action=Nope&Version=2011-06-15'), ctx);
    assert.match(
      String(unknown.body),
      /<Code>InvalidAction<\/Code><Message>Could not find operation Nope for version 2011-06-15<\/Message>/,
    );
    const version = await q.handle(form('Action=GetCallerIdentity&Version=2010-08-01'), ctx);
    assert.match(String(version.body), /<Code>InvalidAction<\/Code>/);
    const modelled = await q.handle(form('Action=GetSessionToken&Version=2011-06-15'), ctx);
    assert.match(String(modelled.body), /<Code>InvalidParameterValueException<\/Code><Message>nope<\/Message>/);
    const internal = await q.handle(
      form('Action=GetAccessKeyInfo&Version=2011-06-15&AccessKeyId=AKIAAAAAAAAAAAAAAAAA'),
      ctx,
    );
    assert.equal(internal.status, 500);
    assert.match(String(internal.body), /<Type>Receiver<\/Type><Code>InternalFailure<\/Code>/);
    assert.doesNotMatch(String(internal.body), /internal detail/);
    const notForm = await q.handle(form('{"Action":"GetCallerIdentity"}', { 'content-type': 'application/json' }), ctx);
    assert.equal(notForm.status, 400);
  });

  test('GET with the parameters in the query string', async () => {
    const r = await q.handle(
      {
        method: 'GET',
        path: '/',
        query: new URLSearchParams('Action=GetCallerIdentity&Version=2011-06-15'),
        headers: {},
        body: Buffer.alloc(0),
      },
      ctx,
    );
    assert.equal(r.status, 200);
  });
});
