// CreateTrainingJob, DescribeTrainingJob, ListTrainingJobs, StopTrainingJob. A job's row, its first
// status, its trial component and its work item commit together; the run is the training kind's.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrainingJob.html
import { ResourceInUse } from '../../generated/sagemaker/errors.js';
import type {
  CreateTrainingJobRequest,
  CreateTrainingJobResponse,
  DescribeTrainingJobRequest,
  DescribeTrainingJobResponse,
  ListTrainingJobsRequest,
  ListTrainingJobsResponse,
  StopTrainingJobRequest,
} from '../../generated/sagemaker/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import { parseContainerVersion } from '../../inference/runtimes/xgboost/serving.js';
import { advance, type TrainingJobDoc, trialParameters } from '../../training/training-doc.js';
import { builtinMetricDefinitions } from '../../training/xgboost/metric-definitions.js';
import type { ServiceDeps } from '../common/deps.js';
import { type JobCreateHooks, type JobService, parseS3OrFail, tableJobs } from './table-jobs.js';
import { toDate } from '../common/resource-kind.js';
import { tableQuery } from '../common/table-kind.js';

const seconds = (from?: number, to?: number) =>
  from !== undefined && to !== undefined ? Math.max(1, Math.round((to - from) / 1000)) : undefined;

/** CreateTrainingJob's checks beyond the model's constraints. */
export function validateTrainingJob(input: CreateTrainingJobRequest): void {
  const spec = input.AlgorithmSpecification;
  if (!spec) throw new ValidationException('AlgorithmSpecification is required.');
  if (spec.AlgorithmName && !spec.TrainingImage) {
    // DEVIATION(aws): algorithm resources (AWS Marketplace) do not exist here.
    throw new ValidationException('AlgorithmName is not supported; give AlgorithmSpecification.TrainingImage.');
  }
  if (!spec.TrainingImage) throw new ValidationException('AlgorithmSpecification.TrainingImage is required.');
  const names = new Set<string>();
  for (const c of input.InputDataConfig ?? []) {
    if (names.has(c.ChannelName))
      throw new ValidationException(`Channel names must be unique: ${c.ChannelName} is given twice.`);
    names.add(c.ChannelName);
    if (c.DataSource.S3DataSource) parseS3OrFail(c.DataSource.S3DataSource.S3Uri, `channel ${c.ChannelName}`);
  }
  parseS3OrFail(input.OutputDataConfig.S3OutputPath, 'OutputDataConfig.S3OutputPath');
}

/** DescribeTrainingJob's answer for a stored job (also Search's TrainingJob record). */
export function trainingJobDocument(row: ResourceRow): DescribeTrainingJobResponse {
  const {
    SecondaryStatusTransitions,
    FinalMetricDataList,
    TrainingStartTime,
    TrainingEndTime,
    LogStreamName: _,
    ...d
  } = JSON.parse(row.doc) as TrainingJobDoc;
  const trained = seconds(TrainingStartTime, TrainingEndTime);
  return {
    ...d,
    TrainingJobName: row.name,
    TrainingJobArn: row.arn,
    TrainingJobStatus: row.status as DescribeTrainingJobResponse['TrainingJobStatus'],
    SecondaryStatus: d.SecondaryStatus as DescribeTrainingJobResponse['SecondaryStatus'],
    ModelArtifacts: d.ModelArtifacts ?? { S3ModelArtifacts: undefined as unknown as string },
    // SageMaker answers KmsKeyId "" when none was given; the Python SDK's Estimator.attach (and so
    // HyperparameterTuner.deploy) reads it unconditionally.
    OutputDataConfig: { KmsKeyId: '', ...d.OutputDataConfig },
    StoppingCondition: d.StoppingCondition ?? { MaxRuntimeInSeconds: 86_400 },
    CreationTime: new Date(row.created_at),
    LastModifiedTime: new Date(row.last_modified_at),
    TrainingStartTime: toDate(TrainingStartTime),
    TrainingEndTime: toDate(TrainingEndTime),
    TrainingTimeInSeconds: trained,
    BillableTimeInSeconds: trained,
    SecondaryStatusTransitions: SecondaryStatusTransitions.map((t) => ({
      Status: t.Status as 'Starting',
      StartTime: new Date(t.StartTime),
      EndTime: toDate(t.EndTime),
      StatusMessage: t.StatusMessage,
    })),
    FinalMetricDataList: FinalMetricDataList?.map((m) => ({ ...m, Timestamp: new Date(m.Timestamp) })),
  };
}

/** What a training job created by another resource (a tuning job's child) carries besides its request. */
export interface TrainingJobExtras extends JobCreateHooks {
  /** DescribeTrainingJob's TuningJobArn. */
  readonly tuningJobArn?: string;
}

