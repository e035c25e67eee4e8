// What every service handler may use: the database, page tokens and the repositories.
import type { PageTokens } from '../../domain/page-token.js';
import type { Partition } from '../../domain/arn.js';
import type { Database, Queryable } from '../../storage/db/types.js';
import { LineageAssociationRepository } from '../../storage/repositories/lineage-associations.js';
import { LineageEntityRepository } from '../../storage/repositories/lineage-entities.js';
import { LineageTrialMemberRepository } from '../../storage/repositories/lineage-trial-members.js';
import { LogRepository } from '../../storage/repositories/log-events.js';
import { ModelPackageGroupRepository } from '../../storage/repositories/model-package-groups.js';
import { ResourceTable, type ResourceRow } from '../../storage/repositories/resource-table.js';
import { SearchIndexRepository } from '../../storage/repositories/search-index.js';
import { TagRepository } from '../../storage/repositories/tags.js';
import { TuningChildRepository } from '../../storage/repositories/tuning-children.js';

export interface ServiceDeps {
  readonly db: Database;
  readonly tokens: PageTokens;
  readonly repos: Repositories;
  /** Automatic lineage, recorded inside the transaction of the operation that causes it. */
  readonly lineage?: LineageHooks;
}

/** What the registry and hosting tell lineage tracking (see src/lineage/). */
export interface LineageHooks {
  modelPackageGroupCreated(
    tx: Queryable,
    p: Partition,
    g: { name: string; arn: string; createdAt: number },
  ): Promise<void>;
  modelPackageCreated(
    tx: Queryable,
    p: Partition,
    pkg: ModelPackageRow,
    containers: ReadonlyArray<{ Image?: string; ModelDataUrl?: string }>,
  ): Promise<void>;
  approvalChanged(tx: Queryable, p: Partition, pkg: ModelPackageRow, approval: string): Promise<void>;
  endpointDeployed(
    tx: Queryable,
    p: Partition,
    e: {
      name: string;
      arn: string;
      modelPackageArns: string[];
      containers: Array<{ image: string; modelDataUrl?: string }>;
      /** CreationTime of the endpoint: an endpoint created again under its old name is a new incarnation. */
      createdAt: number;
      at: number;
    },
  ): Promise<void>;
}

export interface ModelPackageRow extends ResourceRow {
  readonly group_key: string | null;
  readonly version: number | null;
  readonly approval: string;
  readonly package_type: 'Versioned' | 'Unversioned';
  readonly client_token: string | null;
}

/** A pipeline execution's row: its pipeline and the ClientRequestToken that started it (issue 32). */
export interface PipelineExecutionRow extends ResourceRow {
  readonly pipeline_key: string;
  readonly client_token: string | null;
}

export interface Repositories {
  readonly modelPackageGroups: ModelPackageGroupRepository;
  readonly tags: TagRepository;
  readonly modelPackages: ResourceTable<ModelPackageRow>;
  readonly models: ResourceTable;
  readonly endpointConfigs: ResourceTable;
  readonly endpoints: ResourceTable;
  readonly trainingJobs: ResourceTable;
  readonly transformJobs: ResourceTable;
  readonly processingJobs: ResourceTable;
  readonly pipelines: ResourceTable;
  readonly pipelineExecutions: ResourceTable<PipelineExecutionRow>;
  readonly tuningJobs: ResourceTable;
  readonly tuningChildren: TuningChildRepository;
  readonly lineageEntities: LineageEntityRepository;
  readonly lineageAssociations: LineageAssociationRepository;
  readonly lineageTrialMembers: LineageTrialMemberRepository;
  readonly logs: LogRepository;
  readonly searchIndex: SearchIndexRepository;
}

export function createRepositories(): Repositories {
  return {
    modelPackageGroups: new ModelPackageGroupRepository(),
    tags: new TagRepository(),
    modelPackages: new ResourceTable<ModelPackageRow>('model_packages', [
      'group_key',
      'version',
      'approval',
      'package_type',
      'client_token',
    ]),
    models: new ResourceTable('models'),
    endpointConfigs: new ResourceTable('endpoint_configs'),
    endpoints: new ResourceTable('endpoints'),
    trainingJobs: new ResourceTable('training_jobs'),
    transformJobs: new ResourceTable('transform_jobs'),
    processingJobs: new ResourceTable('processing_jobs'),
    pipelines: new ResourceTable('pipelines'),
    pipelineExecutions: new ResourceTable<PipelineExecutionRow>('pipeline_executions', [
      'pipeline_key',
      'client_token',
    ]),
    tuningJobs: new ResourceTable('tuning_jobs'),
    tuningChildren: new TuningChildRepository(),
    lineageEntities: new LineageEntityRepository(),
    lineageAssociations: new LineageAssociationRepository(),
    lineageTrialMembers: new LineageTrialMemberRepository(),
    logs: new LogRepository(),
    searchIndex: new SearchIndexRepository(),
  };
}
