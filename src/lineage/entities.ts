// Lineage entity kinds, their ARNs and the keys we index them by (no I/O here).
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-entities.html
import { createHash } from 'node:crypto';
import { parseArn, type Partition } from '../domain/arn.js';

/** The ARN resource type of each kind of tracking entity; also the `kind` column of lineage_entities. */
export type EntityKind =
  | 'artifact'
  | 'action'
  | 'context'
  | 'experiment'
  | 'experiment-trial'
  | 'experiment-trial-component';

export const ENTITY_KINDS: readonly EntityKind[] = [
  'artifact',
  'action',
  'context',
  'experiment',
  'experiment-trial',
  'experiment-trial-component',
];

/** Vertex.LineageType of the kinds QueryLineage reports (experiments and trials have none). */
export type LineageType = 'Artifact' | 'Action' | 'Context' | 'TrialComponent';

export const LINEAGE_TYPE: Partial<Record<EntityKind, LineageType>> = {
  artifact: 'Artifact',
  action: 'Action',
  context: 'Context',
  'experiment-trial-component': 'TrialComponent',
};

/** The word SageMaker uses for a kind in its messages ("Artifact 'arn...' does not exist."). */
export const KIND_LABEL: Record<EntityKind, string> = {
  artifact: 'Artifact',
  action: 'Action',
  context: 'Context',
  experiment: 'Experiment',
  'experiment-trial': 'Trial',
  'experiment-trial-component': 'TrialComponent',
};

/** Kinds that may be either end of an association (the model's AssociationEntityArn pattern). */
export const ASSOCIABLE: ReadonlySet<EntityKind> = new Set<EntityKind>([
  'artifact',
  'action',
  'context',
  'experiment',
  'experiment-trial-component',
]);

/** Experiment entities: an association may not join two of them (AddAssociation). */
export const EXPERIMENT_KINDS: ReadonlySet<EntityKind> = new Set<EntityKind>([
  'experiment',
  'experiment-trial',
  'experiment-trial-component',
]);

export function isEntityKind(s: string): s is EntityKind {
  return (ENTITY_KINDS as readonly string[]).includes(s);
}

/**
 * ARN of a named entity. SageMaker lower-cases the name in lineage and experiment ARNs (a context
 * named "MyContext" is `context/mycontext`), and names are unique regardless of case.
 */
export function entityArn(p: Partition, kind: EntityKind, nameOrId: string): string {
  return `arn:aws:sagemaker:${p.region}:${p.accountId}:${kind}/${nameOrId.toLowerCase()}`;
}

/** The kind and name (or artifact id) an ARN names in the caller's partition, or undefined. */
export function parseEntityArn(p: Partition, arn: string): { kind: EntityKind; resource: string } | undefined {
  const a = parseArn(arn);
  if (a?.service !== 'sagemaker' || a.accountId !== p.accountId || a.region !== p.region) return undefined;
  if (!isEntityKind(a.resourceType) || a.resource.includes('/')) return undefined;
  return { kind: a.resourceType, resource: a.resource };
}

/** Name or ARN (ExperimentEntityNameOrArn, ContextNameOrArn) → the name, if it is of this kind and ours. */
export function nameFromNameOrArn(p: Partition, kind: EntityKind, value: string): string | undefined {
  if (!value.startsWith('arn:')) return value;
  const e = parseEntityArn(p, value);
  return e && e.kind === kind ? e.resource : undefined;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Index key of a SourceUri (or a trial component's SourceArn): URIs are up to 2 KiB, keys are 64 chars. */
export function sourceKey(uri: string): string {
  return sha256(uri);
}

export interface ArtifactSourceType {
  readonly SourceIdType: string;
  readonly Value: string;
}

/**
 * What makes an artifact unique: its SourceUri and SourceTypes (the same S3 URI with another ETag
 * is another artifact). "There can be only one artifact with a unique SourceUri."
 */
export function artifactSourceKey(uri: string, types: readonly ArtifactSourceType[] = []): string {
  const canon = [...types].map((t) => [t.SourceIdType, t.Value]).sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1));
  return sha256(JSON.stringify([uri, canon]));
}

/**
 * The lineage type of a trial component is its job type, from the source SageMaker recorded
 * (`SageMakerTrainingJob` → `TrainingJob`); components created through the API have none.
 */
export function trialComponentType(sourceType: string | undefined): string | null {
  if (!sourceType) return null;
  return sourceType.startsWith('SageMaker') ? sourceType.slice('SageMaker'.length) : sourceType;
}
