// CreateProcessingJob, DescribeProcessingJob, ListProcessingJobs, StopProcessingJob; the run is the
// processing kind's (src/processing). https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateProcessingJob.html
import type {
  CreateProcessingJobRequest,
  CreateProcessingJobResponse,
  DescribeProcessingJobRequest,
  DescribeProcessingJobResponse,
  ListProcessingJobsRequest,
  ListProcessingJobsResponse,
  StopProcessingJobRequest,
} from '../../generated/sagemaker/shapes.js';
import type { JobArtifact } from '../../lineage/job-recorder.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import {
  DEFAULT_PROCESSING_RUNTIME_SECONDS,
  type ProcessingJobDoc,
  validLocalPath,
} from '../../processing/processing-kind.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import { toDate } from '../common/resource-kind.js';
import { tableQuery } from '../common/table-kind.js';
import { type JobService, parseS3OrFail, tableJobs } from './table-jobs.js';

function validate(input: CreateProcessingJobRequest): void {
  if (!input.AppSpecification?.ImageUri) throw new ValidationException('AppSpecification.ImageUri is required.');
  const names = new Set<string>();
  const paths = new Set<string>();
  const check = (name: string, local: string | undefined, what: string) => {
    if (names.has(name))
      throw new ValidationException(`Input and output names must be unique: ${name} is given twice.`);
    names.add(name);
    if (!validLocalPath(local)) {
      throw new ValidationException(
        `LocalPath ${local ?? '(none)'} of ${what} ${name} must be an absolute path under /opt/ml/processing/.`,
      );
    }
    if (paths.has(local!)) throw new ValidationException(`LocalPath ${local} is used twice.`);
    paths.add(local!);
  };
  for (const i of input.ProcessingInputs ?? []) {
    if (!i.S3Input) throw new ValidationException(`Input ${i.InputName}: only S3Input is supported.`);
    check(i.InputName, i.S3Input.LocalPath, 'input');
    parseS3OrFail(i.S3Input.S3Uri, `input ${i.InputName}`);
  }
  for (const o of input.ProcessingOutputConfig?.Outputs ?? []) {
    if (!o.S3Output) throw new ValidationException(`Output ${o.OutputName}: only S3Output is supported.`);
    check(o.OutputName, o.S3Output.LocalPath, 'output');
    parseS3OrFail(o.S3Output.S3Uri, `output ${o.OutputName}`);
  }
}

/** DescribeProcessingJob's answer for a stored job (also the SourceDetail Search gives its trial component). */
export function processingJobDocument(row: ResourceRow): DescribeProcessingJobResponse {
  const { JobStartTime, JobEndTime, ...d } = JSON.parse(row.doc) as ProcessingJobDoc;
  return {
    ...d,
    StoppingCondition: d.StoppingCondition ?? { MaxRuntimeInSeconds: DEFAULT_PROCESSING_RUNTIME_SECONDS },
    ProcessingJobName: row.name,
    ProcessingJobArn: row.arn,
    ProcessingJobStatus: row.status as DescribeProcessingJobResponse['ProcessingJobStatus'],
    CreationTime: new Date(row.created_at),
    LastModifiedTime: new Date(row.last_modified_at),
    ProcessingStartTime: toDate(JobStartTime),
    ProcessingEndTime: toDate(JobEndTime),
  };
}

export function processingJobHandlers(deps: ServiceDeps, service: JobService) {
  const jobs = tableJobs<ProcessingJobDoc>(deps, deps.repos.processingJobs, service, {
    label: 'Processing job',
    arnType: 'processing-job',
    lineage: 'processing',
  });
  return {
    async createProcessingJob(
      input: CreateProcessingJobRequest,
      ctx: RequestContext,
    ): Promise<CreateProcessingJobResponse> {
      validate(input);
      const { ProcessingJobName: name, Tags, ...doc } = input;
      const inputs: Record<string, JobArtifact> = {
        'SageMaker.ImageUri': { uri: input.AppSpecification.ImageUri, type: 'Image' },
      };
      for (const i of input.ProcessingInputs ?? []) inputs[i.InputName] = { uri: i.S3Input!.S3Uri, type: 'DataSet' };
      const cluster = input.ProcessingResources?.ClusterConfig;
      const arn = await jobs.create(ctx, name, doc, Tags, input.StoppingCondition?.MaxRuntimeInSeconds, {
        parameters: {
          'SageMaker.ImageUri': { StringValue: input.AppSpecification.ImageUri },
          ...(cluster?.InstanceType ? { 'SageMaker.InstanceType': { StringValue: cluster.InstanceType } } : {}),
          ...(cluster?.InstanceCount !== undefined
            ? { 'SageMaker.InstanceCount': { NumberValue: cluster.InstanceCount } }
            : {}),
        },
        inputs,
        experiment: input.ExperimentConfig,
      });
      return { ProcessingJobArn: arn };
    },

    async describeProcessingJob(
      input: DescribeProcessingJobRequest,
      ctx: RequestContext,
    ): Promise<DescribeProcessingJobResponse> {
      return processingJobDocument(await jobs.kind.get(deps.db, ctx, input.ProcessingJobName));
    },

    async listProcessingJobs(
      input: ListProcessingJobsRequest,
      ctx: RequestContext,
    ): Promise<ListProcessingJobsResponse> {
      const query = tableQuery(input, { sortBy: 'created', descending: true });
      const { rows, NextToken } = await jobs.kind.list(ctx, 'ListProcessingJobs', input, query);
      return {
        ProcessingJobSummaries: rows.map((row) => {
          const d = jobs.kind.doc(row);
          return {
            ProcessingJobName: row.name,
            ProcessingJobArn: row.arn,
            CreationTime: new Date(row.created_at),
            ProcessingEndTime: toDate(d.JobEndTime),
            LastModifiedTime: new Date(row.last_modified_at),
            ProcessingJobStatus: row.status as 'InProgress',
            FailureReason: d.FailureReason,
            ExitMessage: d.ExitMessage,
          };
        }),
        NextToken,
      };
    },

    async stopProcessingJob(input: StopProcessingJobRequest, ctx: RequestContext): Promise<void> {
      await jobs.stop(ctx, input.ProcessingJobName);
    },
  };
}
