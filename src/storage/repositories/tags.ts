// Tags by resource ARN. https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AddTags.html
import type { Queryable } from '../db/types.js';

export interface TagRow {
  readonly Key: string;
  readonly Value: string;
}

export class TagRepository {
  /** Adds or overwrites tags, keeping the first position of a key that already exists. */
  async put(q: Queryable, arn: string, tags: readonly TagRow[]): Promise<void> {
    const base = Date.now() * 1000;
    for (let i = 0; i < tags.length; i++) {
      const t = tags[i]!;
      await q.run(
        `INSERT INTO tags (resource_arn, tag_key, tag_value, seq) VALUES (?, ?, ?, ?)
         ON CONFLICT (resource_arn, tag_key) DO UPDATE SET tag_value = excluded.tag_value`,
        [arn, t.Key, t.Value, base + i],
      );
    }
  }

  async remove(q: Queryable, arn: string, keys: readonly string[]): Promise<void> {
    for (const k of keys) await q.run(`DELETE FROM tags WHERE resource_arn = ? AND tag_key = ?`, [arn, k]);
  }

  async removeAll(q: Queryable, arn: string): Promise<void> {
    await q.run(`DELETE FROM tags WHERE resource_arn = ?`, [arn]);
  }

  async count(q: Queryable, arn: string): Promise<number> {
    const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tags WHERE resource_arn = ?`, [arn]);
    return Number(row?.n ?? 0);
  }

  /** Keys among `keys` that the resource does not have yet. */
  async newKeys(q: Queryable, arn: string, keys: readonly string[]): Promise<string[]> {
    const rows = await q.all<{ tag_key: string }>(`SELECT tag_key FROM tags WHERE resource_arn = ?`, [arn]);
    const have = new Set(rows.map((r) => r.tag_key));
    return [...new Set(keys)].filter((k) => !have.has(k));
  }

  /** The tags of several resources at once, each resource's in the order they were added (Search records). */
  async ofMany(q: Queryable, arns: readonly string[]): Promise<Map<string, TagRow[]>> {
    const out = new Map<string, TagRow[]>();
    for (let i = 0; i < arns.length; i += 500) {
      const chunk = arns.slice(i, i + 500);
      const rows = await q.all<{ resource_arn: string; tag_key: string; tag_value: string }>(
        `SELECT resource_arn, tag_key, tag_value FROM tags WHERE resource_arn IN (${chunk.map(() => '?').join(', ')})
         ORDER BY resource_arn, seq, tag_key`,
        chunk,
      );
      for (const r of rows) {
        const list = out.get(r.resource_arn) ?? [];
        list.push({ Key: r.tag_key, Value: r.tag_value });
        out.set(r.resource_arn, list);
      }
    }
    return out;
  }

  /** One page of tags in the order they were added, after position `afterSeq`. */
  async page(q: Queryable, arn: string, afterSeq: number | undefined, limit: number) {
    return q.all<{ tag_key: string; tag_value: string; seq: number }>(
      `SELECT tag_key, tag_value, seq FROM tags WHERE resource_arn = ? AND seq > ? ORDER BY seq, tag_key LIMIT ?`,
      [arn, afterSeq ?? -1, limit],
    );
  }
}
