// Brings endpoints through their lifecycle in the background, as a kind of the job runner
// (src/jobs): Creating → InService | Failed, Updating → InService (new config, or old config with
// FailureReason), Deleting → gone; the runner resumes what was in progress after a restart (on
// whichever replica claims it). Each replica keeps its own deployed variants for invokes, and keeps
// them coherent with the database: a deployment finished on another replica is served here from the
// next invocation that sees it (rows are trusted for ROW_TTL_MS), and every RECONCILE_MS the
// variants of endpoints deleted or redeployed elsewhere are stopped here, their warm workers and
// concurrency with them.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeEndpoint.html
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { sagemakerArn, type Partition } from '../../domain/arn.js';
import type { DeploymentConfig, ProductionVariantServerlessConfig } from '../../generated/sagemaker/shapes.js';
import { DeploymentError, type DeployedVariant, type InferenceEngine } from '../../inference/engine.js';
import type { JobRunner } from '../../jobs/runner.js';
import type { JobKind, RunContext } from '../../jobs/types.js';
import type { Queryable } from '../../storage/db/types.js';
import type { ResourceRow } from '../../storage/repositories/resource-table.js';
import type { ServiceDeps } from '../common/deps.js';
import type { EndpointConfigDoc } from './endpoint-configs.js';
import { resolveModelContainers, type ResolvedContainer } from './models.js';

/** ProductionVariantSummary as stored (times as epoch ms). */
export interface StoredVariant {
  VariantName: string;
  DeployedImages?: Array<{ SpecifiedImage: string; ResolvedImage: string; ResolutionTime: number }>;
  CurrentWeight?: number;
  DesiredWeight?: number;
  CurrentInstanceCount?: number;
  DesiredInstanceCount?: number;
  CurrentServerlessConfig?: ProductionVariantServerlessConfig;
  DesiredServerlessConfig?: ProductionVariantServerlessConfig;
  VariantStatus?: Array<{ Status: string; StatusMessage?: string; StartTime: number }>;
}

export interface EndpointDoc {
  EndpointConfigName: string;
  ProductionVariants: StoredVariant[];
  FailureReason?: string;
  /** While Updating: the configuration being deployed. */
  PendingConfigName?: string;
  /**
   * Names the deployment the endpoint serves (written when one succeeds): a replica serving another
   * id redeploys. Internal, never in Describe's answer.
   */
  DeploymentId?: string;
  PendingSince?: number;
  LastDeploymentConfig?: DeploymentConfig;
}

interface LiveVariant {
  readonly name: string;
  readonly weight: number;
  readonly deployed: DeployedVariant;
  /** Its instance count or serverless configuration (variantCapacity). */
  readonly capacity: string;
}

/** An endpoint as this replica serves it. */
export interface LiveEndpoint {
  readonly configName: string;
  /** The endpoint configuration it was deployed from. */
  readonly config: EndpointConfigDoc;
  readonly variants: readonly LiveVariant[];
  /** last_modified_at of the endpoint row this deployment matches. */
  readonly asOf: number;
  /** The variants' instance counts and serverless configurations it was deployed with (capacityKey). */
  readonly capacity: string;
  /** The row's DeploymentId when this replica deployed it. */
  readonly deploymentId: string | undefined;
}

/** What a variant runs with beyond its model: instance count or serverless configuration. */
export interface Capacity {
  readonly instances?: number;
  readonly serverless?: ProductionVariantServerlessConfig;
}

const variantCapacity = (name: string, c: Capacity) =>
  JSON.stringify([name, c.instances ?? null, c.serverless ?? null]);

/** The capacities an endpoint's variants currently run with (DescribeEndpoint's Current* fields). */
export function currentCapacities(variants: readonly StoredVariant[]): Map<string, Capacity> {
  return new Map(
    variants.map((v) => [v.VariantName, { instances: v.CurrentInstanceCount, serverless: v.CurrentServerlessConfig }]),
  );
}

