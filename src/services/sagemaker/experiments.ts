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
import type { ServiceDeps } from '../common/deps.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import { audit } from '../common/resource-kind.js';
import { entityKind, entityQuery, parseDoc } from './lineage-common.js';

interface ExperimentDoc {
  ExperimentName: string;
  DisplayName?: string;
  Description?: string;
  Source?: ExperimentSource;
}

/** DescribeExperiment's answer for a stored experiment (also Search's Experiment record). */
export function experimentDocument(row: LineageEntityRow): DescribeExperimentResponse {
  const d = parseDoc<ExperimentDoc>(row);
  // "If DisplayName isn't specified, ExperimentName is displayed."
  return { ...d, ExperimentArn: row.arn, DisplayName: d.DisplayName ?? d.ExperimentName, ...audit(row) };
}

export function experimentHandlers(deps: ServiceDeps) {
  const { repos } = deps;
  const experiments = entityKind<ExperimentDoc>(deps, 'experiment', 'name');
  return {
    async createExperiment(input: CreateExperimentRequest, ctx: RequestContext): Promise<CreateExperimentResponse> {
      const arn = entityArn(ctx, 'experiment', input.ExperimentName);
      const { ExperimentName, DisplayName, Description } = input;
      const draft = { arn, name: ExperimentName, entity_type: null, source_key: null };
      await experiments.create(ctx, draft, { ExperimentName, DisplayName, Description }, input.Tags);
      return { ExperimentArn: arn };
    },

    async describeExperiment(
      input: DescribeExperimentRequest,
      ctx: RequestContext,
    ): Promise<DescribeExperimentResponse> {
      return experimentDocument(await experiments.get(deps.db, ctx, input.ExperimentName));
    },

    async listExperiments(input: ListExperimentsRequest, ctx: RequestContext): Promise<ListExperimentsResponse> {
      const { rows, NextToken } = await experiments.list(
        ctx,
        'ListExperiments',
        input,
        entityQuery('experiment', input),
      );
      const ExperimentSummaries = rows.map((row): ExperimentSummary => {
        const { ExperimentName, Source, DisplayName, ...times } = experiments.summary(row, [
          'ExperimentName',
          'Source',
          'DisplayName',
        ]);
        return {
          ExperimentArn: row.arn,
          ExperimentName,
          DisplayName: DisplayName ?? ExperimentName,
          ExperimentSource: Source,
          ...times,
        };
      });
      return { ExperimentSummaries, NextToken };
    },

    async updateExperiment(input: UpdateExperimentRequest, ctx: RequestContext): Promise<UpdateExperimentResponse> {
      const row = await experiments.update(ctx, input.ExperimentName, (d) => {
        if (input.DisplayName !== undefined) d.DisplayName = input.DisplayName;
        if (input.Description !== undefined) d.Description = input.Description;
      });
      return { ExperimentArn: row.arn };
    },

    async deleteExperiment(input: DeleteExperimentRequest, ctx: RequestContext): Promise<DeleteExperimentResponse> {
      const row = await experiments.delete(ctx, input.ExperimentName, async (tx, row) => {
        // "All trials associated with the experiment must be deleted first."
        if ((await repos.lineageEntities.count(tx, ctx, 'experiment-trial', row.name_key!)) > 0) {
          throw new ValidationException(`Experiment '${row.arn}' still has trials; delete them first.`);
        }
      });
      return { ExperimentArn: row.arn };
    },
  };
}
