// The SageMaker control plane: every served operation, composed from one module per resource.
import type { SageMakerHandlers } from '../../generated/sagemaker/handlers.js';
import type { ServiceDeps } from '../common/deps.js';
import { modelPackageGroupHandlers } from './model-package-groups.js';
import { tagHandlers, type ResourceExists } from './tags.js';

export function createSageMakerHandlers(deps: ServiceDeps): SageMakerHandlers {
  const { repos } = deps;
  const taggable = new Map<string, ResourceExists>([
    ['model-package-group', async (q, p, name) => (await repos.modelPackageGroups.get(q, p, name)) !== undefined],
  ]);
  return {
    ...modelPackageGroupHandlers(deps),
    ...tagHandlers(deps, taggable),
  };
}
