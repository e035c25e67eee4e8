// The contract between hosting (control plane, InvokeEndpoint) and inference (artifacts, runtimes,
// serverless worker pools). Hosting deploys a variant and invokes it; it never sees runtimes.
// https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints.html

export interface ContainerSpec {
  /** ECR-style image URI, e.g. `…/sagemaker-xgboost:1.0-1-cpu-py3`. */
  readonly image: string;
  /** `s3://bucket/key` of model.tar.gz (absent for images that carry their model). */
  readonly modelDataUrl?: string;
  readonly environment: Readonly<Record<string, string>>;
  /** The model's EnableNetworkIsolation: its server gets no network at all. */
  readonly networkIsolation?: boolean;
}

export interface ServerlessSpec {
  readonly memorySizeInMB: number;
  readonly maxConcurrency: number;
  readonly provisionedConcurrency?: number;
}

export interface VariantSpec {
  /** Stable identity of the deployment, for caches, logs and metrics. */
  readonly endpointName: string;
  readonly variantName: string;
  /** The endpoint's account and region (its metrics are stored under them). */
  readonly partition?: { readonly accountId: string; readonly region: string };
  /** Containers of the model; a serverless variant serves the first (inference pipelines later). */
  readonly containers: readonly ContainerSpec[];
  readonly serverless: ServerlessSpec;
  /**
   * The endpoint's identity across replicas, for limits counted for the endpoint as a whole
   * (MaxConcurrency, ProvisionedConcurrency) and, for a serverless endpoint, for the account's.
   * Absent: the pool counts its own (a batch transform job's workers).
   */
  readonly scope?: { readonly key: string; readonly account?: string };
}

export interface DeployedImage {
  readonly specifiedImage: string;
  readonly resolvedImage: string;
  readonly resolutionTime: Date;
}

export interface InvocationRequest {
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly accept?: string;
  readonly customAttributes?: string;
  readonly inferenceId?: string;
}

export interface InvocationResult {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly customAttributes?: string;
}

/** A deployed, invocable variant. */
export interface DeployedVariant {
  readonly deployedImages: readonly DeployedImage[];
  /**
   * Runs one invocation with serverless semantics (cold start when nothing is warm, MaxConcurrency,
   * memory limit, 60 s timeout). Throws ServiceErrors of SageMaker Runtime: ModelError (424, with
   * OriginalStatusCode/OriginalMessage), ThrottlingException (429), ServiceUnavailable, InternalFailure.
   */
  invoke(req: InvocationRequest): Promise<InvocationResult>;
  /** Scales to zero and releases everything; in-flight invocations finish first. */
  stop(): Promise<void>;
}

/** A deployment that cannot succeed; the message is the endpoint's FailureReason (≤ 1024 chars). */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError';
}

export interface InferenceEngine {
  /**
   * Fetches the artifact through the BlobStore, checks and unpacks it safely, caches it by content
   * digest, loads the model once to prove it works, and returns the variant ready to invoke.
   * Throws DeploymentError with a FailureReason a user can act on.
   */
  deploy(spec: VariantSpec): Promise<DeployedVariant>;
  /** Prometheus text exposition of the per-endpoint, per-variant metrics. */
  metrics(): string;
  /** Stops every variant. */
  close(): Promise<void>;
}
