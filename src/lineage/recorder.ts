// The lineage SageMaker records by itself for model package groups, model packages and endpoints,
// written inside the caller's transaction so a resource and its lineage commit (or fail) together.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-auto-creation.html
//
// What is created (types and edge directions as SageMaker writes them; the Python SDK's lineage
// module and tools that read real accounts rely on them):
//   group          Context  ModelGroup  (SourceUri = group ARN, SourceType ARN)
//   package        Artifact Model       (SourceUri = package ARN)  ─AssociatedWith→ ModelGroup context
//   container      Artifact Image (image URI), Artifact Model (ModelDataUrl)  ─ContributedTo→ package artifact
//   approval       Action   Approval    (SourceUri = package ARN; Status follows ModelApprovalStatus)
//                  package artifact ─ContributedTo→ approval action
//   endpoint       Context  Endpoint    (SourceUri = endpoint ARN, SourceType ARN), one per incarnation:
//                  an endpoint deleted and created again under the same name (same ARN) gets a new
//                  context, `<name>-<creation epoch seconds>-aws-endpoint`, and the old one keeps
//                  the old deployments' lineage
//   deployment     Action   ModelDeployment (one per CreateEndpoint/UpdateEndpoint)
//                  model data, image, package artifacts and approval actions ─ContributedTo→ deployment
//                  deployment ─AssociatedWith→ Endpoint context
// One artifact per distinct SourceUri, reused by every package and deployment that names it.
// Nothing here is removed when the resource is deleted: lineage outlives what it describes.
import { randomBytes } from 'node:crypto';
import type { Partition } from '../domain/arn.js';
import type { Queryable } from '../storage/db/types.js';
import { LineageAssociationRepository } from '../storage/repositories/lineage-associations.js';
import { LineageEntityRepository, type LineageEntityRow } from '../storage/repositories/lineage-entities.js';
import { artifactSourceKey, type EntityKind, entityArn, sourceKey } from './entities.js';
import { freeName, insertAssociation } from './graph-writes.js';

const entities = new LineageEntityRepository();

/** The document field that holds each kind's name. */
const NAME_FIELD: Record<EntityKind, string> = {
  artifact: 'ArtifactName',
  action: 'ActionName',
  context: 'ContextName',
  experiment: 'ExperimentName',
  'experiment-trial': 'TrialName',
  'experiment-trial-component': 'TrialComponentName',
};
const associations = new LineageAssociationRepository();

export interface RecordedContainer {
  readonly image: string;
  readonly modelDataUrl?: string;
}

/** ActionStatus of the approval action for each ModelApprovalStatus. */
export function approvalActionStatus(approvalStatus: string): string {
  switch (approvalStatus) {
    case 'Approved':
      return 'Completed';
    case 'Rejected':
      return 'Failed';
    default:
      return 'InProgress';
  }
}

/** A model package group's ModelGroup context (created once per group ARN). */
export async function recordModelPackageGroup(
  tx: Queryable,
  p: Partition,
  g: { groupName: string; groupArn: string; createdAt: number },
): Promise<void> {
  await ensureContext(tx, p, 'ModelGroup', g.groupArn, `${g.groupName}-aws-model-package-group`, g.createdAt);
}

/**
 * A new model package: its artifact, the image and model data artifacts of its containers, its
 * approval action, and (for a versioned package) the link to its group's context. Call it once,
 * when the package is created; later approval changes go to recordApprovalChange.
 */
