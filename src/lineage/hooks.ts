// The registry and hosting's lineage hooks (ServiceDeps.lineage), answered by the recorder.
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-auto-creation.html
import { sagemakerArn } from '../domain/arn.js';
import type { Partition } from '../domain/arn.js';
import type { Queryable } from '../storage/db/types.js';
import {
  recordApprovalChange,
  recordEndpointDeployment,
  recordModelPackage,
  recordModelPackageGroup,
} from './recorder.js';

/** What the hooks read of a model package row (a structural subset of the registry's ModelPackageRow). */
interface PackageRow {
  readonly arn: string;
  readonly name: string;
  readonly group_key: string | null;
  readonly version: number | null;
  readonly approval: string;
  readonly created_at: number;
}

/**
 * Assignable to ServiceDeps['lineage']; typed structurally here so this module depends on the
 * recorder only: `const deps = { ..., lineage: createLineageHooks() }`.
 */
export interface LineageRecorderHooks {
  modelPackageGroupCreated(
    tx: Queryable,
    p: Partition,
    g: { name: string; arn: string; createdAt: number },
  ): Promise<void>;
  modelPackageCreated(
    tx: Queryable,
    p: Partition,
    pkg: PackageRow,
    containers: ReadonlyArray<{ Image?: string; ModelDataUrl?: string }>,
  ): Promise<void>;
  approvalChanged(tx: Queryable, p: Partition, pkg: PackageRow, approval: string): Promise<void>;
  endpointDeployed(
    tx: Queryable,
    p: Partition,
    e: {
      name: string;
      arn: string;
      modelPackageArns: string[];
      containers: Array<{ image: string; modelDataUrl?: string }>;
      createdAt: number;
      at: number;
    },
  ): Promise<void>;
}

export function createLineageHooks(): LineageRecorderHooks {
  return {
    modelPackageGroupCreated: (tx, p, g) =>
      recordModelPackageGroup(tx, p, { groupName: g.name, groupArn: g.arn, createdAt: g.createdAt }),

    modelPackageCreated: (tx, p, pkg, containers) =>
      recordModelPackage(tx, p, {
        packageArn: pkg.arn,
        // A versioned package's row is named after its group (the ARN keeps the group's case).
        groupName: pkg.group_key !== null ? pkg.name : undefined,
        groupArn: pkg.group_key !== null ? sagemakerArn(p, 'model-package-group', pkg.name) : undefined,
        version: pkg.version ?? undefined,
        approvalStatus: pkg.approval,
        containers: containers.flatMap((c) => (c.Image ? [{ image: c.Image, modelDataUrl: c.ModelDataUrl }] : [])),
        createdAt: pkg.created_at,
      }),

    approvalChanged: (tx, p, pkg, approval) =>
      recordApprovalChange(tx, p, {
        packageArn: pkg.arn,
        approvalStatus: approval,
        // The row is the package as it was before the update; the change happens with this request.
        at: (p as { receivedAt?: number }).receivedAt ?? Date.now(),
      }),

    endpointDeployed: async (tx, p, e) => {
      await recordEndpointDeployment(tx, p, {
        endpointName: e.name,
        endpointArn: e.arn,
        modelPackageArns: e.modelPackageArns,
        containers: e.containers,
        endpointCreatedAt: e.createdAt,
        at: e.at,
      });
    },
  };
}
