// CreateTrialComponent, DescribeTrialComponent, ListTrialComponents, UpdateTrialComponent,
// DeleteTrialComponent, AssociateTrialComponent, DisassociateTrialComponent.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateTrialComponent.html
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import type {
  AssociateTrialComponentRequest,
  AssociateTrialComponentResponse,
  CreateTrialComponentRequest,
  CreateTrialComponentResponse,
  DeleteTrialComponentRequest,
  DeleteTrialComponentResponse,
  DescribeTrialComponentRequest,
  DescribeTrialComponentResponse,
  DisassociateTrialComponentRequest,
  DisassociateTrialComponentResponse,
  ListTrialComponentsRequest,
  ListTrialComponentsResponse,
  MetadataProperties,
  TrialComponentArtifact,
  TrialComponentParameterValue,
  TrialComponentSource,
  TrialComponentStatus,
  TrialComponentSummary,
  UpdateTrialComponentRequest,
  UpdateTrialComponentResponse,
} from '../../generated/sagemaker/shapes.js';
import { entityArn, sourceKey, trialComponentType } from '../../lineage/entities.js';
import type { Queryable } from '../../storage/db/types.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { StoredMetricSummary } from '../../lineage/job-recorder.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import { audit } from '../common/resource-kind.js';
import {
  entityKind,
  type EntityKindHandle,
  entityQuery,
  mergeMap,
  NO_USER,
  parseDoc,
  toDate,
} from './lineage-common.js';

/** Limits of the model's TrialComponentParameters and TrialComponentArtifacts maps. */
const MAX_PARAMETERS = 300;
const MAX_ARTIFACTS = 60;

interface TrialComponentDoc {
  TrialComponentName: string;
  DisplayName?: string;
  Status?: TrialComponentStatus;
  /** Epoch ms. */
  StartTime?: number;
  EndTime?: number;
  Parameters?: Record<string, TrialComponentParameterValue>;
  InputArtifacts?: Record<string, TrialComponentArtifact>;
  OutputArtifacts?: Record<string, TrialComponentArtifact>;
  MetadataProperties?: MetadataProperties;
  /** Set only for components SageMaker creates for its jobs. */
  Source?: TrialComponentSource;
  Metrics?: StoredMetricSummary[];
}

function summary(components: EntityKindHandle<TrialComponentDoc>, row: LineageEntityRow): TrialComponentSummary {
  const d = components.doc(row);
  return {
    TrialComponentName: d.TrialComponentName,
    TrialComponentArn: row.arn,
    DisplayName: d.DisplayName ?? d.TrialComponentName,
    TrialComponentSource: d.Source,
    Status: d.Status,
    StartTime: toDate(d.StartTime),
    EndTime: toDate(d.EndTime),
    CreationTime: toDate(row.created_at),
    CreatedBy: NO_USER,
    LastModifiedTime: toDate(row.last_modified_at),
    LastModifiedBy: NO_USER,
  };
}

/** DescribeTrialComponent's answer for a stored trial component (also the base of Search's record). */
export function trialComponentDocument(row: LineageEntityRow): DescribeTrialComponentResponse {
  const d = parseDoc<TrialComponentDoc>(row);
  return {
    TrialComponentName: d.TrialComponentName,
    TrialComponentArn: row.arn,
    DisplayName: d.DisplayName ?? d.TrialComponentName,
    Source: d.Source,
    Status: d.Status,
    StartTime: toDate(d.StartTime),
    EndTime: toDate(d.EndTime),
    ...audit(row),
    // Empty maps, not absent ones, as SageMaker answers (the SDK's ExperimentAnalytics calls .items() on them).
    Parameters: d.Parameters ?? {},
    InputArtifacts: d.InputArtifacts ?? {},
    OutputArtifacts: d.OutputArtifacts ?? {},
    MetadataProperties: d.MetadataProperties,
    // SumOfSquares is kept only to update StdDev (SageMaker Metrics, src/services/sagemaker-metrics).
    Metrics: d.Metrics?.map(({ SumOfSquares: _, ...m }: StoredMetricSummary & { SumOfSquares?: number }) => ({
      ...m,
      TimeStamp: toDate(m.TimeStamp),
    })),
    Sources: d.Source ? [d.Source] : undefined,
  };
}