/** The capacities UpdateEndpointWeightsAndCapacities asked for (the Desired* fields). */
function desiredCapacities(doc: EndpointDoc): Map<string, Capacity> {
  return new Map(
    doc.ProductionVariants.map((v) => [
      v.VariantName,
      { instances: v.DesiredInstanceCount, serverless: v.DesiredServerlessConfig },
    ]),
  );
}

/** Variants' capacities as one comparable string: a deployment is current when it matches. */
function capacityKey(capacities: ReadonlyMap<string, Capacity>): string {
  return JSON.stringify([...capacities].map(([name, c]) => variantCapacity(name, c)));
}

/** An endpoint row as the invoke path sees it (read through a short cache). */
export interface EndpointState {
  readonly row: ResourceRow;
  readonly doc: EndpointDoc;
}

/**
 * How long an endpoint row read for invocations is trusted. Invocations are the hot path, so they
 * do not read the row every time; changes made by this replica invalidate the cache at once, and
 * changes made by another replica are seen within this time.
 */
const ROW_TTL_MS = 1000;

/** How often a replica stops what it serves of endpoints deleted or redeployed since. */
const RECONCILE_MS = 3000;

/** Each serverless endpoint's FailureReason is at most 1024 characters. */
const reason = (s: string) => (s.length > 1024 ? `${s.slice(0, 1021)}...` : s);

/**
 * Whether what a replica deployed is what the endpoint row says it serves: the same DeploymentId
 * (rows from before it existed: the same configuration, or nothing changed since).
 */
function current(have: LiveEndpoint, row: ResourceRow, doc: EndpointDoc): boolean {
  // Every successful deployment (a new configuration or new capacities) writes a new DeploymentId.
  if (doc.DeploymentId !== undefined) return have.deploymentId === doc.DeploymentId;
  return (
    have.asOf >= row.last_modified_at ||
    (have.configName === doc.EndpointConfigName &&
      have.capacity === capacityKey(currentCapacities(doc.ProductionVariants)))
  );
}

/** Desired variant summaries for a configuration, before anything is deployed. */
export function desiredVariants(config: EndpointConfigDoc, status: string, at: number): StoredVariant[] {
  return config.ProductionVariants.map((v) => ({
    VariantName: v.VariantName,
    DesiredWeight: v.InitialVariantWeight ?? 1,
    DesiredInstanceCount: v.ServerlessConfig ? undefined : v.InitialInstanceCount,
    DesiredServerlessConfig: v.ServerlessConfig,
    VariantStatus: [{ Status: status, StartTime: at }],
  }));
}

/** A variant with no stage in progress (its VariantStatus list empty, as DescribeEndpoint then omits it). */
export function settled({ VariantStatus: _, ...v }: StoredVariant): StoredVariant {
  return v;
}

/** The runner's work item for an endpoint: one per endpoint, run again for each requested transition. */
interface EndpointWork {
  readonly accountId: string;
  readonly region: string;
  readonly nameKey: string;
}

