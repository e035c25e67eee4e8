// What a handler knows about the request it serves: who, where, and how to log.
import type { Logger } from 'pino';

export interface RequestContext {
  readonly requestId: string;
  /** Account that owns the resources (from --account-id). */
  readonly accountId: string;
  /** Region from the SigV4 credential scope (default us-east-1 for unsigned requests). */
  readonly region: string;
  readonly log: Logger;
  /** Wall-clock time the request arrived (ms since epoch). */
  readonly receivedAt: number;
}