export async function recordModelPackage(
  tx: Queryable,
  p: Partition,
  m: {
    packageArn: string;
    groupName?: string;
    groupArn?: string;
    version?: number;
    approvalStatus: string;
    containers: readonly RecordedContainer[];
    createdAt: number;
  },
): Promise<void> {
  const at = m.createdAt;
  const pkg = await ensureArtifact(tx, p, 'Model', m.packageArn, at);
  for (const c of m.containers) {
    await link(tx, p, await ensureArtifact(tx, p, 'Image', c.image, at), pkg, 'ContributedTo', at);
    if (c.modelDataUrl)
      await link(tx, p, await ensureArtifact(tx, p, 'Model', c.modelDataUrl, at), pkg, 'ContributedTo', at);
  }
  if (m.groupArn && m.groupName) {
    const group = await ensureContext(tx, p, 'ModelGroup', m.groupArn, `${m.groupName}-aws-model-package-group`, at);
    await link(tx, p, pkg, group, 'AssociatedWith', at);
  }
  const base = `${packageResource(m.packageArn).replaceAll('/', '-')}-aws-approval`;
  let approval = await entities.getBySource(tx, p, 'action', sourceKey(m.packageArn), 'Approval');
  if (!approval) {
    approval = await insertEntity(
      tx,
      p,
      'action',
      await freeName(tx, entities, p, 'action', base),
      'Approval',
      m.packageArn,
      at,
      {
        Source: { SourceUri: m.packageArn, SourceType: 'ARN' },
        ActionType: 'Approval',
        Status: approvalActionStatus(m.approvalStatus),
        Properties: { ModelApprovalStatus: m.approvalStatus },
      },
    );
  }
  await link(tx, p, pkg, approval, 'ContributedTo', at);
}

/** The package's approval action follows its ModelApprovalStatus (UpdateModelPackage). */
export async function recordApprovalChange(
  tx: Queryable,
  p: Partition,
  m: { packageArn: string; approvalStatus: string; at: number },
): Promise<void> {
  const approval = await entities.getBySource(tx, p, 'action', sourceKey(m.packageArn), 'Approval');
  // A package created before lineage was recorded has no approval action: nothing to follow.
  if (!approval) return;
  const doc = JSON.parse(approval.doc);
  doc.Status = approvalActionStatus(m.approvalStatus);
  doc.Properties = { ...doc.Properties, ModelApprovalStatus: m.approvalStatus };
  await entities.update(tx, approval.arn, { doc: JSON.stringify(doc), last_modified_at: m.at });
}

/**
 * One deployment of an endpoint (CreateEndpoint, and each UpdateEndpoint): the endpoint's context
 * (one per incarnation of the endpoint ARN, kept across its deployments), a new ModelDeployment
 * action, and edges from the deployed model data, images and packages into the action and from the
 * action to the context.
 */
export async function recordEndpointDeployment(
  tx: Queryable,
  p: Partition,
  e: {
    endpointName: string;
    endpointArn: string;
    modelPackageArns: readonly string[];
    containers: readonly RecordedContainer[];
    /** The endpoint's CreationTime (ms): which incarnation of the ARN this is. */
    endpointCreatedAt: number;
    at: number;
  },
): Promise<{ contextArn: string; actionArn: string }> {
  const at = e.at;
  const context = await endpointContext(tx, p, e.endpointName, e.endpointArn, e.endpointCreatedAt);
  const name = await freeName(tx, entities, p, 'action', `${e.endpointName}-aws-model-deployment`);
  const action = await insertEntity(tx, p, 'action', name, 'ModelDeployment', e.endpointArn, at, {
    Source: { SourceUri: e.endpointArn, SourceType: 'ARN' },
    ActionType: 'ModelDeployment',
    Status: 'Completed',
  });
  for (const c of e.containers) {
    if (c.modelDataUrl)
      await link(tx, p, await ensureArtifact(tx, p, 'Model', c.modelDataUrl, at), action, 'ContributedTo', at);
    await link(tx, p, await ensureArtifact(tx, p, 'Image', c.image, at), action, 'ContributedTo', at);
  }
  for (const arn of new Set(e.modelPackageArns)) {
    await link(tx, p, await ensureArtifact(tx, p, 'Model', arn, at), action, 'ContributedTo', at);
    // The approval gated this deployment: from the approval action, Descendants reach the endpoint.
    const approval = await entities.getBySource(tx, p, 'action', sourceKey(arn), 'Approval');
    if (approval) await link(tx, p, approval, action, 'ContributedTo', at);
  }
  await link(tx, p, action, context, 'AssociatedWith', at);
  return { contextArn: context.arn, actionArn: action.arn };
}

