// The console a new user meets, in headless Chromium: on a server with a credentials file it opens on
// a sign-in page (not an error), refuses a wrong secret at once, shows who is signed in and signs out;
// an unknown page says so. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CreateTrainingJobCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { runDemo } from '../../src/cli/demo.js';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { ALICE, ALICE_ARN, writeCredentialsFile } from '../support/credentials.js';
import { REGION, startServer, type TestServer, tempDir } from '../support/server.js';

const skip = requireChromium();

describe('console sign-in on a server with a credentials file', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;

  before(async () => {
    server = await startServer(['--default-region', REGION, '--credentials-file', writeCredentialsFile(tempDir())]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('opens on a sign-in page instead of an error', async () => {
    await page.goto(url('/registry'));
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
    assert.equal(await page.locator('.error').count(), 0, 'no red error box before signing in');
    await page.screenshot({ path: screenshotPath('sign-in'), fullPage: true });
  });

  test('a wrong secret is refused before it is kept', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', 'not-the-secret');
    await page.click('button[type=submit]');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /does not accept these credentials/);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
  });

  test('the right keys sign in, the header names the principal, and sign-out returns to sign-in', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', ALICE.secretAccessKey);
    await page.click('button[type=submit]');
    await page.getByText('No model package groups yet').waitFor();
    const who = page.locator('header .settings-link');
    assert.equal((await who.innerText()).trim(), 'alice');
    assert.equal(await who.getAttribute('title'), ALICE_ARN);
    await who.click();
    assert.equal((await page.getByTestId('principal-arn').innerText()).trim(), ALICE_ARN);
    await page.screenshot({ path: screenshotPath('settings-signed-in'), fullPage: true });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Slipway' }).waitFor();
  });

  test('an unknown page says so instead of showing another', async () => {
    await page.fill('input[name=accessKeyId]', ALICE.accessKeyId);
    await page.fill('input[name=secretAccessKey]', ALICE.secretAccessKey);
    await page.click('button[type=submit]');
    await page.locator('header .settings-link').getByText('alice').waitFor();
    await page.goto(url('/no-such-page/x'));
    await page.getByRole('heading', { name: 'No such page' }).waitFor();
    assert.match(await page.locator('main').innerText(), /no page at \/console\/no-such-page\/x/);
    assert.deepEqual(errors, []);
  });
});

