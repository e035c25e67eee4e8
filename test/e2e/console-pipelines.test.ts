// The console's Pipelines page in headless Chromium against a real Slipway: the list, a pipeline
// with its executions, and an execution's DAG that follows the run without a reload (a step
// waiting on its callback turns Succeeded when the callback arrives), with the condition's outcome
// on its branches and a link from a step to its job. Screenshots go to test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import {
  CreatePipelineCommand,
  type SageMakerClient,
  SendPipelineExecutionStepSuccessCommand,
  StartPipelineExecutionCommand,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, requireChromium, screenshotPath } from '../support/browser.js';
import { sdkClients } from '../support/clients.js';
import { definition, PIPELINE_ROLE, stepProcessing, waitForExecution, waitForSteps } from '../support/pipelines.js';
import { CREDENTIALS, REGION, startServer, type TestServer } from '../support/server.js';

const skip = requireChromium();
const BUCKET = 'console-pipelines';

const DEFINITION = definition(
  [
    stepProcessing('Prepare', BUCKET, { SLEEP_MS: '300' }),
    {
      Name: 'Gate',
      Type: 'Condition',
      DependsOn: ['Prepare'],
      Arguments: {
        Conditions: [{ Type: 'Equals', LeftValue: { Get: 'Parameters.Go' }, RightValue: true }],
        IfSteps: [{ Name: 'Approve', Type: 'Callback', Arguments: {}, OutputParameters: [] }],
        ElseSteps: [{ Name: 'Refuse', Type: 'Fail', Arguments: { ErrorMessage: 'not today' } }],
      },
    },
  ],
  { Parameters: [{ Name: 'Go', Type: 'Boolean', DefaultValue: true }] },
);

describe('console Pipelines page in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let sm: SageMakerClient;
  const errors: string[] = [];
  const url = (path: string) => `${server.endpoint}/console${path}`;
  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

  before(async () => {
    server = await startServer([
      '--default-region',
      REGION,
      '--containers-file',
      'test/fixtures/pipelines/containers.json',
    ]);
    const clients = sdkClients(server.endpoint, CREDENTIALS);
    sm = clients.sm;
    await clients.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
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

  test('without pipelines, the page says how to create one', async () => {
    await page.goto(url('/pipelines'));
    await page.getByText('No pipelines yet').waitFor();
    assert.match(await page.locator('.snippet pre').innerText(), /create_pipeline/);
    assert.ok(await page.locator('.top nav').getByRole('link', { name: 'Pipelines' }).isVisible());
  });

  test("an execution's DAG follows the run: statuses, the condition's outcome, links to the jobs", async () => {
    await sm.send(
      new CreatePipelineCommand({
        PipelineName: 'ConsolePipeline',
        PipelineDefinition: DEFINITION,
        RoleArn: PIPELINE_ROLE,
        PipelineDescription: 'gate on a callback',
      }),
    );
    const { PipelineExecutionArn: arn } = await sm.send(
      new StartPipelineExecutionCommand({ PipelineName: 'ConsolePipeline', PipelineExecutionDisplayName: 'first-run' }),
    );
    const waiting = await waitForSteps(sm, arn!, (s) => s.Approve?.StepStatus === 'Executing');

    await page.goto(url('/pipelines'));
    await page.getByRole('link', { name: 'ConsolePipeline' }).click();
    await page.waitForURL(/\/console\/pipelines\/ConsolePipeline$/);
    // The definition drawn before any run: four steps, the branches labelled (count() does not
    // wait for the page to draw them: it answered 0 once in CI).
    await page.locator('.dag-node').first().waitFor();
    assert.equal(await page.locator('.dag-node').count(), 4);
    await page.getByRole('link', { name: 'first-run' }).click();
    await page.waitForURL(new RegExp(`/pipelines/ConsolePipeline/executions/${arn!.split('/').pop()}$`));

    const node = (name: string) => page.locator(`.dag-node[data-step="${name}"]`);
    await node('Approve').and(page.locator('[data-status="Executing"]')).waitFor();
    assert.equal(await node('Prepare').getAttribute('data-status'), 'Succeeded');
    assert.equal(await node('Gate').getAttribute('data-status'), 'Succeeded');
    assert.equal(await node('Refuse').getAttribute('data-status'), 'NotStarted');
    assert.equal(await page.locator('.edge.taken[data-from="Gate"][data-to="Approve"]').count(), 1);
    assert.equal(await page.locator('.edge.not-taken[data-from="Gate"][data-to="Refuse"]').count(), 1);
    assert.match((await node('Gate').textContent()) ?? '', /true/);
    await shot('pipeline-execution-running');

    // The callback arrives: the page, still open, shows the step and the execution Succeeded.
    await sm.send(
      new SendPipelineExecutionStepSuccessCommand({
        CallbackToken: waiting.Approve!.Metadata!.Callback!.CallbackToken!,
      }),
    );
    await waitForExecution(sm, arn!);
    await node('Approve').and(page.locator('[data-status="Succeeded"]')).waitFor({ timeout: 10_000 });
    await page.locator('h1 .badge', { hasText: 'Succeeded' }).waitFor({ timeout: 10_000 });

    // A step's facts and the link to its job.
    await node('Gate').click();
    assert.match(await page.locator('.step-facts .outcome').innerText(), /true: the IfSteps run/);
    await node('Prepare').click();
    const jobLink = page.locator('.step-facts a', { hasText: 'processing job' });
    assert.match(await jobLink.innerText(), /pipelines-.*-prepare-/);
    await shot('pipeline-execution-done');
    await jobLink.click();
    await page.waitForURL(/\/console\/jobs\/processing\/pipelines-/);
    await page.locator('h1 .badge', { hasText: 'Completed' }).waitFor();
    await page.goBack();
    await node('Approve').waitFor();
    assert.deepEqual(errors, []);
  });
});