/** `GROUP/VERSION` or `NAME` from a model package ARN. */
function packageResource(arn: string): string {
  const i = arn.indexOf(':model-package/');
  return i < 0 ? arn.slice(arn.lastIndexOf('/') + 1) : arn.slice(i + ':model-package/'.length);
}

export async function insertEntity(
  tx: Queryable,
  p: Partition,
  kind: EntityKind,
  name: string | null,
  entityType: string,
  sourceUri: string,
  at: number,
  doc: Record<string, unknown>,
  uniqueSource: string | null = null,
): Promise<LineageEntityRow> {
  const nameField = NAME_FIELD[kind];
  const row: LineageEntityRow = {
    arn: entityArn(p, kind, name ?? randomBytes(16).toString('hex')),
    kind,
    name_key: name?.toLowerCase() ?? null,
    name,
    entity_type: entityType,
    source_key: sourceKey(sourceUri),
    unique_source: uniqueSource,
    parent_key: null,
    doc: JSON.stringify(name === null ? doc : { [nameField]: name, ...doc }),
    created_at: at,
    last_modified_at: at,
  };
  await entities.insert(tx, p, row);
  return row;
}

/** The artifact of a SourceUri (without SourceTypes), created with `type` if there is none yet. */
export async function ensureArtifact(tx: Queryable, p: Partition, type: string, uri: string, at: number) {
  const key = artifactSourceKey(uri);
  const existing = await entities.getArtifactBySource(tx, p, key);
  if (existing) return existing;
  return insertEntity(
    tx,
    p,
    'artifact',
    null,
    type,
    uri,
    at,
    { Source: { SourceUri: uri, SourceTypes: [] }, ArtifactType: type },
    key,
  );
}

/**
 * The context of this incarnation of an endpoint: the newest Endpoint context of its ARN, unless that
 * one is older than the endpoint (it belongs to an endpoint deleted before this one was created under
 * the same name); then a new one. SageMaker names contexts apart with a suffix; Slipway keeps the
 * plain `<name>-aws-endpoint` for the first and suffixes the creation time (epoch seconds) after.
 */
async function endpointContext(tx: Queryable, p: Partition, name: string, arn: string, createdAt: number) {
  const newest = await entities.getNewestBySource(tx, p, 'context', sourceKey(arn), 'Endpoint');
  if (newest && newest.created_at >= createdAt) return newest;
  const base = newest ? `${name}-${Math.floor(createdAt / 1000)}-aws-endpoint` : `${name}-aws-endpoint`;
  return insertEntity(tx, p, 'context', await freeName(tx, entities, p, 'context', base), 'Endpoint', arn, createdAt, {
    Source: { SourceUri: arn, SourceType: 'ARN', SourceId: new Date(createdAt).toISOString() },
    ContextType: 'Endpoint',
  });
}

async function ensureContext(tx: Queryable, p: Partition, type: string, arn: string, base: string, at: number) {
  const existing = await entities.getBySource(tx, p, 'context', sourceKey(arn), type);
  if (existing) return existing;
  const name = await freeName(tx, entities, p, 'context', base);
  return insertEntity(tx, p, 'context', name, type, arn, at, {
    Source: { SourceUri: arn, SourceType: 'ARN', SourceId: new Date(at).toISOString() },
    ContextType: type,
  });
}

/** source → destination unless that pair is already linked (recording is idempotent). */
export async function link(
  tx: Queryable,
  p: Partition,
  source: LineageEntityRow,
  destination: LineageEntityRow,
  type: string,
  at: number,
) {
  if (await associations.get(tx, source.arn, destination.arn)) return;
  await insertAssociation(tx, associations, p, source, destination, type, at);
}
