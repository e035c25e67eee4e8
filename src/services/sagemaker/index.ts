// The SageMaker control plane: every served operation, composed from one module per resource.
import { sagemakerArn } from '../../domain/arn.js';
import type { SageMakerHandlers } from '../../generated/sagemaker/handlers.js';
import type { ServiceDeps } from '../common/deps.js';
import type { EndpointDeployments } from './endpoint-deployments.js';
import { endpointConfigHandlers } from './endpoint-configs.js';
import { endpointHandlers } from './endpoints.js';
import { endpointWeightHandlers } from './endpoint-weights.js';
import { experimentHandlers } from './experiments.js';
import { lineageActionHandlers } from './lineage-actions.js';
import { lineageArtifactHandlers } from './lineage-artifacts.js';
import { lineageAssociationHandlers } from './lineage-associations.js';
import { lineageTaggable } from './lineage-common.js';
import { lineageContextHandlers } from './lineage-contexts.js';
import { findModelPackage, modelPackageHandlers } from './model-packages.js';
import { modelPackageGroupHandlers } from './model-package-groups.js';
import { modelHandlers } from './models.js';
import { queryLineageHandlers } from './query-lineage.js';
import { searchHandlers } from './search/search.js';
import { tagHandlers, type ResourceExists } from './tags.js';
import { trialComponentHandlers } from './trial-components.js';
import { processingJobHandlers } from './processing-jobs.js';
import { pipelineExecutionHandlers } from './pipeline-executions.js';
import { type PipelineService, pipelineHandlers } from './pipelines.js';
import type { JobService } from './table-jobs.js';
import { trainingJobHandlers } from './training-jobs.js';
import { transformJobHandlers } from './transform-jobs.js';
import type { Tuning } from '../../tuning/tuning.js';
import { tuningJobHandlers } from './tuning-jobs.js';
import { trialHandlers } from './trials.js';

export function createSageMakerHandlers(
  deps: ServiceDeps,
  deployments: EndpointDeployments,
  training: JobService,
  batch: { readonly transform: JobService; readonly processing: JobService },
  pipelines: PipelineService,
  tuning: Tuning,
): SageMakerHandlers {
  const { repos } = deps;
  // Resource types AddTags/ListTags/DeleteTags accept, and how to tell that one exists.
  const taggable = new Map<string, ResourceExists>([
    ['model-package-group', async (q, p, name) => (await repos.modelPackageGroups.get(q, p, name))?.arn],
    ['model-package', async (q, p, name) => (await findModelPackage(deps, q, p, name))?.arn],
    ['model', async (q, p, name) => (await repos.models.get(q, p, name.toLowerCase()))?.arn],
    ['endpoint-config', async (q, p, name) => (await repos.endpointConfigs.get(q, p, name.toLowerCase()))?.arn],
    ['endpoint', async (q, p, name) => (await repos.endpoints.get(q, p, name.toLowerCase()))?.arn],
    ['training-job', async (q, p, name) => (await repos.trainingJobs.get(q, p, name.toLowerCase()))?.arn],
    ['transform-job', async (q, p, name) => (await repos.transformJobs.get(q, p, name.toLowerCase()))?.arn],
    ['processing-job', async (q, p, name) => (await repos.processingJobs.get(q, p, name.toLowerCase()))?.arn],
    // A pipeline (`pipeline/<name>`) or one of its executions (`pipeline/<name>/execution/<id>`).
    [
      'pipeline',
      async (q, p, resource) =>
        resource.includes('/')
          ? (await repos.pipelineExecutions.getByArn(q, p, sagemakerArn(p, 'pipeline', resource)))?.arn
          : (await repos.pipelines.get(q, p, resource.toLowerCase()))?.arn,
    ],
    ['hyper-parameter-tuning-job', async (q, p, name) => (await repos.tuningJobs.get(q, p, name.toLowerCase()))?.arn],
    ...lineageTaggable(deps),
  ]);
  return {
    ...modelPackageGroupHandlers(deps),
    ...modelPackageHandlers(deps),
    ...modelHandlers(deps),
    ...endpointConfigHandlers(deps),
    ...endpointHandlers(deps, deployments),
    ...endpointWeightHandlers(deps, deployments),
    ...lineageArtifactHandlers(deps),
    ...lineageActionHandlers(deps),
    ...lineageContextHandlers(deps),
    ...lineageAssociationHandlers(deps),
    ...queryLineageHandlers(deps),
    ...experimentHandlers(deps),
    ...trialHandlers(deps),
    ...trialComponentHandlers(deps),
    ...trainingJobHandlers(deps, training),
    ...transformJobHandlers(deps, batch.transform),
    ...processingJobHandlers(deps, batch.processing),
    ...pipelineHandlers(deps, pipelines),
    ...pipelineExecutionHandlers(deps, pipelines),
    ...tuningJobHandlers(deps, tuning),
    ...tagHandlers(deps, taggable),
    search: searchHandlers(deps).search,
  };
}
