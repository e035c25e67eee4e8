// CreateExperiment, DescribeExperiment, ListExperiments, UpdateExperiment, DeleteExperiment.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateExperiment.html
import type {
  CreateExperimentRequest,
  CreateExperimentResponse,
  DeleteExperimentRequest,
  DeleteExperimentResponse,
  DescribeExperimentRequest,
  DescribeExperimentResponse,
  ExperimentSource,
  ExperimentSummary,
  ListExperimentsRequest,
  ListExperimentsResponse,
  UpdateExperimentRequest,
  UpdateExperimentResponse,
} from '../../generated/sagemaker/shapes.js';
import { entityArn } from '../../lineage/entities.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import { deleteEntity, insertNew, listEntities, mustGetByName, NO_USER, parseDoc, toDate } from './lineage-common.js';

interface ExperimentDoc {
  ExperimentName: string;
  DisplayName?: string;
  Description?: string;
  Source?: ExperimentSource;
}

function summary(row: LineageEntityRow): ExperimentSummary {
  const d = parseDoc<ExperimentDoc>(row);
  return {
    ExperimentArn: row.arn,
    ExperimentName: d.ExperimentName,
    // "If DisplayName isn't specified, ExperimentName is displayed."
    DisplayName: d.DisplayName ?? d.ExperimentName,
    ExperimentSource: d.Source,
    CreationTime: toDate(row.created_at),
    LastModifiedTime: toDate(row.last_modified_at),
  };
}

export function experimentHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  return {
    async createExperiment(input: CreateExperimentRequest, ctx: RequestContext): Promise<CreateExperimentResponse> {
      const arn = entityArn(ctx, 'experiment', input.ExperimentName);
      const doc: ExperimentDoc = {
        ExperimentName: input.ExperimentName,
        DisplayName: input.DisplayName,
        Description: input.Description,
      };
      await insertNew(
        deps,
        ctx,
        {
          arn,
          kind: 'experiment',
          name: input.ExperimentName,
          entity_type: null,
          source_key: null,
          doc,
        },
        input.Tags,
      );
      return { ExperimentArn: arn };
    },

    async describeExperiment(
      input: DescribeExperimentRequest,
      ctx: RequestContext,
    ): Promise<DescribeExperimentResponse> {
      const row = await mustGetByName(db, deps, ctx, 'experiment', input.ExperimentName);
      const d = parseDoc<ExperimentDoc>(row);
      return {
        ExperimentName: d.ExperimentName,
        ExperimentArn: row.arn,
        DisplayName: d.DisplayName ?? d.ExperimentName,
        Source: d.Source,
        Description: d.Description,
        CreationTime: toDate(row.created_at),
        CreatedBy: NO_USER,
        LastModifiedTime: toDate(row.last_modified_at),
        LastModifiedBy: NO_USER,
      };
    },

    async listExperiments(input: ListExperimentsRequest, ctx: RequestContext): Promise<ListExperimentsResponse> {
      const { rows, NextToken } = await listEntities(deps, ctx, 'ListExperiments', input, { kind: 'experiment' });
      return { ExperimentSummaries: rows.map(summary), NextToken };
    },

    async updateExperiment(input: UpdateExperimentRequest, ctx: RequestContext): Promise<UpdateExperimentResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'experiment', input.ExperimentName, true);
        const d = parseDoc<ExperimentDoc>(row);
        if (input.DisplayName !== undefined) d.DisplayName = input.DisplayName;
        if (input.Description !== undefined) d.Description = input.Description;
        await repos.lineageEntities.update(tx, row.arn, { doc: JSON.stringify(d), last_modified_at: ctx.receivedAt });
        return row.arn;
      });
      return { ExperimentArn: arn };
    },

    async deleteExperiment(input: DeleteExperimentRequest, ctx: RequestContext): Promise<DeleteExperimentResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'experiment', input.ExperimentName, true);
        // "All trials associated with the experiment must be deleted first."
        if ((await repos.lineageEntities.count(tx, ctx, 'experiment-trial', row.name_key!)) > 0) {
          throw new ValidationException(`Experiment '${row.arn}' still has trials; delete them first.`);
        }
        await deleteEntity(tx, deps, row);
        return row.arn;
      });
      return { ExperimentArn: arn };
    },
  };
}
