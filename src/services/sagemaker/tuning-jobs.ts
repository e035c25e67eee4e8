// CreateHyperParameterTuningJob, DescribeHyperParameterTuningJob, ListHyperParameterTuningJobs,
// ListTrainingJobsForHyperParameterTuningJob, StopHyperParameterTuningJob,
// DeleteHyperParameterTuningJob. The run is src/tuning's.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateHyperParameterTuningJob.html
import type {
  CreateHyperParameterTuningJobRequest,
  CreateHyperParameterTuningJobResponse,
  DeleteHyperParameterTuningJobRequest,
  DescribeHyperParameterTuningJobRequest,
  DescribeHyperParameterTuningJobResponse,
  HyperParameterTrainingJobDefinition,
  ListHyperParameterTuningJobsRequest,
  ListHyperParameterTuningJobsResponse,
  ListTrainingJobsForHyperParameterTuningJobRequest,
  ListTrainingJobsForHyperParameterTuningJobResponse,
  StopHyperParameterTuningJobRequest,
} from '../../generated/sagemaker/shapes.js';
import type { RequestContext } from '../../protocol/context.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ChildSort } from '../../storage/repositories/tuning-children.js';
import { objectivesOf } from '../../tuning/children.js';
import { childSummary, summaryOut, type TuningJobDoc } from '../../tuning/tuning-doc.js';
import type { Tuning } from '../../tuning/tuning.js';
import type { ServiceDeps } from '../common/deps.js';
import { toDate } from '../common/resource-kind.js';
import { tableQuery } from '../common/table-kind.js';

/** DescribeHyperParameterTuningJob's answer for a stored tuning job (also Search's HyperParameterTuningJob record). */
export function tuningJobDocument(row: ResourceRow, now = Date.now()): DescribeHyperParameterTuningJobResponse {
  const {
    Seed: _seed,
    ExperimentName: _experiment,
    ParentsBest: _parents,
    BestTrainingJob,
    OverallBestTrainingJob,
    EndTime,
    NumberOfTrainingJobsObjectiveNotImproving,
    ConvergenceDetectedTime,
    ...d
  } = JSON.parse(row.doc) as TuningJobDoc;
  const end = EndTime ?? (row.status === 'InProgress' || row.status === 'Stopping' ? now : row.last_modified_at);
  return {
    ...d,
    TrainingJobDefinition: d.TrainingJobDefinition && withResourceConfig(d.TrainingJobDefinition),
    TrainingJobDefinitions: d.TrainingJobDefinitions?.map(withResourceConfig),
    HyperParameterTuningJobName: row.name,
    HyperParameterTuningJobArn: row.arn,
    HyperParameterTuningJobStatus:
      row.status as DescribeHyperParameterTuningJobResponse['HyperParameterTuningJobStatus'],
    CreationTime: new Date(row.created_at),
    LastModifiedTime: new Date(row.last_modified_at),
    HyperParameterTuningEndTime: toDate(EndTime),
    BestTrainingJob: BestTrainingJob ? summaryOut(BestTrainingJob) : undefined,
    OverallBestTrainingJob: OverallBestTrainingJob ? summaryOut(OverallBestTrainingJob) : undefined,
    TuningJobCompletionDetails: {
      NumberOfTrainingJobsObjectiveNotImproving: NumberOfTrainingJobsObjectiveNotImproving ?? 0,
      ConvergenceDetectedTime: toDate(ConvergenceDetectedTime),
    },
    ConsumedResources: { RuntimeInSeconds: Math.max(0, Math.round((end - row.created_at) / 1000)) },
  };
}

/**
 * A definition given HyperParameterTuningResourceConfig with one instance type also reads back
 * with the ResourceConfig its training jobs run with: the SageMaker Python SDK sends the former
 * and HyperparameterTuner.attach reads the latter (its estimator needs InstanceCount and type).
 */
function withResourceConfig(d: HyperParameterTrainingJobDefinition): HyperParameterTrainingJobDefinition {
  const h = d.HyperParameterTuningResourceConfig;
  if (d.ResourceConfig || !h?.InstanceType) return d;
  return {
    ...d,
    ResourceConfig: { InstanceType: h.InstanceType, InstanceCount: h.InstanceCount, VolumeSizeInGB: h.VolumeSizeInGB },
  };
}

