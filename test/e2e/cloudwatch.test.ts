// CloudWatch metrics end to end, in every wire form clients send: the AWS SDK for JavaScript's
// CloudWatch client (JSON 1.0, gzip-compressed PutMetricData), Smithy RPC v2 CBOR (signed by the
// SDK's own signer, encoded by its own codec), the AWS CLI (query protocol); endpoint metrics in
// AWS/SageMaker after real invocations; data that outlives a restart.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { cbor, tag } from '@smithy/core/cbor';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { sdkClients } from '../support/clients.js';
import { deployServerless } from '../support/deploy.js';
import { CREDENTIALS, REGION, startServer, type TestServer, tempDir } from '../support/server.js';

const MIN = 60_000;
const minute = (t: number) => t - (t % MIN);

async function cborCall(
  endpoint: string,
  op: string,
  input: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const url = new URL(`${endpoint}/service/GraniteServiceVersion20100801/operation/${op}`);
  const body = cbor.serialize(input);
  const req = new HttpRequest({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: {
      host: url.host,
      'smithy-protocol': 'rpc-v2-cbor',
      'content-type': 'application/cbor',
      accept: 'application/cbor',
    },
    body,
  });
  const signed = await new SignatureV4({
    credentials: CREDENTIALS,
    region: REGION,
    service: 'monitoring',
    sha256: Hash.bind(null, 'sha256'),
  }).sign(req);
  const res = await fetch(url, { method: 'POST', headers: signed.headers as Record<string, string>, body });
  return { status: res.status, headers: res.headers, body: cbor.deserialize(new Uint8Array(await res.arrayBuffer())) };
}

