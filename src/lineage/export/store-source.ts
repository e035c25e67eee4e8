// Reads lineage straight from Slipway's database: entities and associations in key order, page
// by page, through the lineage repositories (no API calls, nothing held beyond one page).
// https://docs.aws.amazon.com/sagemaker/latest/dg/lineage-tracking-entities.html
import type { Partition } from '../../domain/arn.js';
import type { EntityKind } from '../entities.js';
import type { Queryable } from '../../storage/db/types.js';
import { type LineageEntityRow, LineageEntityRepository } from '../../storage/repositories/lineage-entities.js';
import type { LineageNode, LineageSource, NodeKind } from './model.js';
import { renderedStore, type StoreExportOptions } from './store-export.js';

const KINDS: Record<NodeKind, EntityKind> = {
  artifact: 'artifact',
  action: 'action',
  context: 'context',
  trialComponent: 'experiment-trial-component',
};

type Doc = {
  Source?: { SourceUri?: string; SourceArn?: string; SourceType?: string };
  ArtifactType?: string;
  ActionType?: string;
  ContextType?: string;
  Status?: string | { PrimaryStatus?: string; Message?: string };
};

/** One stored entity as an export node (the doc holds the API fields the seed reads). */
export function nodeOf(
  kind: NodeKind,
  row: Pick<LineageEntityRow, 'arn' | 'doc' | 'created_at' | 'last_modified_at'>,
): LineageNode {
  const d = JSON.parse(row.doc) as Doc;
  const base = {
    arn: row.arn,
    creationTime: new Date(Number(row.created_at)),
    lastModifiedTime: new Date(Number(row.last_modified_at)),
  };
  switch (kind) {
    case 'artifact':
      return { ...base, sourceUri: d.Source?.SourceUri, type: d.ArtifactType };
    case 'action':
      return {
        ...base,
        sourceUri: d.Source?.SourceUri,
        type: d.ActionType,
        status: typeof d.Status === 'string' ? d.Status : undefined,
      };
    case 'context':
      return { ...base, sourceUri: d.Source?.SourceUri, type: d.ContextType };
    case 'trialComponent': {
      const s = typeof d.Status === 'object' ? d.Status : undefined;
      return {
        ...base,
        sourceArn: d.Source?.SourceArn,
        sourceType: d.Source?.SourceType,
        status: s?.PrimaryStatus,
        message: s?.Message,
      };
    }
  }
}

/**
 * `sqliteFile`: the SQLite database q reads, for the export on several threads (store-export.ts);
 * without it (PostgreSQL, a database in memory) pages are read here.
 */
export function storeLineageSource(
  q: Queryable,
  partition: Partition,
  options: { pageSize?: number; sqliteFile?: string } & StoreExportOptions = {},
): LineageSource {
  const entities = new LineageEntityRepository();
  const { accountId, region } = partition;
  const pageSize = options.pageSize ?? 5000;
  const file = options.sqliteFile;
  return {
    rendered: file === undefined ? undefined : (format) => renderedStore(file, partition, format, options),
    async *nodes(kind) {
      if (q.dialect === 'postgres') {
        for await (const rows of entities.iterate(q, partition, [KINDS[kind]], pageSize))
          yield rows.map((r) => nodeOf(kind, r));
        return;
      }
      // SQLite: pages in rowid order, the table's physical order. Key (ARN) order would read the
      // table's pages at random, which stops fitting the page cache long before a million rows.
      let after = 0;
      for (;;) {
        const rows = await q.all<LineageEntityRow & Record<string, unknown> & { rid: number }>(
          `SELECT rowid AS rid, arn, kind, name_key, name, entity_type, source_key, unique_source, parent_key, doc, created_at, last_modified_at
           FROM lineage_entities WHERE rowid > ? AND account_id = ? AND region = ? AND kind = ? ORDER BY rowid LIMIT ?`,
          [after, accountId, region, KINDS[kind], pageSize],
        );
        if (rows.length === 0) return;
        yield rows.map((r) => nodeOf(kind, r));
        after = rows[rows.length - 1]!.rid;
      }
    },
    async *edges() {
      // Keyset pages: rowid order on SQLite (sequential reads, see above); primary-key order on
      // PostgreSQL. The repository's iterate() is not used: on SQLite its query picks the
      // (account, region, created_at) index and sorts every association for each page.
      type Row = {
        rid?: number;
        source_arn: string;
        destination_arn: string;
        association_type: string | null;
      } & Record<string, unknown>;
      let afterRow = 0;
      let after: [string, string] = ['', ''];
      for (;;) {
        const rows =
          q.dialect === 'sqlite'
            ? await q.all<Row>(
                `SELECT rowid AS rid, source_arn, destination_arn, association_type FROM lineage_associations
                 WHERE rowid > ? AND account_id = ? AND region = ? ORDER BY rowid LIMIT ?`,
                [afterRow, accountId, region, pageSize],
              )
            : await q.all<Row>(
                `SELECT source_arn, destination_arn, association_type FROM lineage_associations
                 WHERE account_id = ? AND region = ? AND (source_arn, destination_arn) > (?, ?)
                 ORDER BY source_arn, destination_arn LIMIT ?`,
                [accountId, region, after[0], after[1], pageSize],
              );
        if (rows.length === 0) return;
        yield rows.map((r) => ({
          sourceArn: r.source_arn,
          destinationArn: r.destination_arn,
          associationType: r.association_type ?? undefined,
        }));
        const last = rows[rows.length - 1]!;
        afterRow = last.rid ?? 0;
        after = [last.source_arn, last.destination_arn];
      }
    },
  };
}
