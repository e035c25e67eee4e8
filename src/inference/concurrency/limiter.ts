// Endpoint concurrency as SageMaker counts it: MaxConcurrency is the endpoint's (not a replica's),
// the account's serverless concurrency is shared by all its serverless endpoints of a region, and
// ProvisionedConcurrency is how many workers the endpoint keeps warm in all. Pools ask a limiter;
// one replica (SQLite) counts in memory, several replicas on PostgreSQL share the counts through
// it (shared-limiter.ts). https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-how-it-works.html

/** What an invocation is counted against. */
export interface SlotScope {
  /** The endpoint and variant across replicas (`account|region|endpoint|variant`), or a key of one pool's own. */
  readonly key: string;
  readonly max: number;
  /** `account|region` for a serverless endpoint (the account-level limit), absent otherwise. */
  readonly account?: string;
}

/** One pool's view of its scope: a slot is taken per invocation and given back when it ends. */
export interface SlotHandle {
  /** Takes a slot if one is at hand without waiting (this replica holds one unused). */
  tryTake(): boolean;
  /** Takes a slot, asking the other replicas if need be; false: the endpoint (or the account) is at its limit. */
  take(): Promise<boolean>;
  give(): void;
  /** The pool stopped: nothing more is taken through this handle. */
  close(): void;
}

/** This replica's share of an endpoint's ProvisionedConcurrency. */
export interface WarmShare {
  /** Workers this replica should keep warm now (≤ the target). */
  readonly granted: number;
  close(): void;
}

export interface ConcurrencyLimiter {
  handle(scope: SlotScope): SlotHandle;
  /**
   * Asks for `target` warm workers of `key` (the endpoint's ProvisionedConcurrency); resolves once
   * the first answer is in. `changed` is told when the share grows or shrinks later (another
   * replica died, or came back).
   */
  warm(key: string, target: number, changed: (granted: number) => void): Promise<WarmShare>;
  /** Gives everything back (shutdown). */
  close(): Promise<void>;
}

/** The account-level quota: in-flight serverless invocations of one account and region. */
export interface LimiterOptions {
  readonly accountConcurrency: number;
}

interface Count {
  inUse: number;
}

/** One replica: exact counts in memory, no waiting, ever. */
export class LocalLimiter implements ConcurrencyLimiter {
  readonly #counts = new Map<string, Count>();

  constructor(private readonly o: LimiterOptions) {}

  #count(key: string): Count {
    let c = this.#counts.get(key);
    if (!c) {
      c = { inUse: 0 };
      this.#counts.set(key, c);
    }
    return c;
  }

  handle(scope: SlotScope): SlotHandle {
    const ep = this.#count(`e|${scope.key}`);
    const acct = scope.account ? this.#count(`a|${scope.account}`) : undefined;
    const accountMax = this.o.accountConcurrency;
    const tryTake = () => {
      if (ep.inUse >= scope.max || (acct && acct.inUse >= accountMax)) return false;
      ep.inUse++;
      if (acct) acct.inUse++;
      return true;
    };
    return {
      tryTake,
      take: () => Promise.resolve(tryTake()),
      give: () => {
        ep.inUse--;
        if (acct) acct.inUse--;
      },
      close: () => {},
    };
  }

  async warm(_key: string, target: number): Promise<WarmShare> {
    return { granted: target, close: () => {} };
  }

  async close(): Promise<void> {}
}

/** A pool of its own (a batch transform job's workers): its MaxConcurrency, counted here alone. */
export function ownHandle(max: number): SlotHandle {
  let inUse = 0;
  const tryTake = () => {
    if (inUse >= max) return false;
    inUse++;
    return true;
  };
  return { tryTake, take: () => Promise.resolve(tryTake()), give: () => void inUse--, close: () => {} };
}