function aws(endpoint: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn('/usr/bin/aws', ['--endpoint-url', endpoint, '--region', REGION, '--output', 'json', ...args], {
    env: {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'AKIDCLI',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      AWS_PAGER: '',
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

describe('CloudWatch metrics', () => {
  const dataDir = tempDir();
  let server: TestServer & { app: { flushMetrics(): Promise<void> } };
  let cw: CloudWatchClient;
  const t0 = minute(Date.now()) - 5 * MIN;
  const dims = [{ Name: 'Service', Value: 'checkout' }];

  before(async () => {
    server = await startServer([], { dataDir });
    cw = new CloudWatchClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
  });
  after(() => server.close());

  test('the JavaScript SDK: PutMetricData (gzip-compressed), statistics, percentiles, ListMetrics', async () => {
    // 300 data points a minute apart in blocks: big enough for the SDK to gzip the body.
    const MetricData = Array.from({ length: 300 }, (_, i) => ({
      MetricName: 'Latency',
      Dimensions: dims,
      Timestamp: new Date(t0 + (i % 3) * MIN + i),
      Value: i + 1,
      Unit: 'Milliseconds' as const,
    }));
    await cw.send(new PutMetricDataCommand({ Namespace: 'Shop', MetricData }));
    await cw.send(
      new PutMetricDataCommand({
        Namespace: 'Shop',
        MetricData: [{ MetricName: 'Orders', Dimensions: dims, Value: 3, Timestamp: new Date(t0) }],
      }),
    );
    const stats = await cw.send(
      new GetMetricStatisticsCommand({
        Namespace: 'Shop',
        MetricName: 'Latency',
        Dimensions: dims,
        StartTime: new Date(t0 + 20_000), // rounded down to the minute, as CloudWatch does
        EndTime: new Date(t0 + 3 * MIN),
        Period: 60,
        Statistics: ['SampleCount', 'Sum', 'Average', 'Minimum', 'Maximum'],
      }),
    );
    assert.equal(stats.Label, 'Latency');
    const dps = (stats.Datapoints ?? []).sort((a, b) => a.Timestamp!.getTime() - b.Timestamp!.getTime());
    assert.deepEqual(
      dps.map((d) => [d.Timestamp!.getTime() - t0, d.SampleCount, d.Minimum, d.Maximum, d.Unit]),
      [
        [0, 100, 1, 298, 'Milliseconds'],
        [MIN, 100, 2, 299, 'Milliseconds'],
        [2 * MIN, 100, 3, 300, 'Milliseconds'],
      ],
    );
    assert.equal(dps[0]!.Sum, (1 + 298) * 50);
    assert.equal(dps[0]!.Average, (1 + 298) / 2);
    const pct = await cw.send(
      new GetMetricStatisticsCommand({
        Namespace: 'Shop',
        MetricName: 'Latency',
        Dimensions: dims,
        StartTime: new Date(t0),
        EndTime: new Date(t0 + 3 * MIN),
        Period: 180,
        ExtendedStatistics: ['p50', 'p99.9', 'p100'],
      }),
    );
    assert.deepEqual(pct.Datapoints?.[0]?.ExtendedStatistics, { p50: 150, 'p99.9': 300, p100: 300 });
    // Another unit, another dimension set: another datapoint, another series.
    const data = await cw.send(
      new GetMetricDataCommand({
        StartTime: new Date(t0),
        EndTime: new Date(t0 + 3 * MIN),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: [
          {
            Id: 'p90',
            MetricStat: {
              Metric: { Namespace: 'Shop', MetricName: 'Latency', Dimensions: dims },
              Period: 60,
              Stat: 'p90',
            },
          },
          {
            Id: 'orders',
            Label: 'orders',
            MetricStat: {
              Metric: { Namespace: 'Shop', MetricName: 'Orders', Dimensions: dims },
              Period: 300,
              Stat: 'Sum',
            },
          },
          {
            Id: 'hidden',
            ReturnData: false,
            MetricStat: {
              Metric: { Namespace: 'Shop', MetricName: 'Orders', Dimensions: dims },
              Period: 60,
              Stat: 'Sum',
            },
          },
        ],
      }),
    );
    assert.deepEqual(
      data.MetricDataResults?.map((r) => [
        r.Id,
        r.Label,
        r.Timestamps?.map((t) => t.getTime() - t0),
        r.Values,
        r.StatusCode,
      ]),
      [
        ['p90', 'Latency', [0, MIN, 2 * MIN], [268, 269, 270], 'Complete'],
        ['orders', 'orders', [0], [3], 'Complete'],
      ],
    );
    const listed = await cw.send(
      new ListMetricsCommand({ Namespace: 'Shop', Dimensions: [{ Name: 'Service', Value: 'checkout' }] }),
    );
    assert.deepEqual(listed.Metrics?.map((m) => m.MetricName).sort(), ['Latency', 'Orders']);
    assert.deepEqual(
      (await cw.send(new ListMetricsCommand({ Dimensions: [{ Name: 'Service', Value: 'other' }] }))).Metrics,
      [],
    );
  });

  test('errors reach the SDK with their CloudWatch codes', async () => {
    const err = await cw
      .send(
        new GetMetricStatisticsCommand({
          Namespace: 'Shop',
          MetricName: 'Latency',
          StartTime: new Date(t0),
          EndTime: new Date(t0 + 2 * 86_400_000),
          Period: 60,
          Statistics: ['Sum'],
        }),
      )
      .catch((e: Error & { Code?: string; $metadata?: { httpStatusCode?: number } }) => e);
    assert.ok(err instanceof Error);
    assert.equal((err as { Code?: string }).Code, 'InvalidParameterCombination');
    assert.match(err.message, /^You have requested up to 2,880 datapoints, which exceeds the limit of 1,440\./);
    const old = await cw
      .send(
        new PutMetricDataCommand({
          Namespace: 'Shop',
          MetricData: [{ MetricName: 'x', Value: 1, Timestamp: new Date(Date.now() - 20 * 86_400_000) }],
        }),
      )
      .catch((e: Error) => e);
    assert.equal((old as Error).name, 'InvalidParameterValueException');
    assert.equal(
      (old as Error).message,
      'The parameter MetricData.member.1.Timestamp must specify a time within the past two weeks.',
    );
  });

  test('RPC v2 CBOR, signed and encoded as the SDKs do', async () => {
    const put = await cborCall(server.endpoint, 'PutMetricData', {
      Namespace: 'Cbor',
      MetricData: [
        {
          MetricName: 'Depth',
          Values: [1, 2, 3],
          Counts: [2, 2, 2],
          Timestamp: tag({ tag: 1, value: (t0 + 1000) / 1000 }),
          Unit: 'Count',
        },
      ],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.headers.get('smithy-protocol'), 'rpc-v2-cbor');
    const got = await cborCall(server.endpoint, 'GetMetricStatistics', {
      Namespace: 'Cbor',
      MetricName: 'Depth',
      StartTime: tag({ tag: 1, value: t0 / 1000 }),
      EndTime: tag({ tag: 1, value: (t0 + MIN) / 1000 }),
      Period: 60,
      Statistics: ['SampleCount', 'Sum'],
    });
    const dp = (got.body.Datapoints as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual(
      [dp.SampleCount, dp.Sum, (dp.Timestamp as { tag: number; value: number }).value],
      [6, 12, t0 / 1000],
    );
    const bad = await cborCall(server.endpoint, 'PutMetricData', {
      Namespace: 'AWS/EC2',
      MetricData: [{ MetricName: 'x', Value: 1 }],
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('x-amzn-query-error'), 'InvalidParameterValue;Sender');
    assert.equal(bad.body.__type, 'InvalidParameterValueException');
  });

  test('a request over 1 MB is refused in its own protocol', async () => {
    const big = `Action=PutMetricData&Version=2010-08-01&Namespace=Big&MetricData.member.1.MetricName=${'x'.repeat(1024 * 1024)}`;
    const res = await fetch(`${server.endpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=AKID/20260101/${REGION}/monitoring/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
      },
      body: big,
    });
    assert.equal(res.status, 413);
    assert.match(
      await res.text(),
      /<Code>RequestEntityTooLarge<\/Code><Message>Request body is larger than 1048576 bytes.<\/Message>/,
    );
  });

  test('the AWS CLI (query protocol): put-metric-data and get-metric-statistics', {
    skip: existsSync('/usr/bin/aws') ? false : 'no /usr/bin/aws (apt-get install awscli)',
  }, async () => {
    const at = new Date(t0 + 4 * MIN).toISOString();
    const put = await aws(server.endpoint, [
      'cloudwatch',
      'put-metric-data',
      '--namespace',
      'Cli',
      '--metric-name',
      'Jobs',
      '--dimensions',
      'Queue=q1',
      '--timestamp',
      at,
      '--value',
      '7',
      '--unit',
      'Count',
    ]);
    assert.equal(put.code, 0, put.out);
    const get = await aws(server.endpoint, [
      'cloudwatch',
      'get-metric-statistics',
      '--namespace',
      'Cli',
      '--metric-name',
      'Jobs',
      '--dimensions',
      'Name=Queue,Value=q1',
      '--start-time',
      new Date(t0).toISOString(),
      '--end-time',
      new Date(t0 + 5 * MIN).toISOString(),
      '--period',
      '60',
      '--statistics',
      'Sum',
      'Maximum',
    ]);
    assert.equal(get.code, 0, get.out);
    const out = JSON.parse(get.out) as {
      Label: string;
      Datapoints: Array<{ Sum: number; Maximum: number; Unit: string; Timestamp: string }>;
    };
    assert.equal(out.Label, 'Jobs');
    assert.deepEqual(
      out.Datapoints.map((d) => [d.Sum, d.Maximum, d.Unit, Date.parse(d.Timestamp)]),
      [[7, 7, 'Count', t0 + 4 * MIN]],
    );
    const bad = await aws(server.endpoint, [
      'cloudwatch',
      'get-metric-statistics',
      '--namespace',
      'Cli',
      '--metric-name',
      'Jobs',
      '--start-time',
      at,
      '--end-time',
      at,
      '--period',
      '60',
      '--statistics',
      'Sum',
    ]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.out, /InvalidParameterValue.*The parameter StartTime must not equal parameter EndTime\./s);
  });

  test('endpoint invocations are AWS/SageMaker metrics', async () => {
    const { sm, s3, rt } = sdkClients(server.endpoint);
    await s3.send(new CreateBucketCommand({ Bucket: 'cw-models' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'cw-models',
        Key: 'm.tar.gz',
        Body: readFileSync('test/fixtures/xgboost/models/abalone.json.tar.gz'),
      }),
    );
    await deployServerless(sm, 'cw-ep', {
      Image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      ModelDataUrl: 's3://cw-models/m.tar.gz',
    });
    const from = minute(Date.now());
    for (let i = 0; i < 12; i++) {
      await rt.send(
        new InvokeEndpointCommand({
          EndpointName: 'cw-ep',
          ContentType: 'text/csv',
          Body: Buffer.from('1,0.5,0.4,0.15,0.3,0.13,0.07,0.09'),
        }),
      );
    }
    await rt
      .send(
        new InvokeEndpointCommand({
          EndpointName: 'cw-ep',
          ContentType: 'application/x-nothing',
          Body: Buffer.from('x'),
        }),
      )
      .catch(() => {});
    await server.app.flushMetrics();
    const q = (
      MetricName: string,
      Statistics: Array<'Sum' | 'SampleCount' | 'Average'>,
      ExtendedStatistics?: string[],
    ) =>
      cw.send(
        new GetMetricStatisticsCommand({
          Namespace: 'AWS/SageMaker',
          MetricName,
          Dimensions: [
            { Name: 'EndpointName', Value: 'cw-ep' },
            { Name: 'VariantName', Value: 'AllTraffic' },
          ],
          StartTime: new Date(from - MIN),
          EndTime: new Date(Date.now() + MIN),
          Period: 300,
          ...(ExtendedStatistics ? { ExtendedStatistics } : { Statistics }),
        }),
      );
    const total = (r: Awaited<ReturnType<typeof q>>, k: 'Sum' | 'SampleCount') =>
      (r.Datapoints ?? []).reduce((s, d) => s + (d[k] ?? 0), 0);
    assert.equal(total(await q('Invocations', ['Sum']), 'Sum'), 13);
    assert.equal(total(await q('Invocation4XXErrors', ['Sum']), 'Sum'), 1);
    assert.equal(total(await q('Invocation5XXErrors', ['Sum']), 'Sum'), 0);
    const latency = await q('ModelLatency', ['SampleCount']);
    assert.equal(total(latency, 'SampleCount'), 12);
    assert.equal(latency.Datapoints?.[0]?.Unit, 'Microseconds');
    const p99 = (await q('ModelLatency', [], ['p99'])).Datapoints?.[0]?.ExtendedStatistics?.p99;
    assert.ok(p99 !== undefined && p99 > 0 && p99 < 5_000_000, `p99 ${p99}`);
    const listed = await cw.send(
      new ListMetricsCommand({ Namespace: 'AWS/SageMaker', Dimensions: [{ Name: 'EndpointName', Value: 'cw-ep' }] }),
    );
    assert.ok((listed.Metrics ?? []).some((m) => m.MetricName === 'ModelLatency'));
  });

  test('acknowledged data points outlive a restart', async () => {
    await server.close();
    server = await startServer([], { dataDir });
    cw = new CloudWatchClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    const stats = await cw.send(
      new GetMetricStatisticsCommand({
        Namespace: 'Shop',
        MetricName: 'Orders',
        Dimensions: dims,
        StartTime: new Date(t0),
        EndTime: new Date(t0 + MIN),
        Period: 60,
        Statistics: ['Sum'],
      }),
    );
    assert.deepEqual(
      stats.Datapoints?.map((d) => d.Sum),
      [3],
    );
  });
});
