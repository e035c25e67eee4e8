// Writes shared by the lineage API handlers and the automatic recorder: an association row with
// both ends' types and names copied in, and generated names that do not collide.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AddAssociation.html
import type { Partition } from '../domain/arn.js';
import type { Queryable } from '../storage/db/types.js';
import type { LineageAssociationRepository } from '../storage/repositories/lineage-associations.js';
import type { LineageEntityRepository, LineageEntityRow } from '../storage/repositories/lineage-entities.js';
import { type EntityKind, LINEAGE_TYPE } from './entities.js';

/** Inserts source → destination; the caller has checked both exist and the pair is new. */
export async function insertAssociation(
  q: Queryable,
  associations: LineageAssociationRepository,
  p: Partition,
  source: LineageEntityRow,
  destination: LineageEntityRow,
  associationType: string | null,
  at: number,
): Promise<void> {
  await associations.insert(q, p, {
    source_arn: source.arn,
    destination_arn: destination.arn,
    association_type: associationType,
    source_type: source.entity_type ?? '',
    destination_type: destination.entity_type ?? '',
    source_lineage: LINEAGE_TYPE[source.kind] ?? '',
    destination_lineage: LINEAGE_TYPE[destination.kind] ?? '',
    source_name: source.name,
    destination_name: destination.name,
    created_at: at,
  });
}

/**
 * `base`, or `base-2`, `base-3`... whichever is free among names of `kind` (names are unique per
 * kind regardless of case). Generated names stay within the 120 characters entity names allow.
 */
export async function freeName(
  q: Queryable,
  entities: LineageEntityRepository,
  p: Partition,
  kind: EntityKind,
  base: string,
): Promise<string> {
  const trimmed = base.slice(0, 112).replace(/-+$/, '');
  const taken = await entities.namesLike(q, p, kind, trimmed);
  if (!taken.has(trimmed.toLowerCase())) return trimmed;
  for (let i = 2; ; i++) {
    const candidate = `${trimmed}-${i}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
