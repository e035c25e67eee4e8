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
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import { deleteEntity, insertNew, listEntities, mustGetByName, NO_USER, parseDoc, toDate } from './lineage-common.js';

interface TrialDoc {
  TrialName: string;
  DisplayName?: string;
  ExperimentName: string;
  MetadataProperties?: MetadataProperties;
  Source?: TrialSource;
}

function summary(row: LineageEntityRow): TrialSummary {
  const d = parseDoc<TrialDoc>(row);
  return {
    TrialArn: row.arn,
    TrialName: d.TrialName,
    DisplayName: d.DisplayName ?? d.TrialName,
    TrialSource: d.Source,
    CreationTime: toDate(row.created_at),
    LastModifiedTime: toDate(row.last_modified_at),
  };
}

export function trialHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  return {
    async createTrial(input: CreateTrialRequest, ctx: RequestContext): Promise<CreateTrialResponse> {
      const arn = entityArn(ctx, 'experiment-trial', input.TrialName);
      const experiment = await mustGetByName(db, deps, ctx, 'experiment', input.ExperimentName);
      const doc: TrialDoc = {
        TrialName: input.TrialName,
        DisplayName: input.DisplayName,
        ExperimentName: experiment.name!,
        MetadataProperties: input.MetadataProperties,
      };
      await insertNew(
        deps,
        ctx,
        {
          arn,
          kind: 'experiment-trial',
          name: input.TrialName,
          entity_type: null,
          source_key: null,
          parent_key: experiment.name_key,
          doc,
        },
        input.Tags,
        // The experiment may have been deleted since it was looked up: check again inside.
        async (tx) => {
          await mustGetByName(tx, deps, ctx, 'experiment', input.ExperimentName, true);
        },
      );
      return { TrialArn: arn };
    },

    async describeTrial(input: DescribeTrialRequest, ctx: RequestContext): Promise<DescribeTrialResponse> {
      const row = await mustGetByName(db, deps, ctx, 'experiment-trial', input.TrialName);
      const d = parseDoc<TrialDoc>(row);
      return {
        TrialName: d.TrialName,
        TrialArn: row.arn,
        DisplayName: d.DisplayName ?? d.TrialName,
        ExperimentName: d.ExperimentName,
        Source: d.Source,
        CreationTime: toDate(row.created_at),
        CreatedBy: NO_USER,
        LastModifiedTime: toDate(row.last_modified_at),
        LastModifiedBy: NO_USER,
        MetadataProperties: d.MetadataProperties,
      };
    },

    async listTrials(input: ListTrialsRequest, ctx: RequestContext): Promise<ListTrialsResponse> {
      const experiment =
        input.ExperimentName === undefined
          ? undefined
          : await mustGetByName(db, deps, ctx, 'experiment', input.ExperimentName);
      const component =
        input.TrialComponentName === undefined
          ? undefined
          : await mustGetByName(db, deps, ctx, 'experiment-trial-component', input.TrialComponentName);
      const { rows, NextToken } = await listEntities(deps, ctx, 'ListTrials', input, {
        kind: 'experiment-trial',
        parentKey: experiment?.name_key ?? undefined,
        arnIn: component ? repos.lineageTrialMembers.trialsOfComponent(component.arn) : undefined,
      });
      return { TrialSummaries: rows.map(summary), NextToken };
    },

    async updateTrial(input: UpdateTrialRequest, ctx: RequestContext): Promise<UpdateTrialResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'experiment-trial', input.TrialName, true);
        const d = parseDoc<TrialDoc>(row);
        if (input.DisplayName !== undefined) d.DisplayName = input.DisplayName;
        await repos.lineageEntities.update(tx, row.arn, { doc: JSON.stringify(d), last_modified_at: ctx.receivedAt });
        return row.arn;
      });
      return { TrialArn: arn };
    },

    async deleteTrial(input: DeleteTrialRequest, ctx: RequestContext): Promise<DeleteTrialResponse> {
      const arn = await db.transaction(async (tx) => {
        const row = await mustGetByName(tx, deps, ctx, 'experiment-trial', input.TrialName, true);
        // "Before you can delete the trial, you must disassociate all trial components from it."
        if ((await repos.lineageTrialMembers.countForTrial(tx, row.arn)) > 0) {
          throw new ValidationException(`Trial '${row.arn}' still has trial components; disassociate them first.`);
        }
        await deleteEntity(tx, deps, row);
        return row.arn;
      });
      return { TrialArn: arn };
    },
  };
}
