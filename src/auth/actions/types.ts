// What an authorization check asks: one IAM action on one or more resource ARNs.
export interface Partition {
  readonly accountId: string;
  readonly region: string;
}

export interface ActionRequest {
  /** `service:Operation`, e.g. `sagemaker:CreateEndpoint`. */
  readonly action: string;
  /** Every resource the operation touches; each must be allowed. `*` when the action has no resource. */
  readonly resources: readonly string[];
}

/** Builds the action and resources of one operation from its (validated) input. */
export type ActionTable = (operation: string, input: Record<string, unknown>, p: Partition) => ActionRequest;