export function trialComponentHandlers(deps: ServiceDeps) {
  const { db, repos } = deps;
  const components = entityKind<TrialComponentDoc>(deps, 'experiment-trial-component', 'name');
  const trials = entityKind(deps, 'experiment-trial', 'name');
  const experiments = entityKind(deps, 'experiment', 'name');
  /** The trial component and the trial that AssociateTrialComponent / DisassociateTrialComponent name. */
  const memberPair = async (
    tx: Queryable,
    ctx: RequestContext,
    input: { TrialComponentName: string; TrialName: string },
  ) => ({
    component: await components.get(tx, ctx, input.TrialComponentName, true),
    trial: await trials.get(tx, ctx, input.TrialName, true),
  });

  return {
    async createTrialComponent(
      input: CreateTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<CreateTrialComponentResponse> {
      const arn = entityArn(ctx, 'experiment-trial-component', input.TrialComponentName);
      const doc: TrialComponentDoc = {
        TrialComponentName: input.TrialComponentName,
        DisplayName: input.DisplayName,
        Status: input.Status,
        StartTime: input.StartTime?.getTime(),
        EndTime: input.EndTime?.getTime(),
        Parameters: input.Parameters,
        InputArtifacts: input.InputArtifacts,
        OutputArtifacts: input.OutputArtifacts,
        MetadataProperties: input.MetadataProperties,
      };
      const draft = {
        arn,
        name: input.TrialComponentName,
        entity_type: trialComponentType(undefined),
        source_key: null,
      };
      await components.create(ctx, draft, doc, input.Tags);
      return { TrialComponentArn: arn };
    },

    async describeTrialComponent(
      input: DescribeTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<DescribeTrialComponentResponse> {
      return trialComponentDocument(await components.get(db, ctx, input.TrialComponentName));
    },

    async listTrialComponents(
      input: ListTrialComponentsRequest,
      ctx: RequestContext,
    ): Promise<ListTrialComponentsResponse> {
      const given = [input.ExperimentName, input.TrialName, input.SourceArn].filter((v) => v !== undefined).length;
      if (given > 1) {
        throw new ValidationException('You can specify only one of ExperimentName, TrialName and SourceArn.');
      }
      let arnIn: { sql: string; params: (string | number)[] } | undefined;
      if (input.ExperimentName !== undefined) {
        const e = await experiments.get(db, ctx, input.ExperimentName);
        arnIn = repos.lineageTrialMembers.componentsOfExperiment(ctx, e.name_key!) as typeof arnIn;
      } else if (input.TrialName !== undefined) {
        const t = await trials.get(db, ctx, input.TrialName);
        arnIn = repos.lineageTrialMembers.componentsOfTrial(t.arn) as typeof arnIn;
      }
      const query = entityQuery('experiment-trial-component', input, {
        sourceKey: input.SourceArn === undefined ? undefined : sourceKey(input.SourceArn),
        arnIn,
      });
      const { rows, NextToken } = await components.list(ctx, 'ListTrialComponents', input, query);
      return { TrialComponentSummaries: rows.map((row) => summary(components, row)), NextToken };
    },

    async updateTrialComponent(
      input: UpdateTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<UpdateTrialComponentResponse> {
      const { arn } = await components.update(ctx, input.TrialComponentName, (d) => {
        if (input.DisplayName !== undefined) d.DisplayName = input.DisplayName;
        if (input.Status !== undefined) d.Status = input.Status;
        if (input.StartTime !== undefined) d.StartTime = input.StartTime.getTime();
        if (input.EndTime !== undefined) d.EndTime = input.EndTime.getTime();
        // New values replace those of the same key; the *ToRemove lists take keys out.
        d.Parameters = mergeMap(d.Parameters, input.Parameters, input.ParametersToRemove, MAX_PARAMETERS, 'parameters');
        d.InputArtifacts = mergeMap(
          d.InputArtifacts,
          input.InputArtifacts,
          input.InputArtifactsToRemove,
          MAX_ARTIFACTS,
          'input artifacts',
        );
        d.OutputArtifacts = mergeMap(
          d.OutputArtifacts,
          input.OutputArtifacts,
          input.OutputArtifactsToRemove,
          MAX_ARTIFACTS,
          'output artifacts',
        );
      });
      return { TrialComponentArn: arn };
    },

    async deleteTrialComponent(
      input: DeleteTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<DeleteTrialComponentResponse> {
      const { arn } = await components.delete(ctx, input.TrialComponentName, async (tx, row) => {
        // "Before you can delete the component, you must disassociate the component from all trials."
        if ((await repos.lineageTrialMembers.countForComponent(tx, row.arn)) > 0) {
          throw new ValidationException(
            `TrialComponent '${row.arn}' is associated with trials; disassociate it first.`,
          );
        }
      });
      return { TrialComponentArn: arn };
    },

    async associateTrialComponent(
      input: AssociateTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<AssociateTrialComponentResponse> {
      return db.transaction(async (tx) => {
        const { component, trial } = await memberPair(tx, ctx, input);
        // Associating again succeeds and changes nothing, as SageMaker answers it: the SDK's Run
        // and load_run associate a run's component with its trial whenever they open it.
        if (!(await repos.lineageTrialMembers.has(tx, trial.arn, component.arn))) {
          await repos.lineageTrialMembers.add(tx, trial.arn, component.arn, ctx.receivedAt);
        }
        return { TrialComponentArn: component.arn, TrialArn: trial.arn };
      });
    },

    async disassociateTrialComponent(
      input: DisassociateTrialComponentRequest,
      ctx: RequestContext,
    ): Promise<DisassociateTrialComponentResponse> {
      return db.transaction(async (tx) => {
        const { component, trial } = await memberPair(tx, ctx, input);
        if (!(await repos.lineageTrialMembers.remove(tx, trial.arn, component.arn))) {
          throw new ResourceNotFound(`TrialComponent '${component.arn}' is not associated with Trial '${trial.arn}'.`);
        }
        return { TrialComponentArn: component.arn, TrialArn: trial.arn };
      });
    },
  };
}
