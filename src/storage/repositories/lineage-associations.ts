// Associations (directed, typed edges between lineage entities), with the types and names of both
// ends copied in so ListAssociations filters and sorts without joins.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AddAssociation.html
import type { Partition } from '../../domain/arn.js';
import { dialectSql } from '../db/dialect.js';
import type { Queryable, SqlValue } from '../db/types.js';
import { IN_CHUNK } from './lineage-entities.js';

export interface AssociationRow {
  readonly source_arn: string;
  readonly destination_arn: string;
  readonly association_type: string | null;
  /** Entity type of each end ('' when the entity has none, e.g. an experiment). */
  readonly source_type: string;
  readonly destination_type: string;
  /** LineageType of each end ('' for experiments). */
  readonly source_lineage: string;
  readonly destination_lineage: string;
  readonly source_name: string | null;
  readonly destination_name: string | null;
  readonly created_at: number;
}

/** An edge as QueryLineage walks it. */
export interface EdgeRow {
  readonly source_arn: string;
  readonly destination_arn: string;
  readonly association_type: string | null;
  readonly source_type: string;
  readonly destination_type: string;
  readonly source_lineage: string;
  readonly destination_lineage: string;
}

export type AssociationSort = 'SourceArn' | 'DestinationArn' | 'SourceType' | 'DestinationType' | 'CreationTime';

export interface AssociationListQuery {
  readonly sourceArn?: string;
  readonly destinationArn?: string;
  /** Matches the source's entity type, or its lineage type ("Action", "Context"...): the SageMaker Python SDK filters both ways. */
  readonly sourceType?: string;
  readonly destinationType?: string;
  readonly associationType?: string;
  readonly createdAfter?: number;
  readonly createdBefore?: number;
  readonly sortBy: AssociationSort;
  readonly descending: boolean;
  /** Position of the last row of the previous page: [sort value, source_arn, destination_arn]. */
  readonly after?: readonly [string | number, string, string];
  readonly limit: number;
}

const COLUMNS =
  'source_arn, destination_arn, association_type, source_type, destination_type, source_lineage, destination_lineage, source_name, destination_name, created_at';
const COLUMN_LIST = COLUMNS.split(', ');
const EDGE_COLUMNS =
  'source_arn, destination_arn, association_type, source_type, destination_type, source_lineage, destination_lineage';

const SORT_COLUMN: Record<AssociationSort, string> = {
  SourceArn: 'source_arn',
  DestinationArn: 'destination_arn',
  SourceType: 'source_type',
  DestinationType: 'destination_type',
  CreationTime: 'created_at',
};

export class LineageAssociationRepository {
  async insert(q: Queryable, p: Partition, row: AssociationRow): Promise<void> {
    await q.run(
      `INSERT INTO lineage_associations (account_id, region, ${COLUMNS}) VALUES (?, ?, ${COLUMN_LIST.map(() => '?').join(', ')})`,
      [p.accountId, p.region, ...COLUMN_LIST.map((c) => (row as unknown as Record<string, SqlValue>)[c] ?? null)],
    );
  }

