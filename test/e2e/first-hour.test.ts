// A new user's first hour: `slipway demo` fills a fresh server with a trained, registered, deployed
// model, its experiment runs and its lineage, and runs again without tripping on its own names; the
// CLI answers --help and --version, and `lineage export` works against a local server without AWS
// credentials, saying what it signed with and that it created the bucket.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import {
  DescribeEndpointCommand,
  DescribeModelPackageCommand,
  DescribeProcessingJobCommand,
  ListModelPackagesCommand,
  ListTrialComponentsCommand,
  QueryLineageCommand,
  ListContextsCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { runDemo } from '../../src/cli/demo.js';
import { REGION, startServer, type TestServer, tempDir } from '../support/server.js';

const BIN = new URL('../../../bin/slipway.js', import.meta.url).pathname;

/** Runs the `slipway` command; resolves with its exit code and output. */
function slipway(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: tempDir('slipway-home-'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe('slipway demo', () => {
  let server: TestServer;
  let sm: SageMakerClient;
  const creds = { accessKeyId: 'demo', secretAccessKey: 'demo' };
  before(async () => {
    server = await startServer();
    sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: creds });
  });
  after(async () => {
    sm.destroy();
    await server.close();
  });

  it('trains, registers, deploys, invokes and transforms, and a second run adds a round', async () => {
    const lines: string[] = [];
    const first = await runDemo({
      endpoint: server.endpoint,
      region: REGION,
      credentials: creds,
      bucket: 'slipway-demo',
      print: (l) => lines.push(l),
    });
    assert.equal(first.round, 1);
    assert.equal(first.trainingJobs.length, 3);
    assert.equal(first.predictions.length, 5);
    assert.equal(first.pipelineStatus, 'Succeeded');
    assert.match(first.tuningJob, /^slipway-demo-r1-tune$/);
    // A processing job in SageMaker's scikit-learn image (script mode) profiled the training data.
    const profiled = await sm.send(new DescribeProcessingJobCommand({ ProcessingJobName: first.processingJob }));
    assert.equal(profiled.ProcessingJobStatus, 'Completed', profiled.FailureReason);
    for (const p of first.predictions) assert.ok(Number(p) > 1 && Number(p) < 30, `a plausible number of rings: ${p}`);
    // The best run is the registered, approved version, and the endpoint serves it.
    const pkg = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: first.modelPackageArn }));
    assert.equal(pkg.ModelApprovalStatus, 'Approved');
    assert.match(pkg.ModelPackageDescription ?? '', new RegExp(`^${first.best}: validation:rmse`));
    const ep = await sm.send(new DescribeEndpointCommand({ EndpointName: first.endpointName }));
    assert.equal(ep.EndpointStatus, 'InService');
    // The experiment's runs are there to compare, and the endpoint's lineage reaches the training data.
    const runs = await sm.send(new ListTrialComponentsCommand({ ExperimentName: 'slipway-demo' }));
    assert.equal(runs.TrialComponentSummaries?.length, 3);
    // The pipeline registered its model for review in the same group.
    const pending = await sm.send(
      new ListModelPackagesCommand({
        ModelPackageGroupName: 'slipway-demo-abalone',
        ModelApprovalStatus: 'PendingManualApproval',
      }),
    );
    assert.equal(pending.ModelPackageSummaryList?.length, 1);
    const ctx = await sm.send(new ListContextsCommand({ ContextType: 'Endpoint', SourceUri: ep.EndpointArn }));
    const lineage = await sm.send(
      new QueryLineageCommand({
        StartArns: [ctx.ContextSummaries![0]!.ContextArn!],
        Direction: 'Ascendants',
        MaxDepth: 10,
        IncludeEdges: false,
      }),
    );
    assert.ok(
      lineage.Vertices?.some((v) => v.Type === 'DataSet'),
      `the endpoint's lineage reaches its data set: ${JSON.stringify(lineage.Vertices?.map((v) => v.Type))}`,
    );
    // The batch transform wrote one prediction per hold-out row.
    const s3 = new S3Client({ endpoint: server.endpoint, region: REGION, credentials: creds, forcePathStyle: true });
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: 'slipway-demo', Prefix: 'abalone/batch-output/slipway-demo-r1/' }),
    );
    const key = listed.Contents?.[0]?.Key;
    assert.ok(key, 'a transform output');
    const body = await (
      await s3.send(new GetObjectCommand({ Bucket: 'slipway-demo', Key: key }))
    ).Body!.transformToString();
    assert.equal(body.trim().split('\n').length, 600);
    const profile = JSON.parse(
      await (
        await s3.send(
          new GetObjectCommand({
            Bucket: 'slipway-demo',
            Key: `abalone/profile/${first.processingJob}/profile.json`,
          }),
        )
      ).Body!.transformToString(),
    ) as { rows: number; columns: Record<string, { mean: number }> };
    assert.equal(profile.rows, 2400);
    assert.ok(profile.columns.rings!.mean > 5, JSON.stringify(profile.columns.rings));
    s3.destroy();
    // Links into the console for each thing it made.
    const text = lines.join('\n');
    for (const path of [
      '/console/experiments/slipway-demo',
      '/console/registry/slipway-demo-abalone',
      `/console/endpoints/${first.endpointName}`,
      '/console/tuning/slipway-demo-r1-tune',
      '/console/pipelines/slipway-demo-pipeline',
      `/console/jobs/processing/${first.processingJob}`,
    ])
      assert.ok(text.includes(`${server.endpoint}${path}`), `links to ${path}:\n${text}`);

    // The command itself, a second time: a new round, nothing "already exists".
    const second = await slipway(['demo', '--endpoint', server.endpoint, '--region', REGION]);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /Signing with a dummy key/);
    assert.match(second.out, /Round 2 against/);
    assert.match(second.out, /slipway-demo-r2 InService/);
    assert.match(second.out, /pipeline {2}slipway-demo-pipeline execution Succeeded/);
  });

  it('says plainly when no server answers', async () => {
    const r = await slipway(['demo', '--endpoint', 'http://127.0.0.1:9']);
    assert.equal(r.code, 1);
    assert.match(r.err, /no Slipway server answers at http:\/\/127\.0\.0\.1:9/);
  });
});

