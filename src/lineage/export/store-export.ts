// The store export on several threads (SQLite): the lineage tables cut into ranges of rowids,
// each range read and written as CSV rows by one of the export threads (export-worker.ts), the
// blocks handed to the files in rowid order, so the files are byte for byte what one thread
// reading page by page writes. One pass over the entities fills the four node files.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { Partition } from '../../domain/arn.js';
import type { ExportReply, ExportTask, ExportWorkerData } from './export-worker.js';
import type { ExportFormat, RenderedLineage } from './exporter.js';

/**
 * rowids per task: what one thread holds at once is what the export's memory grows with (2,500:
 * peak RSS ~280 MB for the million-association account; 20,000: ~420 MB)
 */
const ENTITY_RANGE = 2_500;
const ASSOCIATION_RANGE = 2_500;

/*
 * The threads keep V8's default young generation. A 16 MiB one kept the peak RSS at ~245 MB
 * instead of ~295 MB for the million-association account, but cost a tenth of the export's time
 * (six interleaved runs of the whole CLI process: 2.67 s median against 2.37 s, CPU 4.9 s against
 * 4.4 s): a task's rows and text outlive a small nursery's scavenges and are copied and promoted.
 */

type Pending = { resolve(r: ExportReply): void; reject(e: Error): void; worker: number };

export interface StoreExportOptions {
  /** export threads (default: the cores, at most 4) */
  readonly threads?: number;
  /** rowids a task reads (default ENTITY_RANGE and ASSOCIATION_RANGE; tests make them small) */
  readonly rangeRows?: number;
}

/** The lineage of `partition` in the SQLite database `file`, written by export threads. */
export function renderedStore(
  file: string,
  partition: Partition,
  format: ExportFormat,
  options: StoreExportOptions = {},
): RenderedLineage {
  const threads = options.threads ?? Math.min(4, availableParallelism());
  const data: ExportWorkerData = { file, accountId: partition.accountId, region: partition.region, format };
  const workers = Array.from(
    { length: Math.max(1, threads) },
    () => new Worker(new URL('./export-worker.js', import.meta.url), { workerData: data }),
  );
  const load = workers.map(() => 0);
  const pending = new Map<number, Pending>();
  const exited = workers.map(() => false);
  let failure: Error | undefined;
  let nextId = 0;
  workers.forEach((w, k) => {
    w.on('message', (r: ExportReply) => {
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      load[k]--;
      if ('error' in r) p.reject(new Error(r.error));
      else p.resolve(r);
    });
    const fail = (e: Error) => {
      failure ??= e;
      for (const [id, p] of pending) {
        if (p.worker !== k) continue;
        pending.delete(id);
        p.reject(e);
      }
    };
    w.on('error', fail);
    w.on('exit', (code) => {
      exited[k] = true;
      fail(new Error(`an export thread exited (code ${code})`));
    });
  });
  const run = (table: ExportTask['table'], from: number, to: number): Promise<ExportReply> => {
    if (failure) return Promise.reject(failure);
    let k = 0;
    for (let i = 1; i < workers.length; i++) if (load[i]! < load[k]!) k = i;
    load[k]!++;
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, worker: k });
      workers[k]!.postMessage({ id, table, from, to } satisfies ExportTask);
    });
  };
  /** The table's rowid ranges, read in order, at most two a thread at once. */
  async function* ranges(table: ExportTask['table'], size: number): AsyncGenerator<ExportReply> {
    const db = new BetterSqlite3(file, { fileMustExist: true });
    let bounds: { lo: number | null; hi: number | null };
    const t = table === 'entities' ? 'lineage_entities' : 'lineage_associations';
    try {
      // Each bound in a query of its own: SQLite reads a lone min() or max() of the rowid off the
      // B-tree's edge, but both in one query scan the whole table (~0.2 s of the million
      // associations, with the export threads waiting).
      bounds = db
        .prepare(`SELECT (SELECT min(rowid) FROM ${t}) AS lo, (SELECT max(rowid) FROM ${t}) AS hi`)
        .get() as typeof bounds;
    } finally {
      db.close();
    }
    if (bounds.lo === null || bounds.hi === null) return;
    const queue: Promise<ExportReply>[] = [];
    for (let from = bounds.lo; from <= bounds.hi; from += size) {
      if (queue.length >= 2 * workers.length) yield await (queue.shift() as Promise<ExportReply>);
      const p = run(table, from, Math.min(from + size, bounds.hi + 1));
      p.catch(() => {}); // awaited in order below
      queue.push(p);
    }
    while (queue.length > 0) yield await (queue.shift() as Promise<ExportReply>);
  }
  return {
    async *nodes() {
      for await (const r of ranges('entities', options.rangeRows ?? ENTITY_RANGE)) if ('texts' in r) yield r;
    },
    async *edges() {
      for await (const r of ranges('associations', options.rangeRows ?? ASSOCIATION_RANGE)) if ('text' in r) yield r;
    },
    async close() {
      failure ??= new Error('the export was closed');
      await Promise.all(
        workers.map((w, k) =>
          exited[k]
            ? undefined
            : new Promise<void>((resolve) => {
                w.once('exit', () => resolve());
                w.postMessage('close');
              }),
        ),
      );
    },
  };
}
