// A thread of the store export (store-export.ts): reads ranges of rowids of the lineage tables
// through a SQLite connection of its own and writes their rows as the export files' CSV, UTF-8
// encoded; the main thread writes the blocks in rowid order, as one thread reading page by page
// would have written them.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { edgeRows, type ExportFormat, type ExportProgress, nodeRow } from './exporter.js';
import { NODE_FILES, type NodeKind } from './model.js';
import { nodeOf } from './store-source.js';

export interface ExportWorkerData {
  readonly file: string;
  readonly accountId: string;
  readonly region: string;
  readonly format: ExportFormat;
}

/** A range of rowids [from, to) of one table. */
export interface ExportTask {
  readonly id: number;
  readonly table: 'entities' | 'associations';
  readonly from: number;
  readonly to: number;
}

export type ExportReply =
  | { readonly id: number; readonly texts: Uint8Array[]; readonly nodes: number }
  | { readonly id: number; readonly text: Uint8Array; readonly edges: number; readonly skipped: number }
  | { readonly id: number; readonly error: string };

/** Stored entity kinds → the node file (index into NODE_FILES) and the export's kind. */
const FILE_OF: Record<string, { index: number; kind: NodeKind }> = {
  artifact: { index: NODE_FILES.findIndex((f) => f.kind === 'artifact'), kind: 'artifact' },
  action: { index: NODE_FILES.findIndex((f) => f.kind === 'action'), kind: 'action' },
  context: { index: NODE_FILES.findIndex((f) => f.kind === 'context'), kind: 'context' },
  'experiment-trial-component': {
    index: NODE_FILES.findIndex((f) => f.kind === 'trialComponent'),
    kind: 'trialComponent',
  },
};

const { file, accountId, region } = workerData as ExportWorkerData;
const db = new BetterSqlite3(file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// Rows as arrays (raw): better-sqlite3 gives each row of an object statement its named properties
// one by one (reading the 1M associations of the issue-36 bench so took 1.3 s on one thread, as
// arrays 0.9 s); an object literal of one shape, made here, costs little.
const entities = db
  .prepare(
    `SELECT kind, arn, doc, created_at, last_modified_at FROM lineage_entities
     WHERE rowid >= ? AND rowid < ? AND account_id = ? AND region = ?
       AND kind IN ('artifact', 'action', 'context', 'experiment-trial-component') ORDER BY rowid`,
  )
  .raw(true);
const associations = db
  .prepare(
    `SELECT source_arn, destination_arn, association_type
     FROM lineage_associations WHERE rowid >= ? AND rowid < ? AND account_id = ? AND region = ? ORDER BY rowid`,
  )
  .raw(true);
const encoder = new TextEncoder();

function run(t: ExportTask): { reply: ExportReply; transfer: ArrayBuffer[] } {
  if (t.table === 'entities') {
    const texts = NODE_FILES.map(() => '');
    const rows = entities.all(t.from, t.to, accountId, region) as [string, string, string, number, number][];
    for (const [kind, arn, doc, created, modified] of rows) {
      const f = FILE_OF[kind]!;
      const row = { arn, doc, created_at: created, last_modified_at: modified };
      texts[f.index] += nodeRow(NODE_FILES[f.index]!, nodeOf(f.kind, row));
    }
    const bytes = texts.map((x) => encoder.encode(x));
    return {
      reply: { id: t.id, texts: bytes, nodes: rows.length },
      transfer: bytes.map((b) => b.buffer as ArrayBuffer),
    };
  }
  const rows = associations.all(t.from, t.to, accountId, region) as [string, string, string | null][];
  const progress: ExportProgress = { nodes: 0, edges: 0, skippedEdges: 0 };
  const edges = rows.map(([sourceArn, destinationArn, type]) => ({
    sourceArn,
    destinationArn,
    associationType: type ?? undefined,
  }));
  const text = encoder.encode(edgeRows(edges, progress));
  return {
    reply: { id: t.id, text, edges: progress.edges, skipped: progress.skippedEdges },
    transfer: [text.buffer as ArrayBuffer],
  };
}

parentPort!.on('message', (t: ExportTask | 'close') => {
  if (t === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    const { reply, transfer } = run(t);
    parentPort!.postMessage(reply, transfer);
  } catch (err) {
    parentPort!.postMessage({ id: t.id, error: (err as Error).message } satisfies ExportReply);
  }
});