export class EndpointDeployments {
  private readonly live = new Map<string, LiveEndpoint>();
  private readonly loading = new Map<string, Promise<LiveEndpoint | undefined>>();
  private readonly rows = new Map<string, { state: EndpointState | undefined; at: number }>();
  private readonly kind: JobKind<EndpointWork>;
  private reconciler: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly engine: InferenceEngine,
    private readonly log: Logger,
    private readonly runner: JobRunner,
  ) {
    this.kind = runner.register<EndpointWork>({
      name: 'endpoint-deployment',
      // Every endpoint deploys at once, as before the runner: a deployment mostly waits on I/O.
      concurrency: Number.POSITIVE_INFINITY,
      onRestart: 'resume',
      run: (ctx) => this.advance(ctx),
      // Only an unexpected error (e.g. the database failing) ends a deployment this way; the
      // endpoint keeps its status and the next start of the server resumes it, as before.
      end: async (tx, item, why) => {
        this.log.error({ err: why.error, endpoint: item.payload.nameKey }, 'endpoint deployment failed unexpectedly');
        const row = await this.deps.repos.endpoints.get(tx, this.partition(item.payload), item.payload.nameKey);
        return { status: row?.status ?? 'Deleted', message: why.message };
      },
    });
  }

  private partition(w: EndpointWork): Partition {
    return { accountId: w.accountId, region: w.region };
  }

  private key(p: Partition, nameKey: string): string {
    return `${p.accountId}|${p.region}|${nameKey}`;
  }

  /** The endpoint's row for an invocation, from a cache this replica keeps current. */
  async endpointState(p: Partition, nameKey: string): Promise<EndpointState | undefined> {
    const key = this.key(p, nameKey);
    const now = Date.now();
    const hit = this.rows.get(key);
    if (hit && now - hit.at <= ROW_TTL_MS) return hit.state;
    const row = await this.deps.repos.endpoints.get(this.deps.db, p, nameKey);
    const state = row ? { row, doc: JSON.parse(row.doc) as EndpointDoc } : undefined;
    if (this.rows.size > 10_000) this.rows.clear();
    this.rows.set(key, { state, at: now });
    return state;
  }

  /**
   * Enqueues the endpoint's transition (the status just written: Creating, Updating, Deleting)
   * inside the caller's transaction. One item per endpoint: a request while a transition runs
   * makes it run once more afterwards, reading the state then in the database.
   */
  async submit(tx: Queryable, p: Partition, nameKey: string, status: string): Promise<void> {
    const id = this.key(p, nameKey);
    await this.runner.submit(
      this.kind,
      id,
      { accountId: p.accountId, region: p.region, nameKey },
      { tx, status, whenActive: 'rerun' },
    );
  }

  /** After the transaction that submitted commits: starts the transition now. */
  schedule(p: Partition, nameKey: string): void {
    this.rows.delete(this.key(p, nameKey));
    this.runner.wake();
  }

  /**
   * At start-up: endpoints left Creating, Updating or Deleting without work in the runner (a
   * database from before it) are submitted; the runner resumes its own items by itself.
   */
  async resume(): Promise<number> {
    const rows = await this.deps.repos.endpoints.withStatus(this.deps.db, ['Creating', 'Updating', 'Deleting']);
    let submitted = 0;
    await this.deps.db.transaction(async (tx) => {
      for (const r of rows) {
        const work = { accountId: r.account_id, region: r.region, nameKey: r.name_key };
        const id = this.key(work, r.name_key);
        if (
          (await this.runner.submit(this.kind, id, work, {
            tx,
            status: r.status ?? undefined,
            whenActive: 'ignore',
          })) === 'submitted'
        )
          submitted++;
      }
    });
    return submitted;
  }

  /**
   * The endpoint as this replica serves it. An endpoint InService in the database but not deployed
   * here (after a restart, or on another replica's request) is deployed on first use; its artifact
   * is cached by digest, so that is fast.
   */
  async serving(p: Partition, { row, doc }: EndpointState): Promise<LiveEndpoint | undefined> {
    const key = this.key(p, row.name_key);
    const have = this.live.get(key);
    if (have && current(have, row, doc)) return have;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.deployConfig(
        p,
        doc.EndpointConfigName,
        row.name,
        row.last_modified_at,
        doc.DeploymentId,
        currentCapacities(doc.ProductionVariants),
      )
        .then((live) => {
          const old = this.live.get(key);
          this.live.set(key, live);
          if (old) void this.stopAll(old);
          return live;
        })
        .catch((err) => {
          this.log.error({ err, endpoint: row.name }, 'could not load an InService endpoint');
          return undefined;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Starts the periodic reconciliation with the database. */
  start(): void {
    this.reconciler ??= setInterval(() => {
      this.reconciling ??= this.reconcile()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, 'could not reconcile served endpoints with the database'))
        .finally(() => {
          this.reconciling = undefined;
        });
    }, RECONCILE_MS);
    this.reconciler.unref();
  }

  /**
   * Stops what this replica serves of endpoints that were deleted, or redeployed by another replica
   * (the next invocation deploys the current one): their warm workers and held concurrency go.
   */
  async reconcile(): Promise<number> {
    const byPartition = new Map<string, { p: Partition; keys: string[] }>();
    for (const key of this.live.keys()) {
      const [accountId, region, nameKey] = key.split('|') as [string, string, string];
      const pk = `${accountId}|${region}`;
      let e = byPartition.get(pk);
      if (!e) {
        e = { p: { accountId, region }, keys: [] };
        byPartition.set(pk, e);
      }
      e.keys.push(nameKey);
    }
    let stopped = 0;
    for (const { p, keys } of byPartition.values()) {
      const rows = new Map(
        (await this.deps.repos.endpoints.getMany(this.deps.db, p, keys)).map((r) => [r.name_key, r]),
      );
      for (const nameKey of keys) {
        const key = this.key(p, nameKey);
        const have = this.live.get(key);
        if (!have || this.loading.has(key)) continue;
        const row = rows.get(nameKey);
        // In a transition: the replica running it decides (and the next reconciliation sees the end).
        if (row?.status === 'Creating' || row?.status === 'Deleting') continue;
        if (
          row &&
          (row.status === 'InService' || row.status === 'Updating') &&
          current(have, row, JSON.parse(row.doc) as EndpointDoc)
        )
          continue;
        // Deleted, failed, or serving a deployment other than this one.
        this.live.delete(key);
        this.rows.delete(key);
        stopped++;
        void this.stopAll(have);
      }
    }
    if (stopped > 0)
      this.log.info({ endpoints: stopped }, 'stopped variants of endpoints changed or deleted elsewhere');
    return stopped;
  }

  /** Stops every variant this replica serves; close the runner first so no deployment is in flight. */
  async close(): Promise<void> {
    if (this.reconciler) clearInterval(this.reconciler);
    await this.reconciling;
    await Promise.all([...this.live.values()].map((l) => this.stopAll(l)));
    this.live.clear();
  }

  /** Stops the variants of `l`, but those `keep` still serves (a capacity update keeps some). */
  private async stopAll(l: LiveEndpoint, keep?: LiveEndpoint): Promise<void> {
    const kept = new Set(keep?.variants.map((v) => v.deployed));
    await Promise.all(
      l.variants.filter((v) => !kept.has(v.deployed)).map((v) => v.deployed.stop().catch(() => undefined)),
    );
  }

  /**
   * Deploys every variant of a configuration. `capacities` (by variant name) override the
   * configuration's initial ones (an endpoint whose capacity was updated since); a variant of
   * `reuse` deployed with the same capacity is kept instead of deployed again.
   */
  private async deployConfig(
    p: Partition,
    configName: string,
    endpointName: string,
    asOf: number,
    deploymentId: string | undefined,
    capacities?: ReadonlyMap<string, Capacity>,
    reuse?: LiveEndpoint,
  ): Promise<LiveEndpoint> {
    const { db, repos } = this.deps;
    const configRow = await repos.endpointConfigs.get(db, p, configName.toLowerCase());
    if (!configRow) {
      throw new DeploymentError(
        `Could not find endpoint configuration "${sagemakerArn(p, 'endpoint-config', configName)}".`,
      );
    }
    const config = JSON.parse(configRow.doc) as EndpointConfigDoc;
    const planned = config.ProductionVariants.map((v) => ({
      v,
      capacity: capacities?.get(v.VariantName) ?? {
        instances: v.ServerlessConfig ? undefined : v.InitialInstanceCount,
        serverless: v.ServerlessConfig,
      },
    }));
    // Variants of the same configuration whose capacity did not change keep serving as they are.
    const kept = new Map<string, LiveVariant>();
    if (reuse?.configName === configRow.name) {
      for (const { v, capacity } of planned) {
        const old = reuse.variants.find((l) => l.name === v.VariantName);
        if (old && old.capacity === variantCapacity(v.VariantName, capacity)) kept.set(v.VariantName, old);
      }
    }
    const variants: LiveVariant[] = [];
    const started: LiveVariant[] = [];
    try {
      for (const { v, capacity } of planned) {
        const have = kept.get(v.VariantName);
        if (have) {
          variants.push(have);
          continue;
        }
        let containers: ResolvedContainer[];
        try {
          ({ containers } = await resolveModelContainers(this.deps, db, p, v.ModelName ?? ''));
        } catch (err) {
          throw new DeploymentError((err as Error).message);
        }
        const s = capacity.serverless;
        const deployed = await this.engine.deploy({
          endpointName,
          variantName: v.VariantName,
          partition: { accountId: p.accountId, region: p.region },
          // MaxConcurrency and ProvisionedConcurrency are the endpoint's, whichever replica serves it;
          // serverless endpoints also share the account's serverless concurrency.
          scope: {
            key: `${p.accountId}|${p.region}|${endpointName.toLowerCase()}|${v.VariantName}`,
            account: v.ServerlessConfig ? `${p.accountId}|${p.region}` : undefined,
          },
          containers: containers.map((c) => ({
            image: c.image,
            modelDataUrl: c.modelDataUrl,
            environment: c.environment,
            networkIsolation: c.networkIsolation,
          })),
          serverless: s
            ? {
                memorySizeInMB: s.MemorySizeInMB,
                maxConcurrency: s.MaxConcurrency,
                provisionedConcurrency: s.ProvisionedConcurrency,
              }
            : // DEVIATION(aws): instance-based variants run on the same worker pool as serverless
              // ones, with the largest serverless memory size and one warm worker per instance.
              {
                memorySizeInMB: 6144,
                maxConcurrency: 200,
                provisionedConcurrency: Math.min(capacity.instances ?? 1, 200),
              },
        });
        const live = {
          name: v.VariantName,
          weight: v.InitialVariantWeight ?? 1,
          deployed,
          capacity: variantCapacity(v.VariantName, capacity),
        };
        started.push(live);
        variants.push(live);
      }
    } catch (err) {
      await Promise.all(started.map((v) => v.deployed.stop().catch(() => undefined)));
      throw err;
    }
    return {
      configName: configRow.name,
      config,
      variants,
      asOf,
      capacity: capacityKey(new Map(planned.map(({ v, capacity }) => [v.VariantName, capacity]))),
      deploymentId,
    };
  }

  /** Moves the endpoint one step along its lifecycle, from whatever state the database holds. */
  private async advance(ctx: RunContext<EndpointWork>): Promise<void> {
    // Shutting down before it started: the runner gives the item back for the next start.
    if (ctx.signal.aborted) return;
    const p = this.partition(ctx.payload);
    const { nameKey } = ctx.payload;
    const { db, repos } = this.deps;
    const row = await repos.endpoints.get(db, p, nameKey);
    if (!row) return;
    const doc = JSON.parse(row.doc) as EndpointDoc;
    const key = this.key(p, nameKey);

    if (row.status === 'Deleting') {
      const l = this.live.get(key);
      this.live.delete(key);
      if (l) await this.stopAll(l);
      await ctx.transaction(async (tx) => {
        await repos.endpoints.delete(tx, p, nameKey);
        await repos.tags.removeAll(tx, row.arn);
        await ctx.finish(tx, 'Deleted');
      });
      this.rows.delete(key);
      return;
    }
    if (row.status !== 'Creating' && row.status !== 'Updating') return;

    // Updating without a pending configuration: UpdateEndpointWeightsAndCapacities. Variants whose
    // capacity changes are deployed again with it; the others keep serving; weights only move traffic.
    const capacityUpdate = row.status === 'Updating' && !doc.PendingConfigName;
    const targetConfig =
      row.status === 'Updating' && doc.PendingConfigName ? doc.PendingConfigName : doc.EndpointConfigName;
    const previous = this.live.get(key);
    let live: LiveEndpoint | undefined;
    let failure: string | undefined;
    try {
      live = capacityUpdate
        ? await this.deployConfig(
            p,
            targetConfig,
            row.name,
            Number.MAX_SAFE_INTEGER,
            randomUUID(),
            desiredCapacities(doc),
            previous,
          )
        : await this.deployConfig(p, targetConfig, row.name, Number.MAX_SAFE_INTEGER, randomUUID());
    } catch (err) {
      if (!(err instanceof DeploymentError)) this.log.error({ err, endpoint: row.name }, 'deployment error');
      failure = reason(
        err instanceof DeploymentError ? err.message : `Internal error while deploying: ${(err as Error).message}`,
      );
    }
    const now = Date.now();

    const commit = ctx.transaction(async (tx) => {
      const current = await repos.endpoints.get(tx, p, nameKey, true);
      // Deleted or changed meanwhile (e.g. DeleteEndpoint during Creating): this result is stale.
      if (!current || current.status !== row.status || current.doc !== row.doc) return false;
      let next: EndpointDoc;
      let status: string;
      if (live && capacityUpdate) {
        status = 'InService';
        next = {
          ...doc,
          FailureReason: undefined,
          ProductionVariants: doc.ProductionVariants.map((v) =>
            settled({
              ...v,
              CurrentWeight: v.DesiredWeight,
              CurrentInstanceCount: v.DesiredInstanceCount,
              CurrentServerlessConfig: v.DesiredServerlessConfig,
            }),
          ),
        };
      } else if (live) {
        status = 'InService';
        next = {
          EndpointConfigName: live.configName,
          DeploymentId: live.deploymentId,
          LastDeploymentConfig: doc.LastDeploymentConfig,
          ProductionVariants: live.config.ProductionVariants.map((v, i) => ({
            VariantName: v.VariantName,
            DeployedImages: live.variants[i]!.deployed.deployedImages.map((d) => ({
              SpecifiedImage: d.specifiedImage,
              ResolvedImage: d.resolvedImage,
              ResolutionTime: d.resolutionTime.getTime(),
            })),
            CurrentWeight: v.InitialVariantWeight ?? 1,
            DesiredWeight: v.InitialVariantWeight ?? 1,
            CurrentInstanceCount: v.ServerlessConfig ? undefined : v.InitialInstanceCount,
            DesiredInstanceCount: v.ServerlessConfig ? undefined : v.InitialInstanceCount,
            CurrentServerlessConfig: v.ServerlessConfig,
            DesiredServerlessConfig: v.ServerlessConfig,
          })),
        };
      } else if (row.status === 'Updating') {
        // A failed update leaves the endpoint serving what it served before, as it was.
        status = 'InService';
        next = {
          ...doc,
          PendingConfigName: undefined,
          PendingSince: undefined,
          FailureReason: failure,
          ProductionVariants: doc.ProductionVariants.map((v) =>
            settled({
              ...v,
              DesiredWeight: v.CurrentWeight,
              DesiredInstanceCount: v.CurrentInstanceCount,
              DesiredServerlessConfig: v.CurrentServerlessConfig,
            }),
          ),
        };
      } else {
        // A variant's status lists the stages in progress (Creating, Updating, Deleting,
        // ActivatingTraffic, Baking: the model's VariantStatus); a failed endpoint has none left.
        status = 'Failed';
        next = { ...doc, FailureReason: failure, ProductionVariants: doc.ProductionVariants.map(settled) };
      }
      await repos.endpoints.update(tx, p, nameKey, { status, doc: JSON.stringify(next), last_modified_at: now });
      await ctx.finish(tx, status, failure);
      return true;
    });
    let committed: boolean;
    try {
      committed = await commit;
    } catch (err) {
      // e.g. another replica took the work over: what was deployed here is not the endpoint's.
      if (live) await this.stopAll(live, previous);
      throw err;
    }

    this.rows.delete(key);
    if (committed && live) {
      const old = this.live.get(key);
      this.live.set(key, { ...live, asOf: now });
      // The new variant takes traffic first; the old one drains its in-flight requests and stops.
      if (old) await this.stopAll(old, live);
    } else if (live) {
      await this.stopAll(live, previous);
    }
    if (committed) this.log.info({ endpoint: row.name, from: row.status, failure }, 'endpoint deployment finished');
  }
}
