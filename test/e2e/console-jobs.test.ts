// The console's Jobs page in a real browser (Debian's Chromium, headless) against a real Slipway:
// an account without jobs says how to start one; a real training job (the built-in XGBoost
// algorithm on the abalone data) shows Completed in the list, its detail page draws the per-round
// metric curves read off its log and shows the log's lines, filters and back/forward work, and the
// lineage link opens the job's trial component. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  CreateModelCommand,
  CreateTrainingJobCommand,
  CreateTransformJobCommand,
  DescribeTrainingJobCommand,
  DescribeTransformJobCommand,
  type SageMakerClient,
  waitUntilTrainingJobCompletedOrStopped,
  waitUntilTransformJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { abaloneCsv } from '../support/abalone.js';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { sdkClients } from '../support/clients.js';
import { ACCOUNT, CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

const skip = requireChromium();
const XGB = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
const JOB = 'abalone-console';
const ROUNDS = 20;

describe('console Jobs page in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let sm: SageMakerClient;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

  before(async () => {
    server = await startServer(['--default-region', REGION]);
    const clients = sdkClients(server.endpoint, CREDENTIALS);
    sm = clients.sm;
    const s3 = clients.s3;
    await s3.send(new CreateBucketCommand({ Bucket: 'ml-data' }));
    const csv = abaloneCsv().trim().split('\n');
    const put = (key: string, rows: string[]) =>
      s3.send(new PutObjectCommand({ Bucket: 'ml-data', Key: key, Body: `${rows.join('\n')}\n` }));
    await put('abalone/train/abalone.csv', csv.slice(0, 3300));
    await put('abalone/validation/abalone.csv', csv.slice(3300));
    // The batch transform's input: features only (the label is the first column).
    await put(
      'abalone/batch/features.csv',
      csv.slice(3300, 3400).map((r) => r.split(',').slice(1).join(',')),
    );
    s3.destroy();
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

  test('without jobs, each kind says how to start one', async () => {
    await page.goto(url('/jobs'));
    await page.waitForURL(/\/console\/jobs\/training$/);
    await page.getByText('No training jobs yet').waitFor();
    assert.match(await page.locator('.snippet pre').innerText(), /create_training_job/);
    await shot('jobs-empty');
    await page.getByRole('link', { name: 'Processing jobs' }).click();
    await page.waitForURL(/\/jobs\/processing$/);
    await page.getByText('No processing jobs yet').waitFor();
    assert.match(await page.locator('.snippet pre').innerText(), /create_processing_job/);
  });

  test('a real training job: Completed in the list, its curves, its log, its lineage', async () => {
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: JOB,
        RoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
        AlgorithmSpecification: { TrainingImage: XGB, TrainingInputMode: 'File' },
        HyperParameters: { objective: 'reg:squarederror', num_round: String(ROUNDS), max_depth: '5', eta: '0.2' },
        InputDataConfig: ['train', 'validation'].map((c) => ({
          ChannelName: c,
          ContentType: 'text/csv',
          DataSource: {
            S3DataSource: {
              S3DataType: 'S3Prefix',
              S3Uri: `s3://ml-data/abalone/${c}/`,
              S3DataDistributionType: 'FullyReplicated',
            },
          },
        })),
        OutputDataConfig: { S3OutputPath: 's3://ml-data/abalone/output' },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 600 },
      }),
    );
    // The list shows the job while it runs and keeps polling until it is done.
    await page.goto(url('/jobs/training'));
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: JOB, exact: true }) });
    await row.waitFor();
    await waitUntilTrainingJobCompletedOrStopped(
      { client: sm, maxWaitTime: 180, minDelay: 1, maxDelay: 1 },
      { TrainingJobName: JOB },
    ).catch(() => undefined);
    const d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: JOB }));
    assert.equal(d.TrainingJobStatus, 'Completed', d.FailureReason);
    await row.locator('.badge', { hasText: 'Completed' }).waitFor({ timeout: 15_000 });
    await shot('jobs-training-list');

    // Filters are in the URL: a status with no job, then back to the full list.
    await page.locator('select[name="status"]').selectOption('Failed');
    await page.waitForURL(/status=Failed/);
    await page.getByText('No training job matches.').waitFor();
    await page.goBack();
    await page.waitForURL(/\/jobs\/training$/);
    await row.waitFor();

    await row.getByRole('link', { name: JOB, exact: true }).click();
    await page.waitForURL(new RegExp(`/jobs/training/${JOB}$`));
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    assert.deepEqual(await page.locator('table.transitions tbody td:first-child').allInnerTexts(), [
      'Starting',
      'Downloading',
      'Training',
      'Uploading',
      'Completed',
    ]);
    assert.match(await page.locator('table.hyperparameters').innerText(), /num_round\s+20/);
    const finals = await page
      .locator('table.grid', { has: page.getByText('train:rmse') })
      .first()
      .innerText();
    assert.match(finals, /validation:rmse/);

    // The curves: one point per round for train and validation, drawn by uPlot.
    await page.locator('.curves figure.chart canvas').waitFor();
    assert.equal(await page.locator('.curves figcaption').innerText(), 'Metrics per round');
    const legend = await page.locator('.curves .u-legend').innerText();
    assert.match(legend, /train:rmse/);
    assert.match(legend, /validation:rmse/);

    // The log: its lines, paged forward; the evaluation lines are there.
    await page.locator('pre.log div').first().waitFor();
    const lines = Number(await page.locator('pre.log').getAttribute('data-lines'));
    assert.ok(lines > ROUNDS, `${lines} log lines`);
    assert.match(await page.locator('pre.log').innerText(), /\[19\]\s+train-rmse:[0-9.]+\s+validation-rmse:[0-9.]+/);
    await page.getByRole('button', { name: /End of the log|Next 200 lines/ }).waitFor();
    await shot('jobs-training-detail');

    // A deep link opens the same job from scratch.
    await page.reload();
    await page.locator('.curves figure.chart canvas').waitFor();

    // Its lineage: the job's trial component, with the data sets that fed it.
    await page.locator('a.lineage-link').click();
    await page.waitForURL(/\/lineage\?arn=/);
    await page.locator('.lineage-summary[data-status="ready"]').waitFor();
    const summary = await page.locator('.lineage-summary').innerText();
    assert.match(summary, /^\d+ entities/);
    assert.ok(Number(summary.split(' ')[0]) >= 3, summary);
    await page.getByRole('button', { name: 'Table' }).click();
    await page.locator('.graph-table', { hasText: `${JOB}-aws-training-job` }).waitFor();
    // The view switch replaces its history entry: one step back is the job again.
    await page.goBack();
    await page.waitForURL(new RegExp(`/jobs/training/${JOB}$`));
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
  });

  test('a batch transform with the trained model: Completed, its input and output, its log', async () => {
    const trained = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: JOB }));
    await sm.send(
      new CreateModelCommand({
        ModelName: 'abalone',
        ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
        PrimaryContainer: { Image: XGB, ModelDataUrl: trained.ModelArtifacts!.S3ModelArtifacts! },
      }),
    );
    await sm.send(
      new CreateTransformJobCommand({
        TransformJobName: 'abalone-batch',
        ModelName: 'abalone',
        TransformInput: {
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: 's3://ml-data/abalone/batch/' } },
          ContentType: 'text/csv',
          SplitType: 'Line',
        },
        TransformOutput: { S3OutputPath: 's3://ml-data/abalone/predictions', AssembleWith: 'Line' },
        TransformResources: { InstanceType: 'ml.m5.large', InstanceCount: 1 },
      }),
    );
    await waitUntilTransformJobCompletedOrStopped(
      { client: sm, maxWaitTime: 120, minDelay: 1, maxDelay: 1 },
      { TransformJobName: 'abalone-batch' },
    ).catch(() => undefined);
    const d = await sm.send(new DescribeTransformJobCommand({ TransformJobName: 'abalone-batch' }));
    assert.equal(d.TransformJobStatus, 'Completed', d.FailureReason);
    await page.goto(url('/jobs/transform'));
    await page.getByRole('link', { name: 'abalone-batch', exact: true }).click();
    await page.waitForURL(/\/jobs\/transform\/abalone-batch$/);
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    await page.getByRole('heading', { name: 'Input' }).waitFor();
    assert.match(await page.locator('.job').innerText(), /s3:\/\/ml-data\/abalone\/predictions/);
    await page.locator('pre.log div').first().waitFor();
    assert.ok(Number(await page.locator('pre.log').getAttribute('data-lines')) > 0);
    assert.equal(await page.locator('.curves').count(), 0, 'no metric curves for a transform job');
    await shot('jobs-transform-detail');
  });

  test('a failed job: found by its status, its failure reason in words', async () => {
    await sm.send(
      new CreateTrainingJobCommand({
        TrainingJobName: 'abalone-missing-data',
        RoleArn: `arn:aws:iam::${ACCOUNT}:role/sm`,
        AlgorithmSpecification: { TrainingImage: XGB, TrainingInputMode: 'File' },
        HyperParameters: { objective: 'reg:squarederror', num_round: '5' },
        InputDataConfig: [
          {
            ChannelName: 'train',
            ContentType: 'text/csv',
            DataSource: {
              S3DataSource: {
                S3DataType: 'S3Prefix',
                S3Uri: 's3://ml-data/nothing-here/',
                S3DataDistributionType: 'FullyReplicated',
              },
            },
          },
        ],
        OutputDataConfig: { S3OutputPath: 's3://ml-data/abalone/output' },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 600 },
      }),
    );
    await waitUntilTrainingJobCompletedOrStopped(
      { client: sm, maxWaitTime: 60, minDelay: 1, maxDelay: 1 },
      { TrainingJobName: 'abalone-missing-data' },
    ).catch(() => undefined);
    const d = await sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'abalone-missing-data' }));
    assert.equal(d.TrainingJobStatus, 'Failed');
    await page.goto(url('/jobs/training?status=Failed'));
    const link = page.getByRole('link', { name: 'abalone-missing-data', exact: true });
    await link.waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1, 'the completed job is filtered out');
    await link.click();
    await page.locator('h1 .badge', { hasText: 'Failed' }).waitFor();
    assert.equal(await page.locator('.failure-reason').innerText(), d.FailureReason);
    await shot('jobs-training-failed');
  });

  test('an unknown job is an error in words', async () => {
    await page.goto(url('/jobs/training/no-such-job'));
    const box = page.locator('.error[role="alert"]');
    await box.waitFor();
    assert.match(await box.innerText(), /Could not read training job no-such-job/);
    assert.match(await box.innerText(), /Requested resource not found/);
    await shot('jobs-unknown');
    assert.deepEqual(errors, []);
  });
});
