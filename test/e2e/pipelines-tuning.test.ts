// A Tuning step (issue 31's hyperparameter tuning jobs): the tuning job is created through the same
// handler as CreateHyperParameterTuningJob, named within its 32 characters and tagged with the
// execution; a Model step takes the best training job's model through the SDK's
// get_top_model_s3_uri expression (Std:Join over TrainingJobSummaries[0].TrainingJobName).
// Runs once this Slipway serves tuning jobs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  CreatePipelineCommand,
  DescribeHyperParameterTuningJobCommand,
  DescribeModelCommand,
  ListTagsCommand,
  StartPipelineExecutionCommand,
} from '@aws-sdk/client-sagemaker';
import { model } from '../../src/generated/sagemaker/model.js';
import { abaloneCsv, NOTEBOOK_IMAGE } from '../support/abalone.js';
import { sdkClients } from '../support/clients.js';
import { definition, PIPELINE_ROLE, waitForExecution } from '../support/pipelines.js';
import { startServer, type TestServer } from '../support/server.js';

const served = 'CreateHyperParameterTuningJob' in model.operations;
let server: TestServer;
let clients: ReturnType<typeof sdkClients>;

before(async () => {
  if (!served) return;
  server = await startServer();
  clients = sdkClients(server.endpoint);
  await clients.s3.send(new CreateBucketCommand({ Bucket: 'tuned' }));
  const rows = abaloneCsv().trim().split('\n');
  await clients.s3.send(
    new PutObjectCommand({ Bucket: 'tuned', Key: 'train/a.csv', Body: rows.slice(0, 3000).join('\n') }),
  );
  await clients.s3.send(
    new PutObjectCommand({ Bucket: 'tuned', Key: 'validation/a.csv', Body: rows.slice(3000).join('\n') }),
  );
});
after(async () => {
  if (!served) return;
  clients.sm.destroy();
  clients.s3.destroy();
  clients.rt.destroy();
  await server.close();
});

test('a Tuning step runs its tuning job; the best model is registered from it', {
  skip: !served && 'tuning jobs are not served',
}, async () => {
  const tune = {
    Name: 'TuneAbalone',
    Type: 'Tuning',
    Arguments: {
      HyperParameterTuningJobConfig: {
        Strategy: 'Random',
        ResourceLimits: { MaxNumberOfTrainingJobs: 2, MaxParallelTrainingJobs: 2 },
        HyperParameterTuningJobObjective: { Type: 'Minimize', MetricName: 'validation:rmse' },
        ParameterRanges: { IntegerParameterRanges: [{ Name: 'max_depth', MinValue: '2', MaxValue: '5' }] },
      },
      TrainingJobDefinition: {
        StaticHyperParameters: { objective: 'reg:squarederror', num_round: '10' },
        AlgorithmSpecification: { TrainingImage: NOTEBOOK_IMAGE, TrainingInputMode: 'File' },
        RoleArn: PIPELINE_ROLE,
        InputDataConfig: ['train', 'validation'].map((c) => ({
          ChannelName: c,
          ContentType: 'text/csv',
          DataSource: { S3DataSource: { S3DataType: 'S3Prefix', S3Uri: `s3://tuned/${c}/` } },
        })),
        OutputDataConfig: { S3OutputPath: 's3://tuned/output' },
        ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
        StoppingCondition: { MaxRuntimeInSeconds: 600 },
      },
    },
  };
  const best = {
    Name: 'BestModel',
    Type: 'Model',
    Arguments: {
      ExecutionRoleArn: PIPELINE_ROLE,
      PrimaryContainer: {
        Image: NOTEBOOK_IMAGE,
        ModelDataUrl: {
          'Std:Join': {
            On: '/',
            Values: [
              's3:/',
              'tuned',
              'output',
              { Get: 'Steps.TuneAbalone.TrainingJobSummaries[0].TrainingJobName' },
              'output/model.tar.gz',
            ],
          },
        },
      },
    },
  };
  const { sm } = clients;
  await sm.send(
    new CreatePipelineCommand({
      PipelineName: 'Tuned',
      PipelineDefinition: definition([tune, best]),
      RoleArn: PIPELINE_ROLE,
    }),
  );
  const { PipelineExecutionArn: arn } = await sm.send(new StartPipelineExecutionCommand({ PipelineName: 'Tuned' }));
  const { execution, steps } = await waitForExecution(sm, arn!, 120_000);
  assert.equal(execution.PipelineExecutionStatus, 'Succeeded', execution.FailureReason);
  const tuningArn = steps.TuneAbalone!.Metadata!.TuningJob!.Arn!;
  const tuning = await sm.send(
    new DescribeHyperParameterTuningJobCommand({ HyperParameterTuningJobName: tuningArn.split('/').pop() }),
  );
  assert.equal(tuning.HyperParameterTuningJobStatus, 'Completed');
  assert.ok(tuning.HyperParameterTuningJobName!.length <= 32);
  assert.ok(tuning.HyperParameterTuningJobName!.startsWith(`${arn!.split('/').pop()}-TuneAbalone-`));
  const tags = await sm.send(new ListTagsCommand({ ResourceArn: tuningArn }));
  assert.ok(tags.Tags?.some((t) => t.Key === 'sagemaker:pipeline-execution-arn' && t.Value === arn));
  const chosen = await sm.send(
    new DescribeModelCommand({ ModelName: steps.BestModel!.Metadata!.Model!.Arn!.split('/').pop() }),
  );
  assert.equal(
    chosen.PrimaryContainer?.ModelDataUrl,
    `s3://tuned/output/${tuning.BestTrainingJob!.TrainingJobName}/output/model.tar.gz`,
  );
});
