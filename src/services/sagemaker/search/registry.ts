// The resource types Search serves, one declaration each: which ARNs are theirs, the SearchRecord
// member they answer in, and how their Describe-shaped documents are read (by the Describe
// handlers' own functions). Tags, Parents and SourceDetail are added by the search service.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_SearchRecord.html
import { type Partition, parseArn } from '../../../domain/arn.js';
import type { ResourceType, SearchRecord } from '../../../generated/sagemaker/shapes.js';
import type { EntityKind } from '../../../lineage/entities.js';
import type { Queryable } from '../../../storage/db/types.js';
import type { LineageEntityRow } from '../../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../../common/deps.js';
import { endpointDocument } from '../endpoints.js';
import { experimentDocument } from '../experiments.js';
import { modelPackageDocument } from '../model-packages.js';
import { modelPackageGroupDocument } from '../model-package-groups.js';
import { processingJobDocument } from '../processing-jobs.js';
import { pipelineExecutionDocument } from '../pipeline-executions.js';
import { pipelineDocument } from '../pipelines.js';
import { trainingJobDocument } from '../training-jobs.js';
import { transformJobDocument } from '../transform-jobs.js';
import { tuningJobDocument } from '../tuning-jobs.js';
import { trialComponentDocument } from '../trial-components.js';
import { trialDocument } from '../trials.js';

export type Doc = Record<string, unknown>;

export interface SearchableType {
  /** The Search Resource; transform and processing jobs are not one, they appear only as SourceDetail. */
  readonly resource: ResourceType | 'TransformJob' | 'ProcessingJob';
  readonly record: keyof SearchRecord | 'TransformJob' | 'ProcessingJob';
  /** The resource type in its ARNs (`arn:...:<arnType>/<name>`). */
  readonly arnType: string;
  /** Whether an ARN's resource part is this type's, when types share an arnType (pipelines and their executions). */
  readonly owns?: (resource: string) => boolean;
  /** Describe-shaped documents of those of `arns` that exist, by ARN (all ARNs of this type and partition). */
  load(q: Queryable, p: Partition, arns: readonly string[]): Promise<Map<string, Doc>>;
  /** Trial components: the trials and experiments they belong to. */
  readonly parents?: boolean;
}

/** A lineage kind's documents, read in one batch. */
function entityType(
  deps: ServiceDeps,
  resource: ResourceType,
  record: keyof SearchRecord,
  kind: EntityKind,
  describe: (row: LineageEntityRow) => object,
): SearchableType {
  return {
    resource,
    record,
    arnType: kind,
    async load(q, p, arns) {
      const rows = await deps.repos.lineageEntities.getMany(q, p, arns);
      return new Map(rows.filter((r) => r.kind === kind).map((r) => [r.arn, describe(r) as Doc]));
    },
  };
}

/** A resource type whose rows are read one ARN at a time (pages and index batches are small). */
function eachType<Row>(
  resource: SearchableType['resource'],
  record: SearchableType['record'],
  arnType: string,
  find: (q: Queryable, p: Partition, arn: string) => Promise<Row | undefined>,
  describe: (row: Row) => object,
): SearchableType {
  return {
    resource,
    record,
    arnType,
    async load(q, p, arns) {
      const out = new Map<string, Doc>();
      for (const arn of arns) {
        const row = await find(q, p, arn);
        if (row) out.set(arn, describe(row) as Doc);
      }
      return out;
    },
  };
}

/** The name part of an ARN. */
const nameOf = (arn: string) => parseArn(arn)?.resource ?? '';

export function searchableTypes(deps: ServiceDeps): SearchableType[] {
  const { repos } = deps;
  return [
    entityType(deps, 'Experiment', 'Experiment', 'experiment', experimentDocument),
    entityType(deps, 'ExperimentTrial', 'Trial', 'experiment-trial', trialDocument),
    {
      ...entityType(
        deps,
        'ExperimentTrialComponent',
        'TrialComponent',
        'experiment-trial-component',
        trialComponentDocument,
      ),
      parents: true,
    },
    eachType(
      'ModelPackage',
      'ModelPackage',
      'model-package',
      (q, p, arn) => repos.modelPackages.getByArn(q, p, arn),
      modelPackageDocument,
    ),
    eachType(
      'ModelPackageGroup',
      'ModelPackageGroup',
      'model-package-group',
      async (q, p, arn) => {
        const row = await repos.modelPackageGroups.get(q, p, nameOf(arn));
        return row?.arn === arn ? row : undefined;
      },
      modelPackageGroupDocument,
    ),
    eachType(
      'Endpoint',
      'Endpoint',
      'endpoint',
      (q, p, arn) => repos.endpoints.get(q, p, nameOf(arn).toLowerCase()),
      endpointDocument,
    ),
    eachType(
      'TrainingJob',
      'TrainingJob',
      'training-job',
      (q, p, arn) => repos.trainingJobs.get(q, p, nameOf(arn).toLowerCase()),
      trainingJobDocument,
    ),
    eachType(
      'HyperParameterTuningJob',
      'HyperParameterTuningJob',
      'hyper-parameter-tuning-job',
      (q, p, arn) => repos.tuningJobs.get(q, p, nameOf(arn).toLowerCase()),
      (row) => tuningJobDocument(row),
    ),
    // Read only for a trial component's SourceDetail (the Search API has no such Resource).
    eachType(
      'TransformJob',
      'TransformJob',
      'transform-job',
      (q, p, arn) => repos.transformJobs.get(q, p, nameOf(arn).toLowerCase()),
      transformJobDocument,
    ),
    eachType(
      'ProcessingJob',
      'ProcessingJob',
      'processing-job',
      (q, p, arn) => repos.processingJobs.get(q, p, nameOf(arn).toLowerCase()),
      processingJobDocument,
    ),
    // Pipelines (`pipeline/<name>`) and their executions (`pipeline/<name>/execution/<id>`).
    {
      ...eachType(
        'Pipeline',
        'Pipeline',
        'pipeline',
        (q, p, arn) => repos.pipelines.get(q, p, nameOf(arn).toLowerCase()),
        pipelineDocument,
      ),
      owns: (resource) => !resource.includes('/'),
    },
    {
      ...eachType(
        'PipelineExecution',
        'PipelineExecution',
        'pipeline',
        (q, p, arn) => repos.pipelineExecutions.getByArn(q, p, arn),
        pipelineExecutionDocument,
      ),
      owns: (resource) => resource.includes('/execution/'),
    },
  ];
}
