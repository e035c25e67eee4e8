// Server-wide values kept in the database (slipway_meta).
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/types.js';

/** The NextToken signing key: created once, then shared by every replica on the same database. */
export async function pageTokenKey(db: Database): Promise<Buffer> {
  const fresh = randomBytes(32).toString('base64');
  await db.run(`INSERT INTO slipway_meta (key, value) VALUES ('page-token-key', ?) ON CONFLICT (key) DO NOTHING`, [
    fresh,
  ]);
  const row = await db.get<{ value: string }>(`SELECT value FROM slipway_meta WHERE key = 'page-token-key'`);
  return Buffer.from(row!.value, 'base64');
}
