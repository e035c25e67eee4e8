// Search records (a resource's Describe document plus Tags, and for trial components Parents and
// SourceDetail) and the indexer that keeps Search's index in step with them: every resource the
// triggers marked dirty is re-read and its values re-indexed, in batches, before Search answers.
import { type Partition, parseArn } from '../../../domain/arn.js';
import type { Queryable } from '../../../storage/db/types.js';
import type { ServiceDeps } from '../../common/deps.js';
import { indexValues, pickMembers, recordShape } from './paths.js';
import type { Doc, SearchableType } from './registry.js';

/** Dirty resources re-indexed per transaction: short write transactions, whatever the backlog. */
export const INDEX_BATCH = 200;

/** The SearchRecord members a trial component's SourceDetail names its job by. */
const SOURCE_DETAIL = new Set(['TrainingJob', 'ProcessingJob', 'TransformJob']);

export class SearchRecords {
  private readonly byArnType: ReadonlyMap<string, SearchableType[]>;
  private draining: Promise<void> | undefined;

  constructor(
    private readonly deps: ServiceDeps,
    readonly types: readonly SearchableType[],
  ) {
    const byArnType = new Map<string, SearchableType[]>();
    for (const t of types) byArnType.set(t.arnType, [...(byArnType.get(t.arnType) ?? []), t]);
    this.byArnType = byArnType;
  }

  /** The type of a resource ARN (types sharing a resource type, pipelines and their executions, tell theirs apart). */
  private typeOf(a: { resourceType: string; resource: string } | undefined): SearchableType | undefined {
    return a ? this.byArnType.get(a.resourceType)?.find((t) => t.owns?.(a.resource) ?? true) : undefined;
  }

  /** The records of those of `arns` (all of `type`, in partition `p`) that exist, by ARN. */
  async load(q: Queryable, p: Partition, type: SearchableType, arns: readonly string[]): Promise<Map<string, Doc>> {
    const docs = await type.load(q, p, arns);
    const present = [...docs.keys()];
    const tags = await this.deps.repos.tags.ofMany(q, present);
    for (const [arn, doc] of docs) doc.Tags = tags.get(arn) ?? [];
    if (type.parents) await this.addParents(q, p, docs);
    const shape = recordShape(type.record);
    return new Map([...docs].map(([arn, doc]) => [arn, pickMembers(shape, doc)]));
  }

  private async addParents(q: Queryable, p: Partition, docs: Map<string, Doc>): Promise<void> {
    const rows = await this.deps.repos.lineageTrialMembers.trialsOfMany(q, [...docs.keys()]);
    for (const r of rows) {
      const doc = docs.get(r.component_arn)!;
      const trial = JSON.parse(r.doc) as { ExperimentName?: string };
      doc.Parents = [
        ...((doc.Parents as object[] | undefined) ?? []),
        { TrialName: r.name, ExperimentName: trial.ExperimentName },
      ];
    }
    // SourceDetail: the job behind the component, as that job type's own record, once it is a searchable type.
    for (const doc of docs.values()) {
      const source = (doc.Source as { SourceArn?: string } | undefined)?.SourceArn;
      const a = source ? parseArn(source) : undefined;
      const job = this.typeOf(a);
      if (!source || !job || !SOURCE_DETAIL.has(job.record)) continue;
      const record = (await this.load(q, p, job, [source])).get(source);
      doc.SourceDetail = { SourceArn: source, ...(record ? { [job.record]: record } : {}) };
    }
  }

  /**
   * Re-indexes every resource written since it was last indexed. Runs one batch per transaction
   * (larger batches amortise the index pages a batch touches: the startup backfill uses them);
   * concurrent callers share the run in progress (another replica takes other rows: SKIP LOCKED).
   */
  drain(batch = INDEX_BATCH): Promise<void> {
    this.draining ??= this.drainAll(batch).finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drainAll(batch: number): Promise<void> {
    const { db, repos } = this.deps;
    while (await repos.searchIndex.hasDirty(db)) {
      let taken = 0;
      try {
        await db.transaction(async (tx) => {
          const arns = await repos.searchIndex.takeDirty(tx, batch);
          taken = arns.length;
          await this.reindex(tx, arns);
          await repos.searchIndex.clearDirty(tx, arns);
        });
      } catch (err) {
        // Path ids created in the rolled-back transaction must not be reused.
        repos.searchIndex.forgetPaths();
        throw err;
      }
      if (taken === 0) return;
    }
  }

  private async reindex(tx: Queryable, arns: readonly string[]): Promise<void> {
    const groups = new Map<string, { p: Partition; type: SearchableType; arns: string[] }>();
    for (const arn of arns) {
      const a = parseArn(arn);
      const type = this.typeOf(a);
      if (!a || !type) continue;
      const key = `${a.accountId}|${a.region}|${type.resource}`;
      const g = groups.get(key) ?? { p: { accountId: a.accountId, region: a.region }, type, arns: [] };
      g.arns.push(arn);
      groups.set(key, g);
    }
    const { searchIndex } = this.deps.repos;
    for (const { p, type, arns: group } of groups.values()) {
      const records = await this.load(tx, p, type, group);
      const shape = recordShape(type.record);
      const docs = [...records].map(([arn, record]) => [arn, indexValues(shape, record)] as const);
      await searchIndex.replace(
        tx,
        p,
        type.resource,
        docs,
        group.filter((arn) => !records.has(arn)),
      );
    }
  }
}
