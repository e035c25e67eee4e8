// What every service handler may use: the database, page tokens and the repositories.
import type { PageTokens } from '../../domain/page-token.js';
import type { Database } from '../../storage/db/types.js';
import { ModelPackageGroupRepository } from '../../storage/repositories/model-package-groups.js';
import { TagRepository } from '../../storage/repositories/tags.js';

export interface ServiceDeps {
  readonly db: Database;
  readonly tokens: PageTokens;
  readonly repos: Repositories;
}

export interface Repositories {
  readonly modelPackageGroups: ModelPackageGroupRepository;
  readonly tags: TagRepository;
}

export function createRepositories(): Repositories {
  return { modelPackageGroups: new ModelPackageGroupRepository(), tags: new TagRepository() };
}
