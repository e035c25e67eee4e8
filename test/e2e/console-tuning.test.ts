// The console's Tuning page in a real browser (Debian's Chromium, headless) against a real Slipway:
// without tuning jobs it says how to start one; a tuning job of the synthetic-function image shows
// in the list with its progress; its page ranks the training jobs by objective, plots the objective
// over time (with the best so far) and against each tuned hyperparameter, links the best job, and
// Stop stops a running one. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateHyperParameterTuningJobCommand,
  DescribeHyperParameterTuningJobCommand,
  type HyperParameterTrainingJobDefinition,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { sdkClients } from '../support/clients.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

const skip = requireChromium();

const definition = (statics: Record<string, string>): HyperParameterTrainingJobDefinition => ({
  StaticHyperParameters: statics,
  AlgorithmSpecification: {
    TrainingImage: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-objective:1`,
    TrainingInputMode: 'File',
    MetricDefinitions: [{ Name: 'loss', Regex: 'objective=([-0-9.eE+]+)' }],
  },
  RoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
  OutputDataConfig: { S3OutputPath: 's3://console-tuning/out' },
  ResourceConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 1 },
  StoppingCondition: { MaxRuntimeInSeconds: 600 },
});

describe('console Tuning page in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let sm: SageMakerClient;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
  const create = (name: string, jobs: number, statics: Record<string, string>) =>
    sm.send(
      new CreateHyperParameterTuningJobCommand({
        HyperParameterTuningJobName: name,
        HyperParameterTuningJobConfig: {
          Strategy: 'Random',
          RandomSeed: 2,
          ResourceLimits: { MaxNumberOfTrainingJobs: jobs, MaxParallelTrainingJobs: 2 },
          HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'loss' },
          ParameterRanges: {
            ContinuousParameterRanges: [
              { Name: 'x1', MinValue: '0.001', MaxValue: '1', ScalingType: 'Logarithmic' },
              { Name: 'x2', MinValue: '0', MaxValue: '1' },
            ],
            CategoricalParameterRanges: [{ Name: 'x3', Values: ['0.2', '0.8'] }],
          },
        },
        TrainingJobDefinition: definition(statics),
      }),
    );

  before(async () => {
    server = await startServer([
      '--default-region',
      REGION,
      '--containers-file',
      'test/fixtures/containers/containers.json',
    ]);
    const clients = sdkClients(server.endpoint, CREDENTIALS);
    sm = clients.sm;
    await clients.s3.send(new (await import('@aws-sdk/client-s3')).CreateBucketCommand({ Bucket: 'console-tuning' }));
    clients.s3.destroy();
    clients.rt.destroy();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    sm?.destroy();
    await server?.close();
  });

  test('without tuning jobs, the page says how to start one; the navigation reaches it', async () => {
    await page.goto(url('/registry'));
    await page.getByRole('link', { name: 'Tuning', exact: true }).click();
    await page.waitForURL(/\/console\/tuning$/);
    await page.getByText('No hyperparameter tuning jobs yet').waitFor();
    assert.match(await page.locator('.snippet pre').innerText(), /create_hyper_parameter_tuning_job/);
  });

  test('a tuning job: ranked children, the objective over time and against each hyperparameter', async () => {
    await create('console-random', 8, { function: 'sphere', epochs: '1' });
    await page.goto(url('/tuning'));
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: 'console-random', exact: true }) });
    await row.waitFor();
    for (let i = 0; i < 400; i++) {
      const d = await sm.send(
        new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'console-random' }),
      );
      if (d.HyperParameterTuningJobStatus !== 'InProgress') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await row.locator('.badge', { hasText: 'Completed' }).waitFor({ timeout: 15_000 });
    assert.match(await row.innerText(), /Random/);
    assert.match(await row.innerText(), /8 completed, 0 running · 8 of 8/);
    await shot('tuning-list');

    await row.getByRole('link', { name: 'console-random', exact: true }).click();
    await page.waitForURL(/\/tuning\/console-random$/);
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    const d = await sm.send(
      new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: 'console-random' }),
    );
    const best = d.BestTrainingJob!;
    // The children, best first.
    const names = await page.locator('section.tuning-job table.grid tbody td:nth-child(2)').allInnerTexts();
    assert.equal(names.length, 8);
    assert.equal(names[0], best.TrainingJobName);
    const values = (await page.locator('section.tuning-job table.grid tbody td.objective').allInnerTexts()).map(Number);
    assert.deepEqual(
      values,
      [...values].sort((a, b) => a - b),
    );
    assert.match(await page.locator('.best-job').innerText(), new RegExp(best.TrainingJobName!));
    // Four plots: over time, then x1 (log axis), x2, x3 (categories); a point per job in each.
    const plots = page.locator('.plots figure.scatter');
    assert.equal(await plots.count(), 4);
    assert.match(await plots.nth(0).locator('figcaption').innerText(), /loss as the training jobs ended/);
    for (let i = 0; i < 4; i++) assert.equal(await plots.nth(i).locator('circle').count(), 8);
    assert.equal(await plots.nth(0).locator('path.best-line').count(), 1);
    assert.equal(await plots.nth(0).locator('circle.best').count(), 1);
    const x3Ticks = await plots.nth(3).locator('text.tick').allTextContents();
    assert.ok(x3Ticks.includes('0.2') && x3Ticks.includes('0.8'), String(x3Ticks));
    assert.ok(
      (await plots.nth(1).locator('text.tick').allTextContents()).includes('0.01'),
      'x1 on a log axis: a tick at 0.01',
    );
    await shot('tuning-detail');

    // The best job's link opens its training job page.
    await page.locator('.best-job a').click();
    await page.waitForURL(new RegExp(`/jobs/training/${best.TrainingJobName}$`));
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    // …and the training job links back to its tuning job.
    await page.locator('a.tuning-link').click();
    await page.waitForURL(/\/tuning\/console-random$/);
    await page.locator('.plots figure.scatter').first().waitFor();
  });

  test('Stop on a running tuning job stops it', async () => {
    await create('console-stop', 20, { function: 'sphere', epochs: '100', epoch_ms: '100' });
    await page.goto(url('/tuning/console-stop'));
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('h1 .badge', { hasText: /Stopping|Stopped/ }).waitFor();
    await page.locator('h1 .badge', { hasText: 'Stopped' }).waitFor({ timeout: 20_000 });
    assert.deepEqual(errors, []);
  });
});
