// CreateTrial, DescribeTrial, ListTrials, UpdateTrial, DeleteTrial.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrial.html
import type {
  CreateTrialRequest,
  CreateTrialResponse,
  DeleteTrialRequest,
  DeleteTrialResponse,
  DescribeTrialRequest,
  DescribeTrialResponse,
  ListTrialsRequest,
  ListTrialsResponse,
  MetadataProperties,
  TrialSource,
  TrialSummary,
  UpdateTrialRequest,
  UpdateTrialResponse,
} from '../../generated/sagemaker/shapes.js';
import { entityArn } from '../../lineage/entities.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { ServiceDeps } from '../common/deps.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import { audit } from '../common/resource-kind.js';
import { entityKind, entityQuery, parseDoc } from './lineage-common.js';

interface TrialDoc {
  TrialName: string;
  DisplayName?: string;
  ExperimentName: string;
  MetadataProperties?: MetadataProperties;
  Source?: TrialSource;
}

/** DescribeTrial's answer for a stored trial (also Search's Trial record). */
export function trialDocument(row: LineageEntityRow): DescribeTrialResponse {
  const d = parseDoc<TrialDoc>(row);
  return { ...d, TrialArn: row.arn, DisplayName: d.DisplayName ?? d.TrialName, ...audit(row) };
}

export function trialHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  const trials = entityKind<TrialDoc>(deps, 'experiment-trial', 'name');
  const experiments = entityKind(deps, 'experiment', 'name');
  const components = entityKind(deps, 'experiment-trial-component', 'name');
  return {
    async createTrial(input: CreateTrialRequest, ctx: RequestContext): Promise<CreateTrialResponse> {
      const arn = entityArn(ctx, 'experiment-trial', input.TrialName);
      const experiment = await experiments.get(db, ctx, input.ExperimentName);
      const doc: TrialDoc = {
        TrialName: input.TrialName,
        DisplayName: input.DisplayName,
        ExperimentName: experiment.name!,
        MetadataProperties: input.MetadataProperties,
      };
      const draft = {
        arn,
        name: input.TrialName,
        entity_type: null,
        source_key: null,
        parent_key: experiment.name_key,
      };
      // The experiment may have been deleted since it was looked up: check again inside.
      await trials.create(ctx, draft, doc, input.Tags, (tx) =>
        experiments.get(tx, ctx, input.ExperimentName, true).then(() => {}),
      );
      return { TrialArn: arn };
    },

    async describeTrial(input: DescribeTrialRequest, ctx: RequestContext): Promise<DescribeTrialResponse> {
      return trialDocument(await trials.get(db, ctx, input.TrialName));
    },

    async listTrials(input: ListTrialsRequest, ctx: RequestContext): Promise<ListTrialsResponse> {
      const experiment =
        input.ExperimentName === undefined ? undefined : await experiments.get(db, ctx, input.ExperimentName);
      const component =
        input.TrialComponentName === undefined ? undefined : await components.get(db, ctx, input.TrialComponentName);
      const query = entityQuery('experiment-trial', input, {
        parentKey: experiment?.name_key ?? undefined,
        arnIn: component ? repos.lineageTrialMembers.trialsOfComponent(component.arn) : undefined,
      });
      const { rows, NextToken } = await trials.list(ctx, 'ListTrials', input, query);
      const TrialSummaries = rows.map((row): TrialSummary => {
        const { TrialName, Source, DisplayName, ...times } = trials.summary(row, [
          'TrialName',
          'Source',
          'DisplayName',
        ]);
        return { TrialArn: row.arn, TrialName, DisplayName: DisplayName ?? TrialName, TrialSource: Source, ...times };
      });
      return { TrialSummaries, NextToken };
    },

    async updateTrial(input: UpdateTrialRequest, ctx: RequestContext): Promise<UpdateTrialResponse> {
      const row = await trials.update(ctx, input.TrialName, (d) => {
        if (input.DisplayName !== undefined) d.DisplayName = input.DisplayName;
      });
      return { TrialArn: row.arn };
    },

    async deleteTrial(input: DeleteTrialRequest, ctx: RequestContext): Promise<DeleteTrialResponse> {
      const row = await trials.delete(ctx, input.TrialName, async (tx, row) => {
        // "Before you can delete the trial, you must disassociate all trial components from it."
        if ((await repos.lineageTrialMembers.countForTrial(tx, row.arn)) > 0) {
          throw new ValidationException(`Trial '${row.arn}' still has trial components; disassociate them first.`);
        }
      });
      return { TrialArn: row.arn };
    },
  };
}
