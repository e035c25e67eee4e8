// What a handler knows about the request it serves: who, where, and how to log.
import type { Logger } from 'pino';
import type { ServiceError } from './service-error.js';

/**
 * Authorization of the authenticated caller (src/auth): the protocol asks once it knows the
 * operation and its input; each check throws the protocol's AccessDenied error when refused.
 */
export interface RequestGate {
  /** The caller's ARN (for logs and lineage). */
  readonly principalArn: string;
  /** Who signed the request, for the few operations about the caller itself (STS). */
  readonly caller?: CallerIdentity;
  /** May the caller run `operation` with this input? The action and resource come from the service's table. */
  operation(operation: string, input: Record<string, unknown>): void;
  /** May the caller do `action` on each of `resources`? (S3's copy source, DeleteObjects' keys.) */
  action(action: string, resources: readonly string[]): void;
  /**
   * May the caller pass `roleArn` to the service (iam:PassRole), and does the role exist? For a
   * role the request does not name (StartPipelineExecution runs as the pipeline's stored role);
   * roles named in the input are checked by `operation` (src/auth/actions/sagemaker.ts).
   */
  passRole(roleArn: string): void;
}

/** The authenticated caller as STS sees it. */
export interface CallerIdentity {
  readonly arn: string;
  /** The access key the request was signed with. */
  readonly accessKeyId: string;
  /** Temporary credentials: how they were issued, for which role, under which long-term key. */
  readonly session?: {
    readonly kind: 'AssumeRole' | 'GetSessionToken';
    readonly roleArn: string | null;
    readonly rootAccessKeyId: string | null;
  };
}

/** Verifies the signatures of an aws-chunked body (STREAMING-AWS4-HMAC-SHA256-PAYLOAD). */
export interface ChunkSignatures {
  chunk(signature: string, chunkHash: string): boolean;
  trailer(signature: string, trailerHash: string): boolean;
}

/**
 * What a protocol that reads and writes the socket itself (S3) reports back about the request, for
 * the request's log line, metrics and trace: the operation it ran and the error code it answered.
 */
export interface RequestRecord {
  operation: string | undefined;
  errorCode: string | undefined;
}

export interface RequestContext {
  readonly requestId: string;
  /** Account that owns the resources (from --account-id). */
  readonly accountId: string;
  /** Region from the SigV4 credential scope (default us-east-1 for unsigned requests). */
  readonly region: string;
  /** The access key of the SigV4 credential scope, whether or not the signature is checked. */
  readonly accessKeyId?: string;
  readonly log: Logger;
  /** Wall-clock time the request arrived (ms since epoch). */
  readonly receivedAt: number;
  /** Present when a credentials file is in force and the caller authenticated. */
  readonly gate?: RequestGate;
  /** The body's chunk signatures must be checked as it streams (S3 uploads). */
  readonly chunkSignatures?: ChunkSignatures;
  /** Authentication failed: the protocol answers with this error in its own format, and nothing else. */
  readonly rejected?: ServiceError;
  /** Filled in by raw protocols (S3) as they learn the operation and its outcome. */
  readonly record?: RequestRecord;
}
