// The SageMaker control plane: every served operation, composed from one module per resource.
import type { SageMakerHandlers } from '../../generated/sagemaker/handlers.js';
import type { ServiceDeps } from '../common/deps.js';
import { modelPackageGroupHandlers } from './model-package-groups.js';
import { tagHandlers, type ResourceExists } from './tags.js';
import { experimentHandlers } from './experiments.js';
import { lineageActionHandlers } from './lineage-actions.js';
import { lineageArtifactHandlers } from './lineage-artifacts.js';
import { lineageAssociationHandlers } from './lineage-associations.js';
import { lineageTaggable } from './lineage-common.js';
import { lineageContextHandlers } from './lineage-contexts.js';
import { queryLineageHandlers } from './query-lineage.js';
import { trialComponentHandlers } from './trial-components.js';
import { trialHandlers } from './trials.js';

export function createSageMakerHandlers(deps: ServiceDeps): SageMakerHandlers {
  const { repos } = deps;
  const taggable = new Map<string, ResourceExists>([
    ['model-package-group', async (q, p, name) => (await repos.modelPackageGroups.get(q, p, name)) !== undefined],
    ...lineageTaggable(deps),
  ]);
  return {
    ...modelPackageGroupHandlers(deps),
    ...lineageArtifactHandlers(deps),
    ...lineageActionHandlers(deps),
    ...lineageContextHandlers(deps),
    ...lineageAssociationHandlers(deps),
    ...queryLineageHandlers(deps),
    ...experimentHandlers(deps),
    ...trialHandlers(deps),
    ...trialComponentHandlers(deps),
    ...tagHandlers(deps, taggable),
  };
}
