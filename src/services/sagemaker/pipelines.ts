// CreatePipeline, UpdatePipeline, DescribePipeline, DeletePipeline, ListPipelines. A pipeline is its
// definition (checked by src/pipelines/definition.ts before it is stored), its role and settings.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreatePipeline.html
import { buffer } from 'node:stream/consumers';
import { nameFromArnOrName, type Partition, parseArn, sagemakerArn } from '../../domain/arn.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import type {
  CreatePipelineRequest,
  CreatePipelineResponse,
  DeletePipelineRequest,
  DeletePipelineResponse,
  DescribePipelineRequest,
  DescribePipelineResponse,
  ListPipelinesRequest,
  ListPipelinesResponse,
  PipelineDefinitionS3Location,
  UpdatePipelineRequest,
  UpdatePipelineResponse,
} from '../../generated/sagemaker/shapes.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { JobKind } from '../../jobs/types.js';
import { compileDefinition, type StepType } from '../../pipelines/definition.js';
import type { PipelineWork } from '../../pipelines/execution.js';
import { deleteSteps } from '../../pipelines/store.js';
import type { Wakeups } from '../../pipelines/wakeups.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { RequestContext } from '../../protocol/context.js';
import { BlobNotFoundError, type BlobStore } from '../../storage/blobs/blob-store.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import { audit, toDate } from '../common/resource-kind.js';
import { tableKind } from '../common/table-kind.js';

/** What the pipeline operations use beyond the database: the executor's kind, its wake-ups, S3. */
export interface PipelineService {
  readonly runner: JobRunner;
  readonly kind: JobKind<PipelineWork>;
  readonly wakeups: Wakeups;
  readonly blobs: BlobStore;
  /** Whether this Slipway can run a step type (Tuning needs hyperparameter tuning jobs). */
  canRun(type: StepType): boolean;
}

export interface PipelineDoc {
  PipelineDisplayName: string;
  PipelineDefinition: string;
  PipelineDescription?: string;
  RoleArn: string;
  ParallelismConfiguration?: { MaxParallelExecutionSteps: number };
  ClientRequestToken?: string;
  LastRunTime?: number;
}

/** The largest definition read from PipelineDefinitionS3Location. */
const MAX_DEFINITION_BYTES = 10 * 1024 * 1024;

export const pipelineArn = (p: Partition, name: string) => sagemakerArn(p, 'pipeline', name);

export const pipelineNotFound = (p: Partition, nameOrArn: string) =>
  new ResourceNotFound(
    `Pipeline '${nameOrArn.startsWith('arn:') ? nameOrArn : pipelineArn(p, nameOrArn)}' does not exist.`,
  );

/** The pipeline name an ARN or name designates (undefined for an ARN that is not a pipeline's). */
export function pipelineName(p: Partition, nameOrArn: string): string | undefined {
  const name = nameFromArnOrName(p, nameOrArn, 'pipeline');
  return name === undefined || name.includes('/') ? undefined : name;
}

export function pipelineKind(deps: ServiceDeps) {
  return tableKind<PipelineDoc>(deps, deps.repos.pipelines, {
    notFound: pipelineNotFound,
    taken: (_p, arn) => {
      const name = parseArn(arn)?.resource ?? arn;
      return new ValidationException(
        `Pipeline names must be unique within an AWS account and region. Pipeline with name (${name}) already exists.`,
      );
    },
  });
}

/** The definition text of a Create/UpdatePipeline: inline, or read from S3. */
async function definitionText(
  service: PipelineService,
  inline: string | undefined,
  s3: PipelineDefinitionS3Location | undefined,
): Promise<string | undefined> {
  if (inline !== undefined && s3) {
    throw new ValidationException('Specify either PipelineDefinition or PipelineDefinitionS3Location, not both.');
  }
  if (!s3) return inline;
  // DEVIATION(aws): VersionId is not read; the embedded S3 keeps one version of an object.
  const uri = `s3://${s3.Bucket}/${s3.ObjectKey}`;
  try {
    const info = await service.blobs.stat(uri);
    if (!info) throw new BlobNotFoundError(uri, 'NoSuchKey');
    if (info.size > MAX_DEFINITION_BYTES)
      throw new ValidationException(`The pipeline definition at ${uri} is larger than ${MAX_DEFINITION_BYTES} bytes.`);
    return (await buffer(await service.blobs.get(uri))).toString('utf8');
  } catch (e) {
    if (e instanceof BlobNotFoundError)
      throw new ValidationException(`Could not read the pipeline definition from ${uri}: the object does not exist.`);
    throw e;
  }
}

/** DescribePipeline's answer for a stored pipeline (also Search's Pipeline record). */
export function pipelineDocument(row: ResourceRow): DescribePipelineResponse {
  const d = JSON.parse(row.doc) as PipelineDoc;
  return {
    PipelineArn: row.arn,
    PipelineName: row.name,
    PipelineDisplayName: d.PipelineDisplayName,
    PipelineDefinition: d.PipelineDefinition,
    PipelineDescription: d.PipelineDescription,
    RoleArn: d.RoleArn,
    PipelineStatus: (row.status ?? 'Active') as 'Active',
    ...audit(row),
    LastRunTime: toDate(d.LastRunTime),
    ParallelismConfiguration: d.ParallelismConfiguration,
  };
}

