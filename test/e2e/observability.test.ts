// Watching the server as an operator does: GET /metrics (process, HTTP requests by service,
// operation and status with latencies, database, jobs, log volume), its log lines (every
// protocol's operation named; a client's error at info without a stack), and OpenTelemetry traces
// of requests and jobs sent to an OTLP/HTTP receiver (written here) when OTEL_EXPORTER_OTLP_ENDPOINT
// is set.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateModelPackageGroupCommand,
  CreateTrainingJobCommand,
  DescribeEndpointCommand,
  DescribeTrainingJobCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { NOTEBOOK_HYPERPARAMETERS, NOTEBOOK_IMAGE } from '../support/abalone.js';
import { ACCOUNT, CREDENTIALS, type ChildServer, REGION, spawnServer, tempDir } from '../support/server.js';

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** A minimal OTLP/HTTP trace receiver: POST /v1/traces with JSON bodies. */
async function otlpReceiver() {
  const spans: OtlpSpan[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        contentTypes.add(String(req.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{
            resource: { attributes: OtlpSpan['attributes'] };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    spans,
    contentTypes,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

/** `name{labels} value` lines of a metric, as [labels, value]. */
function series(text: string, name: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const i = line.lastIndexOf(' ');
    out.push([line.slice(name.length, i), Number(line.slice(i + 1))]);
  }
  return out;
}

describe('metrics, logs and traces of a running server', () => {
  const dataDir = tempDir();
  let server: ChildServer;
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  const lines: Array<Record<string, unknown>> = [];
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    receiver = await otlpReceiver();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_SERVICE_NAME: 'slipway-test',
    };
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    try {
      server = await spawnServer([], dataDir);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    createInterface({ input: server.child.stdout! }).on('line', (l) => {
      try {
        lines.push(JSON.parse(l));
      } catch {}
    });
  });
  after(async () => {
    await server?.close();
    receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('GET /metrics, the log lines and the exported traces describe what happened', async () => {
    const common = { endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS, maxAttempts: 1 };
    const sm = new SageMakerClient(common);
    const s3 = new S3Client({ ...common, forcePathStyle: true });
    try {
      await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: 'observed' }));
      await assert.rejects(sm.send(new DescribeEndpointCommand({ EndpointName: 'nowhere' })), {
        name: 'ValidationException',
      });
      await s3.send(new CreateBucketCommand({ Bucket: 'observed-data' }));
      await s3.send(new PutObjectCommand({ Bucket: 'observed-data', Key: 'train/a.csv', Body: '1,2\n3,4\n' }));
      await s3.send(new GetObjectCommand({ Bucket: 'observed-data', Key: 'train/a.csv' }));
      await assert.rejects(s3.send(new GetObjectCommand({ Bucket: 'observed-data', Key: 'missing' })), {
        name: 'NoSuchKey',
      });
      // A user's mistake in a job: the job fails, the server is fine.
      await sm.send(
        new CreateTrainingJobCommand({
          TrainingJobName: 'bad-hyperparameter',
          RoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
          AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
          HyperParameters: { ...NOTEBOOK_HYPERPARAMETERS, max_depth: '-3' },
          InputDataConfig: [
            {
              ChannelName: 'train',
              ContentType: 'text/csv',
              DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://observed-data/train/' } },
            },
          ],
          OutputDataConfig: { S3OutputPath: 's3://observed-data/out' },
          ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
          StoppingCondition: { MaxRuntimeInSeconds: 600 },
        }),
      );
      let status: string | undefined;
      const until = Date.now() + 60_000;
      do {
        await sleep(200);
        status = (await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'bad-hyperparameter' })))
          .TrainingJobStatus;
      } while (status === 'InProgress' && Date.now() < until);
      assert.equal(status, 'Failed');
      // A Gremlin query on the graph port.
      const g = await fetch(`${server.graphEndpoint}/gremlin`, {
        method: 'POST',
        body: JSON.stringify({ gremlin: 'g.V().count()' }),
      });
      assert.equal(g.status, 200);
    } finally {
      sm.destroy();
      s3.destroy();
    }

    const text = await (await fetch(`${server.endpoint}/metrics`)).text();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'process_open_fds',
    ])
      assert.ok(series(text, name).length > 0, `${name} missing`);
    const requests = new Map(series(text, 'slipway_http_requests_total'));
    assert.equal(requests.get('{service="SageMaker",operation="CreateModelPackageGroup",status="200"}'), 1);
    assert.equal(requests.get('{service="SageMaker",operation="DescribeEndpoint",status="400"}'), 1);
    assert.equal(requests.get('{service="S3",operation="PutObject",status="200"}'), 1);
    assert.equal(requests.get('{service="S3",operation="GetObject",status="404"}'), 1);
    assert.equal(requests.get('{service="NeptuneData",operation="ExecuteGremlinQuery",status="200"}'), 1);
    const latency = new Map(series(text, 'slipway_http_request_duration_seconds_count'));
    assert.equal(latency.get('{service="S3",operation="GetObject"}'), 2);
    assert.ok(series(text, 'slipway_http_request_duration_seconds_bucket').some(([l]) => l.includes('le="0.005"')));
    const queries = new Map(series(text, 'slipway_db_query_duration_seconds_count'));
    assert.ok((queries.get('{dialect="sqlite",kind="statement"}') ?? 0) > 0);
    assert.ok((queries.get('{dialect="sqlite",kind="transaction"}') ?? 0) > 0);
    const finished = new Map(series(text, 'slipway_jobs_finished_total'));
    assert.equal(finished.get('{kind="training-job",status="Failed"}'), 1);
    assert.equal(new Map(series(text, 'slipway_job_claim_lag_seconds_count')).get('{kind="training-job"}'), 1);
    assert.ok(
      series(text, 'slipway_jobs').every(([, v]) => v === 0),
      'nothing left queued or running',
    );
    const logLines = new Map(series(text, 'slipway_log_lines_total'));
    assert.ok((logLines.get('{level="info"}') ?? 0) >= 8);
    assert.ok(series(text, 'slipway_log_bytes_total').length > 0);

    // Log lines: each protocol's operation by name, client errors at info with their code, no stack.
    const requestLines = lines.filter((l) => l.msg === 'request');
    const s3Put = requestLines.find((l) => l.service === 'S3' && l.op === 'PutObject');
    assert.ok(s3Put, 'S3 requests are logged with their operation');
    const missing = requestLines.find((l) => l.op === 'GetObject' && l.status === 404);
    assert.equal(missing?.level, 30);
    assert.equal(missing?.error, 'NoSuchKey');
    const notFound = requestLines.find((l) => l.op === 'DescribeEndpoint');
    assert.deepEqual([notFound?.level, notFound?.error, notFound?.status], [30, 'ValidationException', 400]);
    assert.ok(requestLines.some((l) => l.service === 'NeptuneData' && l.op === 'ExecuteGremlinQuery'));
    const jobLine = lines.find((l) => l.msg === 'job failed' && l.id !== undefined);
    assert.equal(jobLine?.level, 30, "a job's own failure is logged at info");
    assert.match(String(jobLine?.reason), /max_depth/);
    assert.ok(
      !lines.some((l) => l.level !== undefined && Number(l.level) >= 40),
      `warnings or errors logged: ${JSON.stringify(lines.filter((l) => Number(l.level) >= 40))}`,
    );
    assert.ok(!JSON.stringify(lines).includes('"stack"'), 'no stack trace in the log');

    // Traces: a server span per request (SageMaker, S3, the graph port), and the job's span.
    const deadline = Date.now() + 10_000;
    const want = [
      'SageMaker/CreateModelPackageGroup',
      'S3/PutObject',
      'NeptuneData/ExecuteGremlinQuery',
      'job training-job',
    ];
    while (!want.every((n) => receiver.spans.some((s) => s.name === n)) && Date.now() < deadline) await sleep(100);
    for (const n of want)
      assert.ok(
        receiver.spans.some((s) => s.name === n),
        `no span ${n}`,
      );
    const describe = receiver.spans.find((s) => s.name === 'SageMaker/DescribeEndpoint')!;
    assert.equal(describe.kind, 2, 'SPAN_KIND_SERVER');
    assert.equal(attr(describe, 'http.response.status_code'), 400);
    assert.equal(attr(describe, 'rpc.method'), 'DescribeEndpoint');
    const job = receiver.spans.find((s) => s.name === 'job training-job')!;
    assert.equal(attr(job, 'job.status'), 'Failed');
    assert.ok([...receiver.contentTypes].every((t) => t.startsWith('application/json')));
  });

  test("a request carrying a W3C traceparent continues the caller's trace", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${server.endpoint}/_slipway/health`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    assert.equal(res.status, 200);
    const deadline = Date.now() + 10_000;
    while (!receiver.spans.some((s) => s.traceId === traceId) && Date.now() < deadline) await sleep(100);
    const span = receiver.spans.find((s) => s.traceId === traceId);
    assert.equal(span?.parentSpanId, '00f067aa0ba902b7');
  });
});
