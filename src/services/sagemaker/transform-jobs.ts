// CreateTransformJob, DescribeTransformJob, ListTransformJobs, StopTransformJob; the run is the
// transform kind's (src/transform). https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTransformJob.html
import type {
  CreateTransformJobRequest,
  CreateTransformJobResponse,
  DescribeTransformJobRequest,
  DescribeTransformJobResponse,
  ListTransformJobsRequest,
  ListTransformJobsResponse,
  StopTransformJobRequest,
} from '../../generated/sagemaker/shapes.js';
import type { JobArtifact } from '../../lineage/job-recorder.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import { parseJsonPath } from '../../transform/json-path.js';
import type { TransformJobDoc } from '../../transform/transform-kind.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import { toDate } from '../common/resource-kind.js';
import { tableQuery } from '../common/table-kind.js';
import { resolveModelContainers } from './models.js';
import { type JobService, parseS3OrFail, tableJobs } from './table-jobs.js';

function validate(input: CreateTransformJobRequest): void {
  const src = input.TransformInput?.DataSource?.S3DataSource;
  if (!src) throw new ValidationException('TransformInput.DataSource.S3DataSource is required.');
  if (src.S3DataType !== 'S3Prefix' && src.S3DataType !== 'ManifestFile') {
    throw new ValidationException(
      `S3DataType ${src.S3DataType} is not supported for transform jobs; use S3Prefix or ManifestFile.`,
    );
  }
  parseS3OrFail(src.S3Uri, 'TransformInput');
  parseS3OrFail(input.TransformOutput?.S3OutputPath ?? '', 'TransformOutput.S3OutputPath');
  const split = input.TransformInput.SplitType ?? 'None';
  if (split !== 'None' && split !== 'Line')
    throw new ValidationException(`SplitType ${split} is not supported; use None or Line.`);
  const mb = input.MaxPayloadInMB ?? 6;
  if (mb < 0 || mb > 100) throw new ValidationException('MaxPayloadInMB must be between 0 and 100.');
  if (mb === 0 && (input.BatchStrategy === 'MultiRecord' || split !== 'None')) {
    throw new ValidationException('MaxPayloadInMB 0 (no limit) is only valid with SplitType None and SingleRecord.');
  }
  for (const [what, f] of [
    ['InputFilter', input.DataProcessing?.InputFilter],
    ['OutputFilter', input.DataProcessing?.OutputFilter],
  ] as const) {
    if (!f) continue;
    try {
      parseJsonPath(f);
    } catch (e) {
      throw new ValidationException(`${what}: ${(e as Error).message}`);
    }
  }
}

/** DescribeTransformJob's answer for a stored job (also the SourceDetail Search gives its trial component). */
export function transformJobDocument(row: ResourceRow): DescribeTransformJobResponse {
  const { JobStartTime, JobEndTime, ...d } = JSON.parse(row.doc) as TransformJobDoc;
  return {
    ...d,
    MaxPayloadInMB: d.MaxPayloadInMB ?? 6,
    MaxConcurrentTransforms: d.MaxConcurrentTransforms ?? 1,
    TransformJobName: row.name,
    TransformJobArn: row.arn,
    TransformJobStatus: row.status as DescribeTransformJobResponse['TransformJobStatus'],
    CreationTime: new Date(row.created_at),
    TransformStartTime: toDate(JobStartTime),
    TransformEndTime: toDate(JobEndTime),
  };
}

export function transformJobHandlers(deps: ServiceDeps, service: JobService) {
  const jobs = tableJobs<TransformJobDoc>(deps, deps.repos.transformJobs, service, {
    label: 'Transform job',
    arnType: 'transform-job',
    lineage: 'transform',
  });
  return {
    async createTransformJob(
      input: CreateTransformJobRequest,
      ctx: RequestContext,
    ): Promise<CreateTransformJobResponse> {
      validate(input);
      // A model that does not exist is refused here, as SageMaker does ("Could not find model").
      const { containers } = await resolveModelContainers(deps, deps.db, ctx, input.ModelName);
      const { TransformJobName: name, Tags, ...doc } = input;
      const inputs: Record<string, JobArtifact> = {
        input: {
          uri: input.TransformInput.DataSource.S3DataSource.S3Uri,
          type: 'DataSet',
          mediaType: input.TransformInput.ContentType,
        },
      };
      const first = containers[0];
      if (first) inputs['SageMaker.ImageUri'] = { uri: first.image, type: 'Image' };
      if (first?.modelDataUrl) inputs['SageMaker.ModelArtifact'] = { uri: first.modelDataUrl, type: 'Model' };
      const arn = await jobs.create(ctx, name, doc, Tags, undefined, {
        parameters: {
          'SageMaker.InstanceType': { StringValue: input.TransformResources?.InstanceType ?? 'local' },
          'SageMaker.InstanceCount': { NumberValue: input.TransformResources?.InstanceCount ?? 1 },
          ...(input.BatchStrategy ? { 'SageMaker.BatchStrategy': { StringValue: input.BatchStrategy } } : {}),
          'SageMaker.MaxPayloadInMB': { NumberValue: input.MaxPayloadInMB ?? 6 },
          'SageMaker.MaxConcurrentTransforms': { NumberValue: input.MaxConcurrentTransforms ?? 1 },
        },
        inputs,
        experiment: input.ExperimentConfig,
      });
      return { TransformJobArn: arn };
    },

    async describeTransformJob(
      input: DescribeTransformJobRequest,
      ctx: RequestContext,
    ): Promise<DescribeTransformJobResponse> {
      return transformJobDocument(await jobs.kind.get(deps.db, ctx, input.TransformJobName));
    },

    async listTransformJobs(input: ListTransformJobsRequest, ctx: RequestContext): Promise<ListTransformJobsResponse> {
      const query = tableQuery(input, { sortBy: 'created', descending: true });
      const { rows, NextToken } = await jobs.kind.list(ctx, 'ListTransformJobs', input, query);
      return {
        TransformJobSummaries: rows.map((row) => {
          const d = jobs.kind.doc(row);
          return {
            TransformJobName: row.name,
            TransformJobArn: row.arn,
            CreationTime: new Date(row.created_at),
            TransformEndTime: toDate(d.JobEndTime),
            LastModifiedTime: new Date(row.last_modified_at),
            TransformJobStatus: row.status as 'InProgress',
            FailureReason: d.FailureReason,
          };
        }),
        NextToken,
      };
    },

    async stopTransformJob(input: StopTransformJobRequest, ctx: RequestContext): Promise<void> {
      await jobs.stop(ctx, input.TransformJobName);
    },
  };
}
