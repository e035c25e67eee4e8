// The web console in a real browser (Debian's Chromium, headless) against a real Slipway: an empty
// account says what to do, a reviewer approves a version with a note, watches its endpoint reach
// InService, sends a test request, and finds the model package in the endpoint's lineage graph;
// experiments compare trial components; Gremlin runs on the graph port. Screenshots of every page
// go to test-output/console/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  AssociateTrialComponentCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateExperimentCommand,
  CreateModelCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  CreateTrialCommand,
  CreateTrialComponentCommand,
  DescribeModelPackageCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer } from '../support/server.js';

const skip = requireChromium();
const manifest = JSON.parse(readFileSync('test/fixtures/xgboost/manifest.json', 'utf8')) as {
  seedRow: { csv: string; prediction: number };
};
const IMAGE = `683313688378.dkr.ecr.${REGION}.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/sm`;
const GROUP = 'xgboost-abalone';

describe('web console in Chromium', { skip }, () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  let browser: Browser;
  let page: Page;
  let sm: SageMakerClient;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
  /**
   * Waits until the number in attribute `attr` of the first `selector` is at least `atLeast` or
   * below `below`. A function, not a string: Playwright polls a string predicate with eval, which
   * the console's Content-Security-Policy refuses (and the refusal shows up as a page error).
   */
  const untilNumber = (selector: string, attr: string, want: { atLeast?: number; below?: number }, timeout?: number) =>
    page.waitForFunction(
      ([sel, name, atLeast, below]) => {
        const doc = (
          globalThis as unknown as {
            document: { querySelector(s: string): { getAttribute(a: string): string | null } | null };
          }
        ).document;
        const v = Number(doc.querySelector(sel)?.getAttribute(name));
        return (atLeast === null || v >= atLeast) && (below === null || v < below);
      },
      [selector, attr, want.atLeast ?? null, want.below ?? null] as const,
      { timeout },
    );

  before(async () => {
    server = await startServer(['--default-region', REGION]);
    const common = { endpoint: server.endpoint, region: REGION, credentials: CREDENTIALS };
    sm = new SageMakerClient(common);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    sm?.destroy();
    await server?.close();
  });

  test('an empty account shows what to do next', async () => {
    await page.goto(url('/'));
    await page.waitForURL(/\/console\/registry$/);
    await page.getByText('No model package groups yet').waitFor();
    assert.match(await page.locator('.snippet pre').innerText(), /create_model_package_group/);
    await shot('registry-empty');
    await page.goto(url('/endpoints'));
    await page.getByText('No endpoints yet').waitFor();
  });

  test('approve a version with a note; who and when show in the list; back and forward work', async () => {
    const s3 = new S3Client({
      endpoint: server.endpoint,
      region: REGION,
      credentials: CREDENTIALS,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: 'models' }));
    await s3.send(
      new PutObjectCommand({
        Bucket: 'models',
        Key: 'abalone/model.tar.gz',
        Body: readFileSync('test/fixtures/xgboost/models/abalone.pkl3-cfgoffset.tar.gz'),
      }),
    );
    s3.destroy();
    await sm.send(
      new CreateModelPackageGroupCommand({
        ModelPackageGroupName: GROUP,
        ModelPackageGroupDescription: 'abalone ring counts',
      }),
    );
    for (let i = 0; i < 2; i++) {
      await sm.send(
        new CreateModelPackageCommand({
          ModelPackageGroupName: GROUP,
          ModelApprovalStatus: 'PendingManualApproval',
          InferenceSpecification: {
            Containers: [{ Image: IMAGE, ModelDataUrl: 's3://models/abalone/model.tar.gz' }],
            SupportedContentTypes: ['text/csv'],
            SupportedResponseMIMETypes: ['text/csv'],
          },
        }),
      );
    }
    await page.goto(url('/registry'));
    await page.getByRole('link', { name: GROUP }).click();
    await page.waitForURL(/\/registry\/xgboost-abalone$/);
    await page.locator('tbody tr').nth(1).waitFor();
    assert.equal(await page.locator('tbody .badge', { hasText: 'PendingManualApproval' }).count(), 2);
    await page.getByRole('link', { name: '1', exact: true }).click();
    await page.waitForURL(/\/registry\/xgboost-abalone\/1$/);
    await page.locator('dd', { hasText: 's3://models/abalone/model.tar.gz' }).waitFor();
    assert.ok((await page.locator('.columns').innerText()).includes(IMAGE));
    await page.locator('textarea').fill('RMSE 2.1 on the holdout set, better than v0');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    assert.equal(await page.locator('.approval-note').innerText(), 'RMSE 2.1 on the holdout set, better than v0');
    await shot('registry-version-approved');

    const arn = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:model-package/${GROUP}/1`;
    const described = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: arn }));
    assert.equal(described.ModelApprovalStatus, 'Approved');
    assert.equal(described.ApprovalDescription, 'RMSE 2.1 on the holdout set, better than v0');

    // Back to the group: version 1 now shows its decision and note; forward returns to the version.
    await page.goBack();
    await page.waitForURL(/\/registry\/xgboost-abalone$/);
    const row1 = page.locator('tbody tr', { has: page.getByRole('link', { name: '1', exact: true }) });
    await row1.locator('.badge', { hasText: 'Approved' }).waitFor();
    assert.match(await row1.innerText(), /RMSE 2\.1/);
    await shot('registry-versions');
    await page.goForward();
    await page.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    // A deep link opens the same page from scratch.
    await page.reload();
    await page.locator('.approval-note', { hasText: 'RMSE 2.1' }).waitFor();
  });

  test('lists read page after page with NextToken; the page is in the URL', async () => {
    for (let i = 0; i < 26; i++)
      await sm.send(
        new CreateModelPackageGroupCommand({ ModelPackageGroupName: `bulk-${String(i).padStart(2, '0')}` }),
      );
    await page.goto(url('/registry'));
    await page.locator('.pager', { hasText: '25 shown' }).waitFor();
    const firstPage = await page.locator('tbody tr td:first-child').allInnerTexts();
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.locator('.pager', { hasText: '2 shown' }).waitFor();
    assert.match(page.url(), /[?&]page=/);
    const secondPage = await page.locator('tbody tr td:first-child').allInnerTexts();
    assert.equal(new Set([...firstPage, ...secondPage]).size, 27, 'every group once');
    assert.ok(secondPage.includes(GROUP), 'the oldest group is on the last page');
    await page.goBack();
    await page.locator('.pager', { hasText: '25 shown' }).waitFor();
    await page.locator('input[type=search]').fill('bulk-1');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.pager', { hasText: '10 shown' }).waitFor();
  });

  test('API errors are shown in words', async () => {
    await page.goto(url(`/registry/${GROUP}/99`));
    const err = page.locator('.error').first();
    await err.waitFor();
    assert.match(await err.innerText(), /does not exist|not found/i);
  });

  test('watch the endpoint reach InService, then send a test request and see the prediction', async () => {
    const arn = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:model-package/${GROUP}/1`;
    await sm.send(
      new CreateModelCommand({ ModelName: 'abalone', ExecutionRoleArn: ROLE, Containers: [{ ModelPackageName: arn }] }),
    );
    await sm.send(
      new CreateEndpointConfigCommand({
        EndpointConfigName: 'abalone',
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: 'abalone',
            ServerlessConfig: { MemorySizeInMB: 1024, MaxConcurrency: 5 },
          },
        ],
      }),
    );
    await sm.send(new CreateEndpointCommand({ EndpointName: 'abalone', EndpointConfigName: 'abalone' }));
    await page.goto(url('/endpoints/abalone'));
    const first = await page.locator('h1 .badge').innerText();
    assert.ok(['Creating', 'InService'].includes(first), first);
    // No reload: the page polls DescribeEndpoint while the endpoint is Creating.
    await page.locator('h1 .badge', { hasText: 'InService' }).waitFor({ timeout: 30_000 });
    await page.locator('.deployed-image', { hasText: IMAGE }).waitFor();
    assert.match(await page.locator('table.grid').first().innerText(), /Serverless: 1024 MB, max concurrency 5/);

    await page.locator('form.test-box textarea').fill(manifest.seedRow.csv);
    await page.getByRole('button', { name: 'Send' }).click();
    const prediction = Number(await page.locator('.prediction pre').innerText());
    assert.ok(Math.abs(prediction - manifest.seedRow.prediction) < 1e-4, String(prediction));
    // The charts read the stored CloudWatch history: the minute's data points are written as it
    // ends (here at once), then a refresh shows the invocation.
    await server.app.flushMetrics();
    await page.locator('.traffic button.refresh').click();
    await untilNumber('.charts', 'data-invocations', { atLeast: 1 }, 15_000);
    assert.equal(await page.locator('figure.chart canvas').count(), 3);
    assert.equal(Number(await page.locator('.charts').getAttribute('data-points')), 60);
    await shot('endpoint');

    await page.goto(url('/endpoints'));
    await page.locator('tbody .badge', { hasText: 'InService' }).waitFor();
    await shot('endpoints');
  });

  test("the endpoint's lineage graph shows its model package; a click opens the package", async () => {
    await page.goto(url('/endpoints/abalone'));
    await page.getByRole('link', { name: 'Lineage of this endpoint' }).click();
    await page.waitForURL(/\/lineage\?arn=.*endpoint.*direction=Ascendants/);
    await page.locator('.lineage-summary[data-status="ready"]').waitFor();
    const summary = /^(\d+) entities, \d+ associations/.exec(await page.locator('.lineage-summary').innerText());
    assert.ok(summary, 'the summary counts what was read');
    const canvas = page.locator('.graph-host canvas.graph-picture');
    // The view counts the entities it drew in its last frame: all of them, fitted.
    await page.locator(`.graph-host canvas.graph-picture[data-drawn-nodes="${summary[1]}"]`).waitFor();
    assert.match(await page.locator('.graph-legend').innerText(), /Artifact[\s\S]*Action[\s\S]*Context/);
    // The picture holds the model package: picked from the entity list (named once its Describe
    // call answers), the view centres it; there the canvas shows an Artifact's colour, pointing
    // at it names it, and clicking it selects it.
    const item = page.locator('.graph-entities button', { hasText: `${GROUP}/1` });
    await item.waitFor({ state: 'attached' });
    await item.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/selected=arn/);
    type Canvas = {
      width: number;
      height: number;
      getContext(t: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } };
    };
    const centre = await canvas.evaluate((c: Canvas) => {
      const d = c.getContext('2d').getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data;
      return [d[0], d[1], d[2]];
    });
    assert.deepEqual(centre, [0x25, 0x63, 0xeb], 'the Artifact blue at the centre of the picture');
    const box = (await canvas.boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.mouse.move(cx, cy);
    await page.locator('.graph-tip', { hasText: `${GROUP}/1` }).waitFor();
    await page.locator('.entity-details h2', { hasText: `${GROUP}/1` }).waitFor();
    await shot('lineage-picked');
    await page.mouse.click(box.x + 5, box.y + box.height - 5);
    await page.waitForURL((u) => !u.search.includes('selected='));
    await page.mouse.click(cx, cy);
    await page.waitForURL(/selected=arn/);
    await page.locator('.entity-details h2', { hasText: `${GROUP}/1` }).waitFor();
    // The wheel zooms in at the pointer: fewer entities fit in the picture.
    await page.mouse.wheel(0, -1200);
    await untilNumber('.graph-host canvas.graph-picture', 'data-drawn-nodes', { below: Number(summary[1]) });
    await page.getByRole('button', { name: 'Fit the picture' }).click();
    await page.locator(`.graph-host canvas.graph-picture[data-drawn-nodes="${summary[1]}"]`).waitFor();
    await shot('lineage');
    const [png] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export PNG' }).click(),
    ]);
    assert.deepEqual([...readFileSync((await png.path())!).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG file');
    await page.getByRole('button', { name: 'Table' }).click();
    const pkgRow = page.locator('tbody tr', { hasText: `${GROUP}/1` });
    await pkgRow.waitFor();
    assert.match(await pkgRow.innerText(), /Artifact/);
    await pkgRow.getByRole('link').click();
    await page.locator('.entity-details h2', { hasText: `${GROUP}/1` }).waitFor();
    // Exports: an SVG of the picture holding the package's label.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export SVG' }).click(),
    ]);
    const svg = readFileSync((await download.path())!, 'utf8');
    assert.match(svg, /^<svg/);
    assert.ok(svg.includes(`${GROUP}/1`), 'the SVG names the model package');
    await page.getByRole('link', { name: `Open ${GROUP}/1` }).click();
    await page.waitForURL(/\/registry\/xgboost-abalone\/1$/);
    await page.locator('h1 .badge', { hasText: 'Approved' }).waitFor();
    await page.goBack();
    await page.locator('.entity-details').waitFor();
  });

  test('double-clicking an entity in the picture adds its neighbours', async () => {
    const endpoint = `arn:aws:sagemaker:${REGION}:${ACCOUNT}:endpoint/abalone`;
    await page.goto(url(`/lineage?arn=${encodeURIComponent(endpoint)}&direction=Ascendants&depth=1`));
    await page.locator('.lineage-summary[data-status="ready"]').waitFor();
    assert.match(await page.locator('.lineage-summary').innerText(), /^2 entities, 1 associations/);
    const deploy = page.locator('.graph-entities button', { hasText: 'ModelDeployment' });
    await deploy.waitFor({ state: 'attached' });
    assert.equal(await page.locator('.graph-entities button', { hasText: `${GROUP}/1` }).count(), 0);
    await deploy.focus();
    await page.keyboard.press('Enter');
    const box = (await page.locator('.graph-host canvas.graph-picture').boundingBox())!;
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator('.graph-entities button', { hasText: `${GROUP}/1` }).waitFor({ state: 'attached' });
    assert.match(await page.locator('.lineage-summary').innerText(), /^[3-9] entities/);
  });

  test('experiments: trial components side by side, sortable by a parameter', async () => {
    await sm.send(new CreateExperimentCommand({ ExperimentName: 'abalone-tuning' }));
    await sm.send(new CreateTrialCommand({ TrialName: 'depths', ExperimentName: 'abalone-tuning' }));
    for (const [name, depth, eta] of [
      ['depth-4', 4, 0.3],
      ['depth-8', 8, 0.1],
      ['depth-6', 6, 0.2],
    ] as const) {
      await sm.send(
        new CreateTrialComponentCommand({
          TrialComponentName: name,
          Parameters: {
            max_depth: { NumberValue: depth },
            eta: { NumberValue: eta },
            objective: { StringValue: 'reg:squarederror' },
          },
        }),
      );
      await sm.send(new AssociateTrialComponentCommand({ TrialComponentName: name, TrialName: 'depths' }));
    }
    await page.goto(url('/experiments'));
    await page.getByRole('link', { name: 'abalone-tuning' }).click();
    await page.locator('tbody tr').nth(2).waitFor();
    const headers = await page.locator('thead th').allInnerTexts();
    for (const h of ['eta', 'max_depth', 'objective'])
      assert.ok(
        headers.some((x) => x.startsWith(h)),
        headers.join('|'),
      );
    await page.locator('thead th', { hasText: 'max_depth' }).click();
    const names = async () => (await page.locator('tbody tr td.run').allInnerTexts()).map((s) => s.trim());
    assert.deepEqual(await names(), ['depth-4', 'depth-6', 'depth-8']);
    await page.locator('thead th', { hasText: 'max_depth' }).click();
    assert.deepEqual(await names(), ['depth-8', 'depth-6', 'depth-4']);
    await shot('experiment');
  });

  test('graph: a Gremlin query on the graph port, as a graph and as a table', async () => {
    const g = (q: string) =>
      fetch(`${server.graphEndpoint}/gremlin`, { method: 'POST', body: JSON.stringify({ gremlin: q }) }).then((r) =>
        r.json(),
      );
    await g("g.addV('Artifact').property(T.id, 'a1').property('name', 'train.csv')");
    await g("g.addV('Action').property(T.id, 'b1').property('name', 'training')");
    await g("g.V('a1').addE('ContributedTo').to(__.V('b1'))");
    await page.goto(url('/graph'));
    await page.locator('textarea[name=gremlin]').fill('g.E()');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL(/q=g\.E%28%29/);
    await page.getByText('2 vertices, 1 edges').waitFor();
    await page.locator('.graph-host canvas.graph-picture[data-drawn-nodes="2"][data-drawn-edges="1"]').waitFor();
    assert.match(await page.locator('.graph-legend').innerText(), /Artifact[\s\S]*Action/);
    await shot('graph');
    await page.getByRole('button', { name: 'Table' }).click();
    assert.match(await page.locator('.gremlin-results').innerText(), /ContributedTo/);
    await page.locator('textarea[name=gremlin]').fill('g.V().nope(');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('.error', { hasText: 'MalformedQueryException' }).waitFor();
  });

  test('settings keep credentials for the tab, and requests stay signed', async () => {
    await page.goto(url('/settings'));
    await page.locator('input[name=accessKeyId]').fill('AKIDCONSOLE');
    await page.locator('input[name=secretAccessKey]').fill('secret');
    const signed = page.waitForRequest(
      (r) => r.method() === 'POST' && (r.headers()['authorization'] ?? '').includes('Credential=AKIDCONSOLE/'),
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('principal-arn').waitFor();
    await shot('settings');
    await page.goto(url('/registry'));
    await signed;
    assert.deepEqual(errors, []);
  });
});