export function tuningJobHandlers(deps: ServiceDeps, tuning: Tuning) {
  const jobs = tuning.jobs;
  return {
    async createHyperParameterTuningJob(
      input: CreateHyperParameterTuningJobRequest,
      ctx: RequestContext,
    ): Promise<CreateHyperParameterTuningJobResponse> {
      return { HyperParameterTuningJobArn: await tuning.create(ctx, input) };
    },

    async describeHyperParameterTuningJob(
      input: DescribeHyperParameterTuningJobRequest,
      ctx: RequestContext,
    ): Promise<DescribeHyperParameterTuningJobResponse> {
      return tuningJobDocument(await jobs.get(deps.db, ctx, input.HyperParameterTuningJobName));
    },

    async listHyperParameterTuningJobs(
      input: ListHyperParameterTuningJobsRequest,
      ctx: RequestContext,
    ): Promise<ListHyperParameterTuningJobsResponse> {
      const query = tableQuery(input, { sortBy: 'name', descending: false });
      const { rows, NextToken } = await jobs.list(ctx, 'ListHyperParameterTuningJobs', input, query);
      return {
        HyperParameterTuningJobSummaries: rows.map((row) => {
          const d = tuningJobDocument(row);
          return {
            HyperParameterTuningJobName: d.HyperParameterTuningJobName,
            HyperParameterTuningJobArn: d.HyperParameterTuningJobArn,
            HyperParameterTuningJobStatus: d.HyperParameterTuningJobStatus,
            Strategy: d.HyperParameterTuningJobConfig.Strategy,
            CreationTime: d.CreationTime,
            HyperParameterTuningEndTime: d.HyperParameterTuningEndTime,
            LastModifiedTime: d.LastModifiedTime,
            TrainingJobStatusCounters: d.TrainingJobStatusCounters,
            ObjectiveStatusCounters: d.ObjectiveStatusCounters,
            ResourceLimits: d.HyperParameterTuningJobConfig.ResourceLimits,
          };
        }),
        NextToken,
      };
    },

    async listTrainingJobsForHyperParameterTuningJob(
      input: ListTrainingJobsForHyperParameterTuningJobRequest,
      ctx: RequestContext,
    ): Promise<ListTrainingJobsForHyperParameterTuningJobResponse> {
      const row = await jobs.get(deps.db, ctx, input.HyperParameterTuningJobName);
      const sortBy: ChildSort = input.SortBy ?? 'Name';
      // SageMaker's default order is Name ascending; objective values best first unless told otherwise.
      const descending = input.SortOrder === undefined ? false : input.SortOrder === 'Descending';
      const limit = input.MaxResults ?? 10;
      const scope = `ListTrainingJobsForHyperParameterTuningJob|${ctx.accountId}|${ctx.region}|${row.arn}|${sortBy}|${descending}|${input.StatusEquals ?? ''}`;
      const after = input.NextToken
        ? deps.tokens.decode<[string | number | null, number]>(scope, input.NextToken)
        : undefined;
      const children = deps.repos.tuningChildren;
      const rows = await children.page(deps.db, ctx, row.name_key, {
        status: input.StatusEquals,
        sortBy,
        descending,
        after,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const objectives = objectivesOf(jobs.doc(row) as TuningJobDoc);
      const last = page[page.length - 1];
      return {
        TrainingJobSummaries: page.map((c) =>
          summaryOut(childSummary(c, row.name, objectives.get(c.definition_name ?? '')!)),
        ),
        NextToken:
          rows.length > limit && last
            ? deps.tokens.encode(scope, [children.sortValue(last, sortBy), last.seq])
            : undefined,
      };
    },

    stopHyperParameterTuningJob: (input: StopHyperParameterTuningJobRequest, ctx: RequestContext): Promise<void> =>
      tuning.stop(ctx, input.HyperParameterTuningJobName),

    deleteHyperParameterTuningJob: (input: DeleteHyperParameterTuningJobRequest, ctx: RequestContext): Promise<void> =>
      tuning.delete(ctx, input.HyperParameterTuningJobName),
  };
}