describe('the slipway command', () => {
  it('prints its version and every command help', async () => {
    const v = await slipway(['--version']);
    assert.equal(v.code, 0);
    assert.match(v.out, /^slipway \d+\.\d+\.\d+\n$/);
    for (const args of [['--help'], ['demo', '--help'], ['lineage', 'export', '--help']]) {
      const r = await slipway(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
      assert.match(r.out, /^Usage: slipway/);
    }
  });

  it('npm start -- --help answers at once on a built tree: nothing is built again', async () => {
    const page = new URL('../../../dist/public/console/index.html', import.meta.url);
    const before = statSync(page).mtimeMs;
    const r = await new Promise<{ code: number; out: string }>((resolve, reject) => {
      const child = spawn('npm', ['start', '--silent', '--', '--help'], {
        cwd: new URL('../../../', import.meta.url).pathname,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code: code ?? -1, out }));
    });
    assert.equal(r.code, 0);
    assert.match(r.out, /^Usage: slipway <command>/);
    assert.equal(statSync(page).mtimeMs, before, 'the console was not built again');
  });

  it('lineage export signs with dummy credentials for a local server and says it created the bucket', async () => {
    const server = await startServer();
    try {
      const r = await slipway([
        'lineage',
        'export',
        '--data-dir',
        server.dataDir,
        '--account-id',
        '111122223333',
        '--region',
        REGION,
        '--out',
        's3://fresh-export/lineage/',
        '--s3-endpoint',
        server.endpoint,
      ]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /no AWS credentials found: signing with dummy credentials/);
      assert.match(r.err, /created bucket fresh-export/);
      assert.match(r.out, /exported \d+ nodes and \d+ edges to s3:\/\/fresh-export\/lineage\//);
    } finally {
      await server.close();
    }
  });
});
