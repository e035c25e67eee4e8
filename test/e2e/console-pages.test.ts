// The console pages a new user reads after `slipway demo`, in headless Chromium against one real
// server: registry groups with version counts, the newest approval and sorting; a group's versions
// that show an approval made elsewhere without a reload; a missing group said once; a Failed
// endpoint that leads with its reason and drops charts and the test box; charts whose time axis
// spans the chosen window; lineage details as facts with readable times; the Graph page on what
// the lineage exporter loaded (its lowercase labels, one colour per kind, working examples).
// Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  DescribeEndpointCommand,
  SageMakerClient,
  UpdateModelPackageCommand,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { runDemo } from '../../src/cli/demo.js';
import { lineageExportCommand } from '../../src/cli/lineage-export.js';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';
import type { RunningApp } from '../../src/app.js';

const skip = requireChromium();
const IMAGE = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.7-1`;
const DEMO_GROUP = 'slipway-demo-abalone';
/** A second group: two versions, none decided yet. */
const PENDING = 'aaa-pending';

describe('console pages after slipway demo', { skip }, () => {
  let server: TestServer & { app: RunningApp };
  let browser: Browser;
  let page: Page;
  let sm: SageMakerClient;
  let endpoint: string;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
  const texts = async (selector: string) => (await page.locator(selector).allInnerTexts()).map((t) => t.trim());

  before(async () => {
    server = await startServer(['--default-region', REGION]);
    const demo = await runDemo({
      endpoint: server.endpoint,
      region: REGION,
      credentials: CREDENTIALS,
      bucket: 'slipway-demo',
      print: () => {},
    });
    endpoint = demo.endpointName;
    sm = new SageMakerClient({ endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS });
    await sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: PENDING }));
    for (let i = 0; i < 3; i++)
      await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: PENDING,
          ModelApprovalStatus: 'PendingManualApproval',
          InferenceSpecification: {
            Containers: [{ Image: IMAGE, ModelDataUrl: 's3://slipway-demo/abalone/none.tar.gz' }],
            SupportedContentTypes: ['text/csv'],
            SupportedResponseMIMETypes: ['text/csv'],
          },
        }),
      );
    // An endpoint whose model artifact is not there: it fails to deploy.
    await sm.send(
      new CreateModelCommand({
        ModelName: 'broken',
        ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
        PrimaryContainer: { Image: IMAGE, ModelDataUrl: 's3://slipway-demo/no/such/model.tar.gz' },
      }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: 'broken',
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: 'broken',
            ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 2 },
          },
        ],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: 'broken', EndpointConfigName: 'broken' }));
    for (let i = 0; i < 100; i++) {
      const d = await sm.send(new DescribeEndpointCommand({ EndpointName: 'broken' }));
      if (d.EndpointStatus === 'Failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The demo's lineage, loaded into the graph as `slipway lineage export --load` does.
    const code = await lineageExportCommand(
      [
        '--source',
        'aws',
        '--endpoint-url',
        server.endpoint,
        '--out',
        's3://lineage/console/',
        '--s3-endpoint',
        server.endpoint,
        '--load',
        server.graphEndpoint,
      ],
      {
        AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
        AWS_REGION: REGION,
      },
    );
    assert.equal(code, 0);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    sm?.destroy();
    await server?.close();
  });

  test('registry groups: version count, the newest approval with its note, the newest approved; sorted by any column', async () => {
    await page.goto(url('/registry'));
    const demoRow = page.locator('tbody tr', { has: page.getByRole('link', { name: DEMO_GROUP, exact: true }) });
    await demoRow.locator('.latest-version .badge').waitFor();
    const headers = await texts('thead th');
    assert.deepEqual(headers.slice(0, 4), ['Group', 'Versions', 'Latest version', 'Latest approved']);
    const demo = (await demoRow.locator('td').allInnerTexts()).map((t) => t.trim());
    // The demo approved its best model (v1); its pipeline then registered v2 for review.
    assert.equal(demo[1], '2');
    assert.match(demo[2]!, /^v2\s+PendingManualApproval/);
    assert.equal(demo[3], 'v1');
    const pendingRow = page.locator('tbody tr', { has: page.getByRole('link', { name: PENDING, exact: true }) });
    const pending = (await pendingRow.locator('td').allInnerTexts()).map((t) => t.trim());
    assert.equal(pending[1], '3');
    assert.match(pending[2]!, /^v3\s+PendingManualApproval$/);
    assert.equal(pending[3], '—');
    // Newest first by default; by name through the API (the order is in the URL), then by count.
    const groups = () => texts('tbody tr td:first-child a');
    assert.deepEqual(await groups(), [PENDING, DEMO_GROUP]);
    await page.locator('thead th', { hasText: 'Group' }).click();
    await page.waitForURL(/sort=name/);
    await page.locator('thead th[aria-sort="ascending"]', { hasText: 'Group' }).waitFor();
    assert.deepEqual(await groups(), [PENDING, DEMO_GROUP]);
    await page.locator('thead th', { hasText: 'Group' }).click();
    await page.waitForURL(/sort=name&desc=1/);
    await page.locator('tbody tr:first-child td:first-child', { hasText: DEMO_GROUP }).waitFor();
    await page.locator('thead th', { hasText: 'Versions' }).click();
    await page.locator('thead th[aria-sort="ascending"]', { hasText: 'Versions' }).waitFor();
    assert.deepEqual(await groups(), [DEMO_GROUP, PENDING]);
    await shot('registry-groups');
  });

  test("a group's versions show an approval made elsewhere without a reload; a missing group is said once", async () => {
    await page.goto(url(`/registry/${PENDING}`));
    const v2 = page.locator('tbody tr', { has: page.getByRole('link', { name: '2', exact: true }) });
    await v2.locator('.badge', { hasText: 'PendingManualApproval' }).waitFor();
    await sm.send(
      new UpdateModelPackageCommand({
        ModelPackageArn: `arn:aws:sagemaker:${REGION}:${ACCOUNT}:model-package/${PENDING}/2`,
        ModelApprovalStatus: 'Approved',
        ApprovalDescription: 'approved from boto3',
      }),
    );
    await v2.locator('.badge', { hasText: 'Approved' }).waitFor({ timeout: 10_000 });
    assert.match(await v2.innerText(), /approved from boto3/);
    await page.goto(url('/registry/no-such-group'));
    await page.getByRole('heading', { name: 'No such model package group' }).waitFor();
    assert.equal(await page.locator('.error').count(), 0, 'no error box');
    assert.equal(await page.locator('table').count(), 0, 'no empty list of versions');
    assert.doesNotMatch(await page.locator('main').innerText(), /No version registered/);
  });

  test('a Failed endpoint leads with its reason and shows no charts or test box', async () => {
    await page.goto(url('/endpoints/broken'));
    const failure = page.getByRole('alert').filter({ hasText: 'This endpoint failed' });
    await failure.waitFor();
    assert.match(
      await failure.innerText(),
      /Failed to download model data[\s\S]*s3:\/\/slipway-demo\/no\/such\/model\.tar\.gz[\s\S]*delete the endpoint and create it again/,
    );
    await page.locator('.deployed-image', { hasText: IMAGE }).waitFor();
    assert.equal(await page.locator('figure.chart').count(), 0, 'no charts');
    assert.equal(await page.locator('form.test-box').count(), 0, 'no test box');
    assert.equal(await page.getByRole('heading', { name: 'Traffic' }).count(), 0);
    await shot('endpoint-failed');
    await page.goto(url('/endpoints'));
    await page.locator('tbody tr', { hasText: 'broken' }).locator('.badge', { hasText: 'Failed' }).waitFor();
  });

  test("an endpoint's charts span the chosen window up to now, from the stored history", async () => {
    await page.goto(url(`/endpoints/${endpoint}`));
    const first = page.locator('figure.chart').first();
    await first.waitFor();
    const range = async () => {
      const [from, to] = [
        Number(await first.getAttribute('data-x-from')),
        Number(await first.getAttribute('data-x-to')),
      ];
      return { span: to - from, lag: Date.now() / 1000 - to };
    };
    const r1h = await range();
    assert.equal(Math.round(r1h.span), 3600, 'the last hour');
    assert.ok(Math.abs(r1h.lag) < 10, `ends now (${r1h.lag} s ago)`);
    // The demo's invocations are in the stored history (a minute's points are written as it ends:
    // here at once), and the axis still covers the whole window.
    await server.app.flushMetrics();
    await page.locator('.traffic button.refresh').click();
    await page.waitForFunction(
      () =>
        Number(
          (
            globalThis as unknown as {
              document: { querySelector(s: string): { getAttribute(a: string): string | null } | null };
            }
          ).document
            .querySelector('.charts')
            ?.getAttribute('data-invocations'),
        ) >= 5,
      undefined,
      { timeout: 15_000 },
    );
    assert.equal(await page.locator('.chart-empty').count(), 0);
    assert.match(
      await page.locator('.traffic-source').innerText(),
      /CloudWatch's AWS\/SageMaker metrics of variant AllTraffic/,
    );
    await page.selectOption('select[name=window]', '15m');
    await page.waitForURL(/window=15m/);
    await page.locator('figure.chart').first().waitFor();
    assert.equal(Math.round((await range()).span), 900, 'the last 15 minutes');
    await shot('endpoint-window');
  });

  test('lineage details: key facts first with readable times, the job linked, the raw answer folded', async () => {
    const ep = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:context/${endpoint}-aws-endpoint`;
    const tc = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:experiment-trial-component/slipway-demo-r1-shallow-aws-training-job`;
    await page.goto(
      url(`/lineage?arn=${encodeURIComponent(ep)}&direction=Ascendants&selected=${encodeURIComponent(tc)}`),
    );
    const details = page.locator('.entity-details');
    await details.locator('dt', { hasText: 'Started' }).waitFor();
    const facts = await details.locator('dl').first().locator('dt').allInnerTexts();
    assert.deepEqual(facts.slice(0, 5), ['Kind', 'Name', 'Display name', 'Source', 'Status']);
    const started = await details.locator('dt:has-text("Started") + dd time').innerText();
    assert.doesNotMatch(started, /^\d{9,}/, 'not an epoch number');
    assert.ok(
      !Number.isNaN(Date.parse((await details.locator('dt:has-text("Started") + dd time').getAttribute('datetime'))!)),
    );
    assert.match(await details.locator('.fact-group', { hasText: 'Parameters' }).innerText(), /max_depth\s+2/);
    assert.match(
      await details.locator('.fact-group', { hasText: 'Metrics' }).innerText(),
      /validation:rmse\s+last [\d.]+ · min/,
    );
    assert.equal(await details.locator('details.raw pre.json').isVisible(), false, 'the raw JSON is folded');
    await details.locator('details.raw summary').click();
    assert.match(await details.locator('details.raw pre.json').innerText(), /"TrialComponentArn"/);
    await shot('lineage-details');
    await details.locator('dt:has-text("Source") + dd a').click();
    await page.waitForURL(/\/jobs\/training\/slipway-demo-r1-shallow$/);
  });

  test("graph: the exporter's labels, one colour per kind in a legend that matches, examples that find what was loaded", async () => {
    await page.goto(url('/graph'));
    const legendColours = async () =>
      page
        .locator('.graph-legend span')
        .evaluateAll((spans) =>
          spans.map((s) => [(s.textContent ?? '').trim(), s.querySelector('[fill]')?.getAttribute('fill') ?? '']),
        );
    /** Runs an example; the number of vertices its picture drew. */
    const example = async (title: string) => {
      const button = page.getByRole('button', { name: title });
      const q = (await button.getAttribute('data-query'))!;
      await button.click();
      const canvas = page.locator(`.graph-result[data-query="${q}"] canvas.graph-picture[data-drawn-nodes]`);
      await canvas.waitFor();
      return Number(await canvas.getAttribute('data-drawn-nodes'));
    };
    for (const title of ['Endpoints and model groups', 'What jobs produced', 'Associations'])
      assert.ok((await example(title)) > 1, title);
    await page.locator('.graph-legend span', { hasText: 'trial_component' }).waitFor();
    const legend = Object.fromEntries(await legendColours());
    assert.deepEqual(Object.keys(legend), ['artifact', 'action', 'context', 'trial_component']);
    assert.equal(new Set(Object.values(legend)).size, 4, `distinct colours: ${JSON.stringify(legend)}`);
    // The same colours as the lineage page's kinds.
    assert.equal(legend.artifact, '#2563eb');
    assert.notEqual(legend.action, legend.context);
    // Vertices are named from their properties, not their ids; a vertex's properties read as facts.
    const endpointItem = page.locator('.graph-entities button', { hasText: `Endpoint: ${endpoint}` });
    await endpointItem.waitFor({ state: 'attached' });
    await endpointItem.focus();
    await page.keyboard.press('Enter');
    const vd = page.locator('.vertex-details');
    await vd.locator('dt', { hasText: 'creationtime' }).waitFor();
    assert.doesNotMatch(await vd.locator('dt:has-text("creationtime") + dd').innerText(), /^\d{9,}/);
    await shot('graph-lineage');
    // What the issue tried: a capitalised label finds nothing, and the page says why.
    await page.locator('textarea[name=gremlin]').fill("g.V().hasLabel('Context')");
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.no-results', { hasText: 'case-sensitive' }).waitFor();
    assert.deepEqual(errors, []);
  });
});