/**
 * Training jobs as other parts of Slipway create and stop them (a tuning job's children): the same
 * checks, rows, lineage and work item as CreateTrainingJob, in one transaction with the caller's writes.
 */
export function trainingJobService(deps: ServiceDeps, training: JobService) {
  const table = tableJobs<TrainingJobDoc>(deps, deps.repos.trainingJobs, training, {
    label: 'Training job',
    arnType: 'training-job',
    lineage: 'training',
    // DescribeTrainingJob's own words for a missing job (aws/amazon-sagemaker-examples#2360).
    notFound: () => new ValidationException('Requested resource not found.'),
    taken: (arn) =>
      new ResourceInUse(
        `Training job names must be unique within an AWS account and region, and a training job with this name already exists (${arn})`,
      ),
    onStop: (doc, at) => advance(doc, 'Stopping', 'Stopping the training job', at),
  });
  return {
    table,
    kind: table.kind,
    async create(
      ctx: RequestContext,
      input: CreateTrainingJobRequest,
      extras: TrainingJobExtras = {},
    ): Promise<string> {
      validateTrainingJob(input);
      const { TrainingJobName: name, Tags, ...given } = input;
      const doc: TrainingJobDoc = {
        ...(extras.tuningJobArn ? { TuningJobArn: extras.tuningJobArn } : {}),
        ...given,
        SecondaryStatus: 'Starting',
        SecondaryStatusTransitions: [],
      };
      // A built-in algorithm's job carries the algorithm's own metric definitions, as SageMaker fills
      // them (not a script-mode job, which names its entry point in sagemaker_program).
      const spec = given.AlgorithmSpecification!;
      const builtin =
        parseContainerVersion(spec.TrainingImage ?? '') !== undefined &&
        given.HyperParameters?.sagemaker_program === undefined;
      if (!spec.MetricDefinitions?.length && builtin) {
        doc.AlgorithmSpecification = { ...spec, MetricDefinitions: builtinMetricDefinitions() };
      }
      advance(doc, 'Starting', 'Launching requested ML instances', ctx.receivedAt);
      return table.create(
        ctx,
        name,
        doc,
        Tags,
        input.StoppingCondition?.MaxRuntimeInSeconds,
        {
          parameters: trialParameters(doc),
          inputs: {
            ...Object.fromEntries(
              (input.InputDataConfig ?? []).flatMap((c) =>
                c.DataSource.S3DataSource
                  ? [
                      [
                        c.ChannelName,
                        { uri: c.DataSource.S3DataSource.S3Uri, type: 'DataSet', mediaType: c.ContentType },
                      ],
                    ]
                  : [],
              ),
            ),
            'SageMaker.ImageUri': { uri: input.AlgorithmSpecification!.TrainingImage!, type: 'Image' },
          },
          experiment: input.ExperimentConfig,
        },
        extras,
      );
    },
  };
}

export type TrainingJobService = ReturnType<typeof trainingJobService>;

export function trainingJobHandlers(deps: ServiceDeps, training: JobService) {
  const service = trainingJobService(deps, training);
  const { table } = service;
  const jobs = table.kind;

  return {
    createTrainingJob: async (
      input: CreateTrainingJobRequest,
      ctx: RequestContext,
    ): Promise<CreateTrainingJobResponse> => ({
      TrainingJobArn: await service.create(ctx, input),
    }),

    async describeTrainingJob(
      input: DescribeTrainingJobRequest,
      ctx: RequestContext,
    ): Promise<DescribeTrainingJobResponse> {
      return trainingJobDocument(await jobs.get(deps.db, ctx, input.TrainingJobName));
    },

    async listTrainingJobs(input: ListTrainingJobsRequest, ctx: RequestContext): Promise<ListTrainingJobsResponse> {
      const query = tableQuery(input, { sortBy: 'created', descending: true });
      const { rows, NextToken } = await jobs.list(ctx, 'ListTrainingJobs', input, query);
      return {
        TrainingJobSummaries: rows.map((row) => {
          const d = jobs.doc(row);
          return {
            TrainingJobName: row.name,
            TrainingJobArn: row.arn,
            CreationTime: new Date(row.created_at),
            TrainingEndTime: toDate(d.TrainingEndTime),
            LastModifiedTime: new Date(row.last_modified_at),
            TrainingJobStatus: row.status as 'InProgress',
            SecondaryStatus: d.SecondaryStatus as 'Starting',
          };
        }),
        NextToken,
      };
    },

    stopTrainingJob: (input: StopTrainingJobRequest, ctx: RequestContext): Promise<void> =>
      table.stop(ctx, input.TrainingJobName),
  };
}