describe('console after slipway demo', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;

  before(async () => {
    // A training image that runs until it is stopped, for the Stop button.
    const containers = join(tempDir(), 'containers.json');
    writeFileSync(
      containers,
      JSON.stringify({
        images: { '*/slow-train:*': { command: ['sh', '-c', 'echo started; exec sleep 120'], appendServe: false } },
      }),
    );
    server = await startServer(['--default-region', REGION, '--containers-file', containers]);
    await runDemo({
      endpoint: server.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'demo', secretAccessKey: 'demo' },
      bucket: 'slipway-demo',
      print: () => {},
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the training-jobs list shows final metrics and failure reasons; a job is cloned, and its log searched', async () => {
    const sm = new SageMakerClient({
      endpoint: server.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: 'no-such-bucket',
        RoleArn: 'arn:aws:iam::111122223333:role/sm',
        AlgorithmSpecification: {
          TrainingImage: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
          TrainingInputMode: 'File',
        },
        HyperParameters: { num_round: '5' },
        InputDataConfig: [
          {
            ChannelName: 'train',
            DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://nope-bucket/x/' } },
          },
        ],
        OutputDataConfig: { S3OutputPath: 's3://slipway-demo/out' },
        ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
        StoppingCondition: { MaxRuntimeInSeconds: 60 },
      }),
    );
    await page.goto(url('/jobs/training'));
    const failure = page.locator('tbody tr', { hasText: 'no-such-bucket' }).locator('.bad-text');
    await failure.waitFor();
    assert.match(await failure.innerText(), /^ClientError: The bucket of s3:\/\/nope-bucket\/x\/ does not exist/);
    const headers = await page.locator('thead th').allInnerTexts();
    assert.ok(
      headers.some((h) => h.startsWith('validation:rmse')),
      headers.join(' | '),
    );
    // Clone the deep run with another depth.
    await page.goto(url('/jobs/training/slipway-demo-r1-deep'));
    await page.getByRole('link', { name: 'Clone' }).click();
    const editor = page.locator('textarea[name=request]');
    await editor.waitFor();
    const req = JSON.parse(await editor.inputValue());
    assert.match(req.TrainingJobName, /^slipway-demo-r1-deep-clone-[0-9a-z]+$/);
    assert.equal(req.HyperParameters.max_depth, '7');
    assert.equal(req.TrainingJobArn, undefined, 'only what CreateTrainingJob takes');
    assert.deepEqual(req.Tags, [{ Key: 'slipway:demo', Value: 'slipway-demo-r1' }]);
    req.TrainingJobName = 'deep-clone';
    req.HyperParameters.max_depth = '3';
    await editor.fill(JSON.stringify(req));
    await page.getByRole('button', { name: 'Create training job' }).click();
    await page.waitForURL(/\/jobs\/training\/deep-clone$/);
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    // Search the log.
    await page.locator('input[name=find]').fill('validation-rmse');
    assert.match(await page.getByTestId('log-matches').innerText(), /^\d+ of \d+ lines match$/);
    assert.ok((await page.locator('pre.log mark').count()) > 10);
    await page.screenshot({ path: screenshotPath('job-log-search'), fullPage: true });
    sm.destroy();
  });

  test('a running job is stopped from its page', async () => {
    const sm = new SageMakerClient({
      endpoint: server.endpoint,
      region: REGION,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: 'runs-long',
        RoleArn: 'arn:aws:iam::111122223333:role/sm',
        AlgorithmSpecification: {
          TrainingImage: '111122223333.dkr.ecr.us-west-2.amazonaws.com/slow-train:1',
          TrainingInputMode: 'File',
        },
        OutputDataConfig: { S3OutputPath: 's3://slipway-demo/out' },
        ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
        StoppingCondition: { MaxRuntimeInSeconds: 300 },
      }),
    );
    sm.destroy();
    await page.goto(url('/jobs/training/runs-long'));
    await page.locator('pre.log', { hasText: 'started' }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('h1 .badge', { hasText: 'Stopped' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 0, 'no Stop button on a stopped job');
  });

  test('experiment runs compare: metrics first and labelled, columns to hide, a metric across runs, two runs side by side with curves', async () => {
    await page.goto(url('/experiments/slipway-demo'));
    await page.locator('tbody tr td.run').nth(2).waitFor();
    const headers = (await page.locator('.runs-table thead th').allInnerTexts()).map((h) => h.trim());
    const firstMetric = headers.findIndex((h) => /^validation:rmse/.test(h));
    const firstParam = headers.findIndex((h) => /^max_depth/.test(h));
    assert.ok(firstMetric > 0 && firstParam > firstMetric, `metrics before parameters: ${headers.join(' | ')}`);
    assert.match(headers[firstMetric]!, /validation:rmse\s+last/i);
    // The statistic shown is a choice, and the header says which.
    await page.selectOption('select[name=stat]', 'Min');
    await page.locator('.runs-table thead th', { hasText: /validation:rmse\s+min/i }).waitFor();
    // Hide a parameter column.
    await page.locator('.column-chooser summary').click();
    await page.locator('.chooser-panel label', { hasText: 'eta' }).locator('input').uncheck();
    await page.waitForFunction(() => {
      const doc = (
        globalThis as unknown as {
          document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };
        }
      ).document;
      return !Array.from(doc.querySelectorAll('.runs-table thead th')).some(
        (th) => (th.textContent ?? '').trim() === 'eta',
      );
    });
    // One metric across the runs, best (lowest rmse) first.
    const values = (await page.locator('.bars[data-metric="validation:rmse"] .bar-value').allInnerTexts()).map(Number);
    assert.equal(values.length, await page.locator('.runs-table tbody tr').count(), 'a bar for every run');
    assert.deepEqual(
      [...values].sort((a, b) => a - b),
      values,
    );
    // Two runs side by side, their curves overlaid.
    const boxes = page.locator('.runs-table tbody input[type=checkbox]');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.locator('.compare-table').waitFor();
    assert.equal(await page.locator('.compare-table thead th').count(), 3);
    await page.locator('.compare .chart').first().waitFor();
    assert.ok((await page.locator('.compare .chart figcaption').allInnerTexts()).includes('validation:rmse'));
    await page.screenshot({ path: screenshotPath('experiment-compare'), fullPage: true });
    assert.deepEqual(errors, []);
  });
});
