// What every service handler may use: the database, page tokens and the repositories.
import type { PageTokens } from '../../domain/page-token.js';
import type { Database } from '../../storage/db/types.js';
import { LineageAssociationRepository } from '../../storage/repositories/lineage-associations.js';
import { LineageEntityRepository } from '../../storage/repositories/lineage-entities.js';
import { LineageTrialMemberRepository } from '../../storage/repositories/lineage-trial-members.js';
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
  readonly lineageEntities: LineageEntityRepository;
  readonly lineageAssociations: LineageAssociationRepository;
  readonly lineageTrialMembers: LineageTrialMemberRepository;
}

export function createRepositories(): Repositories {
  return {
    modelPackageGroups: new ModelPackageGroupRepository(),
    tags: new TagRepository(),
    lineageEntities: new LineageEntityRepository(),
    lineageAssociations: new LineageAssociationRepository(),
    lineageTrialMembers: new LineageTrialMemberRepository(),
  };
}