  async get(q: Queryable, sourceArn: string, destinationArn: string): Promise<AssociationRow | undefined> {
    return q.get<AssociationRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_associations WHERE source_arn = ? AND destination_arn = ?`,
      [sourceArn, destinationArn],
    );
  }

  async delete(q: Queryable, sourceArn: string, destinationArn: string): Promise<boolean> {
    const r = await q.run(`DELETE FROM lineage_associations WHERE source_arn = ? AND destination_arn = ?`, [
      sourceArn,
      destinationArn,
    ]);
    return r.changes > 0;
  }

  /** Removes every association into or out of an entity (when the entity is deleted). */
  async deleteAllOf(q: Queryable, arn: string): Promise<void> {
    await q.run(`DELETE FROM lineage_associations WHERE source_arn = ?`, [arn]);
    await q.run(`DELETE FROM lineage_associations WHERE destination_arn = ?`, [arn]);
  }

  /** Keeps the copied name in step when an artifact is renamed. */
  async rename(q: Queryable, arn: string, name: string | null): Promise<void> {
    await q.run(`UPDATE lineage_associations SET source_name = ? WHERE source_arn = ?`, [name, arn]);
    await q.run(`UPDATE lineage_associations SET destination_name = ? WHERE destination_arn = ?`, [name, arn]);
  }

  /** Edges leaving any of `arns` (Descendants), in batches of IN_CHUNK. */
  async edgesFrom(q: Queryable, arns: readonly string[]): Promise<EdgeRow[]> {
    return this.edges(q, 'source_arn', arns);
  }

  /** Edges entering any of `arns` (Ascendants). */
  async edgesTo(q: Queryable, arns: readonly string[]): Promise<EdgeRow[]> {
    return this.edges(q, 'destination_arn', arns);
  }

  private async edges(
    q: Queryable,
    col: 'source_arn' | 'destination_arn',
    arns: readonly string[],
  ): Promise<EdgeRow[]> {
    const out: EdgeRow[] = [];
    for (let i = 0; i < arns.length; i += IN_CHUNK) {
      const chunk = arns.slice(i, i + IN_CHUNK);
      const rows = await q.all<EdgeRow & Record<string, unknown>>(
        `SELECT ${EDGE_COLUMNS} FROM lineage_associations WHERE ${col} IN (${chunk.map(() => '?').join(', ')})`,
        chunk,
      );
      for (const r of rows) out.push(r);
    }
    return out;
  }

  /** One page in the requested order; ties are broken by (source_arn, destination_arn). */
  async list(q: Queryable, p: Partition, query: AssociationListQuery): Promise<AssociationRow[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (sql: string, ...v: SqlValue[]) => {
      where.push(sql);
      params.push(...v);
    };
    // With an ARN filter the ARN's own index finds the rows; the ARN already names the partition.
    if (query.sourceArn !== undefined) add('source_arn = ?', query.sourceArn);
    if (query.destinationArn !== undefined) add('destination_arn = ?', query.destinationArn);
    if (query.sourceArn === undefined && query.destinationArn === undefined)
      add('account_id = ? AND region = ?', p.accountId, p.region);
    if (query.sourceType !== undefined)
      add('(source_type = ? OR source_lineage = ?)', query.sourceType, query.sourceType);
    if (query.destinationType !== undefined) {
      add('(destination_type = ? OR destination_lineage = ?)', query.destinationType, query.destinationType);
    }
    if (query.associationType !== undefined) add('association_type = ?', query.associationType);
    if (query.createdAfter !== undefined) add('created_at > ?', query.createdAfter);
    if (query.createdBefore !== undefined) add('created_at < ?', query.createdBefore);
    const col = SORT_COLUMN[query.sortBy];
    const dir = query.descending ? 'DESC' : 'ASC';
    const cmp = query.descending ? '<' : '>';
    // Keyset over (sort column, source_arn, destination_arn); for ARN sorts the column is one of the pair.
    const key =
      col === 'source_arn'
        ? ['source_arn', 'destination_arn']
        : col === 'destination_arn'
          ? ['destination_arn', 'source_arn']
          : [col, 'source_arn', 'destination_arn'];
    if (query.after) {
      const [v, s, d] = query.after;
      const values = col === 'source_arn' ? [s, d] : col === 'destination_arn' ? [d, s] : [v, s, d];
      add(`(${key.join(', ')}) ${cmp} (${key.map(() => '?').join(', ')})`, ...values);
    }
    params.push(query.limit);
    return q.all<AssociationRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM lineage_associations WHERE ${where.join(' AND ')}
       ORDER BY ${key.map((k) => `${k} ${dir}`).join(', ')} LIMIT ?`,
      params,
    );
  }

  /**
   * Every association of one account and region in pages of `pageSize`, ordered by the primary key
   * (source_arn, destination_arn): for exporters (edges.csv) that must not hold them all in memory.
   */
  async *iterate(q: Queryable, p: Partition, pageSize = 1000): AsyncGenerator<AssociationRow[], void, undefined> {
    let after: [string, string] | undefined;
    // SQLite would otherwise walk lineage_associations_by_time and sort every association for each
    // page; `+` makes the partition test a plain filter so the primary key gives the order.
    const partition = dialectSql(q, {
      sqlite: '+account_id = ? AND +region = ?',
      postgres: 'account_id = ? AND region = ?',
    });
    for (;;) {
      const rows = await q.all<AssociationRow & Record<string, unknown>>(
        `SELECT ${COLUMNS} FROM lineage_associations WHERE ${partition}${after ? ' AND (source_arn, destination_arn) > (?, ?)' : ''}
         ORDER BY source_arn, destination_arn LIMIT ?`,
        [p.accountId, p.region, ...(after ?? []), pageSize],
      );
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1]!;
      after = [last.source_arn, last.destination_arn];
    }
  }
}