export function pipelineHandlers(deps: ServiceDeps, service: PipelineService) {
  const pipelines = pipelineKind(deps);
  const { db, repos } = deps;
  const check = (text: string) => compileDefinition(text, { canRun: (t) => service.canRun(t) });

  const find = async (ctx: RequestContext, nameOrArn: string, q: Queryable = db, lock = false) => {
    const name = pipelineName(ctx, nameOrArn);
    if (name === undefined) throw pipelineNotFound(ctx, nameOrArn);
    return pipelines.get(q, ctx, name, lock);
  };

  return {
    async createPipeline(input: CreatePipelineRequest, ctx: RequestContext): Promise<CreatePipelineResponse> {
      const text = await definitionText(service, input.PipelineDefinition, input.PipelineDefinitionS3Location);
      if (text === undefined)
        throw new ValidationException('Either PipelineDefinition or PipelineDefinitionS3Location must be specified.');
      check(text);
      const arn = pipelineArn(ctx, input.PipelineName);
      const doc: PipelineDoc = {
        PipelineDisplayName: input.PipelineDisplayName ?? input.PipelineName,
        PipelineDefinition: text,
        PipelineDescription: input.PipelineDescription,
        RoleArn: input.RoleArn,
        ParallelismConfiguration: input.ParallelismConfiguration,
        ClientRequestToken: input.ClientRequestToken,
      };
      try {
        await pipelines.create(ctx, { arn, name: input.PipelineName, status: 'Active' }, doc, input.Tags);
      } catch (e) {
        // A retried request (same ClientRequestToken) gets the pipeline it created.
        const existing = await repos.pipelines.get(db, ctx, input.PipelineName.toLowerCase());
        if (existing && pipelines.doc(existing).ClientRequestToken === input.ClientRequestToken)
          return { PipelineArn: existing.arn };
        throw e;
      }
      return { PipelineArn: arn };
    },

    async updatePipeline(input: UpdatePipelineRequest, ctx: RequestContext): Promise<UpdatePipelineResponse> {
      const text = await definitionText(service, input.PipelineDefinition, input.PipelineDefinitionS3Location);
      if (text !== undefined) check(text);
      const row = await pipelines.update(ctx, input.PipelineName, (d) => {
        if (text !== undefined) d.PipelineDefinition = text;
        if (input.PipelineDisplayName !== undefined) d.PipelineDisplayName = input.PipelineDisplayName;
        if (input.PipelineDescription !== undefined) d.PipelineDescription = input.PipelineDescription;
        if (input.RoleArn !== undefined) d.RoleArn = input.RoleArn;
        if (input.ParallelismConfiguration !== undefined) d.ParallelismConfiguration = input.ParallelismConfiguration;
      });
      return { PipelineArn: row.arn };
    },

    async describePipeline(input: DescribePipelineRequest, ctx: RequestContext): Promise<DescribePipelineResponse> {
      // DEVIATION(aws): pipeline versions are not kept; PipelineVersionId is not read.
      return pipelineDocument(await find(ctx, input.PipelineName));
    },

    async deletePipeline(input: DeletePipelineRequest, ctx: RequestContext): Promise<DeletePipelineResponse> {
      const row = await db.transaction(async (tx) => {
        const p = await find(ctx, input.PipelineName, tx, true);
        const executions = await tx.all<{ arn: string; status: string }>(
          'SELECT arn, status FROM pipeline_executions WHERE account_id = ? AND region = ? AND pipeline_key = ?',
          [ctx.accountId, ctx.region, p.name_key],
        );
        const running = executions.find((e) => e.status === 'Executing' || e.status === 'Stopping');
        if (running)
          throw new ValidationException(
            `Pipeline '${p.arn}' has a running execution (${running.arn}); stop it with StopPipelineExecution before deleting the pipeline.`,
          );
        // The pipeline's executions go with it (their jobs, models and packages stay).
        for (const e of executions) {
          await deleteSteps(tx, e.arn);
          await repos.tags.removeAll(tx, e.arn);
        }
        await tx.run('DELETE FROM pipeline_executions WHERE account_id = ? AND region = ? AND pipeline_key = ?', [
          ctx.accountId,
          ctx.region,
          p.name_key,
        ]);
        await pipelines.store.remove(tx, ctx, p);
        return p;
      });
      return { PipelineArn: row.arn };
    },

    async listPipelines(input: ListPipelinesRequest, ctx: RequestContext): Promise<ListPipelinesResponse> {
      const { rows, NextToken } = await pipelines.list(ctx, 'ListPipelines', input, {
        namePrefix: input.PipelineNamePrefix,
        createdAfter: input.CreatedAfter?.getTime(),
        createdBefore: input.CreatedBefore?.getTime(),
        sortBy: input.SortBy === 'Name' ? 'name' : 'created',
        descending: input.SortOrder !== 'Ascending',
      });
      return {
        PipelineSummaries: rows.map((row) => {
          const d = pipelines.doc(row);
          return {
            PipelineArn: row.arn,
            PipelineName: row.name,
            PipelineDisplayName: d.PipelineDisplayName,
            PipelineDescription: d.PipelineDescription,
            RoleArn: d.RoleArn,
            CreationTime: new Date(row.created_at),
            LastModifiedTime: new Date(row.last_modified_at),
            LastExecutionTime: toDate(d.LastRunTime),
          };
        }),
        NextToken,
      };
    },
  };
}
