// Pipeline definitions for the end-to-end tests, written as the SDK's sagemaker.workflow writes them,
// and a way to wait for an execution through the public API.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DescribePipelineExecutionCommand,
  ListPipelineExecutionStepsCommand,
  type PipelineExecutionStep,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { ACCOUNT, REGION } from './server.js';

export const PIPELINE_ROLE = `arn:aws:iam::${ACCOUNT}:role/SageMakerPipelines`;
/** The test processing image of test/fixtures/pipelines/containers.json (step.mjs). */
export const STEP_IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/slipway-test-pipeline-step:1`;

/** A Processing step running step.mjs, its result under s3://<bucket>/<name>/<execution id>/. */
export function stepProcessing(
  name: string,
  bucket: string,
  env: Record<string, unknown> = {},
  more: Record<string, unknown> = {},
) {
  return {
    Name: name,
    Type: 'Processing',
    Arguments: {
      ProcessingResources: { ClusterConfig: { InstanceType: 'ml.m5.large', InstanceCount: 1, VolumeSizeInGB: 5 } },
      AppSpecification: { ImageUri: STEP_IMAGE },
      RoleArn: PIPELINE_ROLE,
      Environment: env,
      ProcessingOutputConfig: {
        Outputs: [
          {
            OutputName: 'result',
            S3Output: {
              S3Uri: {
                'Std:Join': { On: '/', Values: [`s3://${bucket}`, name, { Get: 'Execution.PipelineExecutionId' }] },
              },
              LocalPath: '/opt/ml/processing/output/result',
              S3UploadMode: 'EndOfJob',
            },
          },
        ],
      },
    },
    ...more,
  };
}

export const definition = (steps: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ Version: '2020-12-01', Metadata: {}, Parameters: [], Steps: steps, ...extra });

/** Waits until the execution is no longer Executing/Stopping; returns its description and steps by name. */
export async function waitForExecution(sm: SageMakerClient, arn: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = await sm.send(new DescribePipelineExecutionCommand({ PipelineExecutionArn: arn }));
    if (d.PipelineExecutionStatus !== 'Executing' && d.PipelineExecutionStatus !== 'Stopping') {
      return { execution: d, steps: await stepsOf(sm, arn) };
    }
    if (Date.now() > until) throw new Error(`execution ${arn} still ${d.PipelineExecutionStatus}`);
    await sleep(100);
  }
}

export async function stepsOf(sm: SageMakerClient, arn: string): Promise<Record<string, PipelineExecutionStep>> {
  const out = await sm.send(new ListPipelineExecutionStepsCommand({ PipelineExecutionArn: arn }));
  return Object.fromEntries((out.PipelineExecutionSteps ?? []).map((s) => [s.StepName!, s]));
}

/** Waits until `check` holds for the execution's steps. */
export async function waitForSteps(
  sm: SageMakerClient,
  arn: string,
  check: (steps: Record<string, PipelineExecutionStep>) => boolean,
  timeoutMs = 30_000,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const steps = await stepsOf(sm, arn);
    if (check(steps)) return steps;
    if (Date.now() > until) throw new Error(`steps of ${arn} never got there: ${JSON.stringify(steps)}`);
    await sleep(100);
  }
}
