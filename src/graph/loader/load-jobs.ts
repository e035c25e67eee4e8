// The bulk loader's job queue: one load runs at a time, up to 64 wait behind it (queueRequest),
// dependencies, RESUME/AUTO/NEW modes, cancellation, and the Get-Status payload with feed counts
// and paged error logs. Jobs and their errors persist in the graph database.
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-load.html
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-status-response.html
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { Database, Queryable } from '../../storage/db/types.js';
import { CsvParser } from '../csv/csv-parser.js';
import { type FilePlan, gremlinPlan, HeaderError, openCypherPlan } from '../csv/headers.js';
import { GraphWriter } from '../store/graph-store.js';
import { GRAPH_SECONDARY_INDEXES } from '../store/migrations.js';

import {
  BATCH_ROWS,
  FeedLoader,
  type LoadCounters,
  type LoadErrorLog,
  LoadStopped,
  StagingAbandoned,
  zeroCounters,
} from './feed-loader.js';
import { listSource, readHeader, readText, type SourceFile } from './source-files.js';
import { IdFingerprints } from './id-fingerprints.js';
import {
  type Feed,
  type Job,
  LoaderRequestError,
  type LoadRequest,
  type LoadStatus,
  MAX_ERRORS,
  MAX_JOBS,
  MAX_QUEUE,
  RUNNING,
  type SourceAccess,
  type StatusQuery,
  saveErrors,
  saveJob,
} from './load-job-model.js';

export { LoaderRequestError, type LoadRequest, type LoadStatus, MAX_QUEUE, type SourceAccess, type StatusQuery };

/** The vertex tables' secondary indexes (built while the edge files load). */
const VERTEX_TABLE_INDEXES: ReadonlySet<string> = new Set(
  GRAPH_SECONDARY_INDEXES.filter((ix) => ix.table !== 'graph_edges').map((ix) => ix.name),
);

export class LoadJobs {
  readonly #db: Database;
  readonly #blobs: BlobStore;
  readonly #log: Logger;
  readonly #jobs = new Map<string, Job>();
  readonly #queue: Job[] = [];
  #running: Job | undefined;
  #runningDone: Promise<void> | undefined;
  #seq = 0;
  #closed = false;
  /** Persistence runs behind the load transaction (SQLite has one writer), in order. */
  #persisting: Promise<void> = Promise.resolve();

  readonly #sourceAccess: SourceAccess | undefined;

  constructor(o: { db: Database; blobs: BlobStore; log: Logger; sourceAccess?: SourceAccess }) {
    this.#db = o.db;
    this.#blobs = o.blobs;
    this.#log = o.log;
    this.#sourceAccess = o.sourceAccess;
  }

  /** Loads the job history; jobs that were queued or running when the server stopped run again. */
  async init(): Promise<void> {
    const rows = await this.#db.all<{ doc: string }>('SELECT doc FROM graph_load_jobs ORDER BY seq');
    for (const r of rows) {
      const job = JSON.parse(r.doc) as Job;
      job.errors = undefined;
      job.cancelRequested = false;
      this.#jobs.set(job.id, job);
      this.#seq = Math.max(this.#seq, job.seq);
      if (RUNNING.has(job.status)) {
        // Its transaction never committed, so running it again from the start is safe.
        Object.assign(job, {
          status: 'LOAD_IN_QUEUE',
          startTime: 0,
          totalTimeSpent: 0,
          counters: zeroCounters(),
          feeds: [],
          errorCount: 0,
        });
        await this.#db.run('DELETE FROM graph_load_errors WHERE load_id = ?', [job.id]);
        this.#queue.push(job);
      }
    }
    this.#pump();
  }

  /** Queues a load (Neptune answers with the id at once and loads in the background). */
  async start(request: LoadRequest): Promise<string> {
    if (this.#closed) throw new LoaderRequestError('BadRequestException', 'The server is shutting down.');
    const busy = this.#running !== undefined || this.#queue.length > 0;
    if (busy && !request.queueRequest) {
      throw new LoaderRequestError(
        'BadRequestException',
        `Failed to start new load for the source ${request.source}. Max concurrent load limit breached. Limit is 1`,
      );
    }
    if (this.#queue.length >= MAX_QUEUE) {
      throw new LoaderRequestError(
        'BadRequestException',
        `Failed to start new load for the source ${request.source}. Max load task queue size limit breached. Limit is ${MAX_QUEUE}`,
      );
    }
    for (const d of request.dependencies) {
      if (!this.#jobs.has(d))
        throw new LoaderRequestError(
          'BadRequestException',
          `Failed to start new load for the source ${request.source}. Dependency ${d} does not exist`,
        );
    }
    // Neptune checks the source before accepting the load.
    let files: SourceFile[];
    try {
      files = await listSource(this.#blobs, request.source);
    } catch (err) {
      const e = err as Error;
      if (e.name === 'BlobNotFoundError')
        throw new LoaderRequestError('BadRequestException', `S3 bucket not found for source ${request.source}`);
      if (e.name === 'InvalidS3UriError')
        throw new LoaderRequestError('InvalidParameterException', `Invalid source URI: ${request.source}`);
      throw err;
    }
    if (files.length === 0) {
      throw new LoaderRequestError('BadRequestException', `The source ${request.source} does not exist/not reachable`);
    }
    const job: Job = {
      id: randomUUID(),
      seq: ++this.#seq,
      request,
      status: busy ? 'LOAD_IN_QUEUE' : 'LOAD_NOT_STARTED',
      startTime: 0,
      totalTimeSpent: 0,
      counters: zeroCounters(),
      feeds: [],
      errorCount: 0,
      errors: [],
      cancelRequested: false,
    };
    this.#jobs.set(job.id, job);
    this.#queue.push(job);
    this.#persist(job);
    this.#prune();
    this.#pump();
    return job.id;
  }

  /** Load ids, queued ones first (latest queued first), then the others from the most recent. */
  list(limit: number, includeQueued: boolean): string[] {
    const queued = includeQueued ? [...this.#queue].reverse().filter((j) => j.status === 'LOAD_IN_QUEUE') : [];
    const rest = [...this.#jobs.values()].filter((j) => j.status !== 'LOAD_IN_QUEUE').sort((a, b) => b.seq - a.seq);
    return [...queued, ...rest].slice(0, limit).map((j) => j.id);
  }

  #job(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job)
      throw new LoaderRequestError(
        'BulkLoadIdNotFoundException',
        `The load with id = ${id} does not exist or not active`,
      );
    return job;
  }

  /** The Get-Status payload. */
  async status(id: string, q: StatusQuery): Promise<Record<string, unknown>> {
    const job = this.#job(id);
    const overall = (
      f: LoadCounters & { status: LoadStatus; totalTimeSpent: number; startTime: number },
      fullUri: string,
    ) => ({
      fullUri,
      runNumber: 1,
      retryNumber: 0,
      status: f.status,
      totalTimeSpent: f.totalTimeSpent,
      startTime: f.startTime,
      totalRecords: f.totalRecords,
      totalDuplicates: f.totalDuplicates,
      parsingErrors: f.parsingErrors,
      datatypeMismatchErrors: f.datatypeMismatchErrors,
      insertErrors: f.insertErrors,
    });
    const timeSpent =
      job.status === 'LOAD_IN_PROGRESS' ? Math.floor(Date.now() / 1000) - job.startTime : job.totalTimeSpent;
    const counts = new Map<string, number>();
    for (const f of job.feeds) counts.set(f.status, (counts.get(f.status) ?? 0) + 1);
    const payload: Record<string, unknown> = {
      feedCount: [...counts].map(([s, n]) => ({ [s]: n })),
      overallStatus: overall(
        { ...job.counters, status: job.status, totalTimeSpent: timeSpent, startTime: job.startTime },
        job.request.source,
      ),
    };
    if (q.details) {
      const failed = job.feeds.filter((f) => f.status !== 'LOAD_COMPLETED' && !RUNNING.has(f.status));
      if (failed.length > 0) payload.failedFeeds = failed.map((f) => overall(f, f.fullUri));
    }
    if (q.errors) {
      const start = (q.page - 1) * q.errorsPerPage;
      let logs: LoadErrorLog[];
      if (job.errors) {
        logs = job.errors.slice(start, start + q.errorsPerPage);
      } else {
        const rows = await this.#db.all<{
          error_code: string;
          error_message: string;
          file_name: string;
          record_num: number;
        }>(
          'SELECT error_code, error_message, file_name, record_num FROM graph_load_errors WHERE load_id = ? ORDER BY seq LIMIT ? OFFSET ?',
          [id, q.errorsPerPage, start],
        );
        logs = rows.map((r) => ({
          errorCode: r.error_code as LoadErrorLog['errorCode'],
          errorMessage: r.error_message,
          fileName: r.file_name,
          recordNum: Number(r.record_num),
        }));
      }
      payload.errors = {
        startIndex: logs.length > 0 ? start + 1 : 0,
        endIndex: logs.length > 0 ? start + logs.length : 0,
        loadId: id,
        errorLogs: logs,
      };
    }
    return payload;
  }

  /** Cancels a queued or running load (a running one rolls back). */
  cancel(id: string): void {
    const job = this.#job(id);
    if (!RUNNING.has(job.status)) {
      throw new LoaderRequestError(
        'BadRequestException',
        `Failed to cancel load ${id}: the load has already finished with status ${job.status}`,
      );
    }
    if (job === this.#running) {
      job.cancelRequested = true;
      return;
    }
    const i = this.#queue.indexOf(job);
    if (i >= 0) this.#queue.splice(i, 1);
    job.status = 'LOAD_CANCELLED_BY_USER';
    this.#persist(job);
  }

  /** Fast reset: cancels every load, waits for the running one to roll back, forgets the history. */
  async resetAll(clear: (tx: Queryable) => Promise<void>): Promise<void> {
    for (const j of this.#queue.splice(0)) j.status = 'LOAD_CANCELLED_BY_USER';
    if (this.#running) this.#running.cancelRequested = true;
    await this.#runningDone;
    await this.#persisting;
    await this.#db.transaction(async (tx) => {
      await clear(tx);
      await tx.run('DELETE FROM graph_load_errors');
      await tx.run('DELETE FROM graph_load_jobs');
    });
    this.#jobs.clear();
  }

  /** Stops taking loads; a running load rolls back and will run again at the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#running) this.#running.cancelRequested = true;
    await this.#runningDone;
    await this.#persisting;
  }

  #prune(): void {
    if (this.#jobs.size <= MAX_JOBS) return;
    const old = [...this.#jobs.values()].filter((j) => !RUNNING.has(j.status)).sort((a, b) => a.seq - b.seq);
    for (const j of old.slice(0, this.#jobs.size - MAX_JOBS)) {
      this.#jobs.delete(j.id);
      this.#enqueuePersistence(async () => {
        await this.#db.run('DELETE FROM graph_load_errors WHERE load_id = ?', [j.id]);
        await this.#db.run('DELETE FROM graph_load_jobs WHERE id = ?', [j.id]);
      });
    }
  }

  #enqueuePersistence(op: () => Promise<void>): Promise<void> {
    this.#persisting = this.#persisting
      .then(op)
      .catch((err) => this.#log.error({ err }, 'graph loader: could not persist a load job'));
    return this.#persisting;
  }

  /** Writes the job's current state (read when the write runs, so it is never stale). */
  #persist(job: Job): Promise<void> {
    return this.#enqueuePersistence(async () => {
      if (!this.#jobs.has(job.id)) return;
      await saveJob(this.#db, job);
    });
  }

  #pump(): void {
    if (this.#running || this.#closed) return;
    const job = this.#queue.shift();
    if (!job) return;
    this.#running = job;
    this.#runningDone = this.#run(job)
      .catch((err) => {
        this.#log.error({ err, loadId: job.id }, 'graph loader: load failed unexpectedly');
        job.status = 'LOAD_UNEXPECTED_ERROR';
        return this.#persist(job);
      })
      .finally(() => {
        this.#running = undefined;
        this.#pump();
      });
  }

  async #run(job: Job): Promise<void> {
    const r = job.request;
    for (const d of r.dependencies) {
      const dep = this.#jobs.get(d);
      if (dep?.status !== 'LOAD_COMPLETED') {
        job.status = 'LOAD_FAILED_BECAUSE_DEPENDENCY_NOT_SATISFIED';
        await this.#persist(job);
        return;
      }
    }
    job.status = 'LOAD_IN_PROGRESS';
    job.startTime = Math.floor(Date.now() / 1000);
    job.errors = [];
    const started = Date.now();
    const errors = job.errors;
    const logError = (e: LoadErrorLog) => {
      job.errorCount++;
      // Keep the most recent errors, as Neptune does.
      if (errors.length >= MAX_ERRORS) errors.shift();
      errors.push(e);
    };

    // The load reads as the role it names: one the credentials file lists, whose policy allows the read.
    if (this.#sourceAccess && !this.#sourceAccess(r.iamRoleArn, r.source)) {
      this.#log.info({ loadId: job.id, iamRoleArn: r.iamRoleArn }, 'graph loader: the role may not read the source');
      job.status = 'LOAD_S3_ACCESS_DENIED_ERROR';
      await this.#finish(job, started);
      return;
    }
    let files: SourceFile[];
    try {
      files = await listSource(this.#blobs, r.source);
    } catch (err) {
      this.#log.warn({ err, loadId: job.id }, 'graph loader: cannot list the source');
      job.status = 'LOAD_S3_READ_ERROR';
      await this.#finish(job, started);
      return;
    }
    files = this.#skipLoaded(job, files);

    // Plan every file from its header: vertex files load before edge files.
    const planned: { file: SourceFile; plan: FilePlan; feed: Feed }[] = [];
    const badHeaders: { feed: Feed; message: string }[] = [];
    for (const file of files) {
      const feed: Feed = {
        fullUri: file.uri,
        etag: file.etag,
        status: 'LOAD_NOT_STARTED',
        ...zeroCounters(),
        totalTimeSpent: 0,
        startTime: 0,
      };
      job.feeds.push(feed);
      try {
        const header = await readHeader(this.#blobs, file.uri);
        if (!header) {
          feed.status = 'LOAD_COMPLETED';
          continue;
        }
        planned.push({ file, feed, plan: r.format === 'opencypher' ? openCypherPlan(header) : gremlinPlan(header) });
      } catch (err) {
        if (err instanceof HeaderError || (err as Error).message.includes('quoted')) {
          badHeaders.push({ feed, message: `Invalid header: ${(err as Error).message}` });
        } else {
          this.#log.warn({ err, loadId: job.id, file: file.uri }, 'graph loader: cannot read a file');
          feed.status = 'LOAD_S3_READ_ERROR';
        }
      }
    }
    planned.sort((a, b) => (a.plan.element === b.plan.element ? 0 : a.plan.element === 'vertex' ? -1 : 1));

    const opts = {
      failOnError: r.failOnError,
      updateSingleCardinalityProperties: r.updateSingleCardinalityProperties,
      allowEmptyStrings: /^true$/i.test(r.parserConfiguration.allowEmptyStrings ?? ''),
    };
    let outcome: 'completed' | 'error' | 'cancelled' | 's3' = 'completed';
    let final: LoadStatus = 'LOAD_COMPLETED';
    try {
      // DEVIATION(neptune): one transaction per load. Neptune commits as it goes and, under
      // failOnError, keeps what it loaded before the error; here a failed or cancelled load
      // leaves the graph exactly as it was, and a successful one appears all at once.
      // The load's SQLite statements run on a thread of their own while the next batch is parsed.
      const transaction = this.#db.threadTransaction?.bind(this.#db) ?? this.#db.transaction.bind(this.#db);
      await transaction(async (tx) => {
        this.#log.debug({ loadId: job.id, ms: Date.now() - started }, 'graph loader: transaction open');
        const writer = new GraphWriter(tx);
        const knownVertices = new Map<string, number>();
        const vertexNumbers = { next: 1 };
        let stageEdges = writer.canStage;
        // Secondary indexes of empty tables are built once at the end (SQLite).
        const deferred = await writer.deferIndexes(['graph_vertex_labels', 'graph_vertex_props', 'graph_edges']);
        // A connection setting, not part of the transaction: put back however the load ends.
        const emptyTables = deferred.length === GRAPH_SECONDARY_INDEXES.length;
        const restoreCache = await writer.loadCache(emptyTables);
        const newGraph = emptyTables && !(await tx.get('SELECT 1 AS x FROM graph_vertices LIMIT 1'));
        try {
          const edgeIds = { ids: deferred.includes('graph_edges_by_id') ? new IdFingerprints() : undefined };
          // The batch path finds existing edges through the id index.
          const batchEdges = async () => {
            await writer.ensureEdgeIdIndex();
            edgeIds.ids = undefined;
          };
          for (const b of badHeaders) {
            b.feed.status = 'LOAD_FAILED';
            b.feed.parsingErrors++;
            job.counters.parsingErrors++;
            logError({ errorCode: 'PARSING_ERROR', errorMessage: b.message, fileName: b.feed.fullUri, recordNum: 1 });
            if (r.failOnError) throw new LoadStopped('error');
          }
          // The vertex tables' indexes are built while the edge files load (vertex files come
          // first): the connection's thread works on them while this one parses the edges.
          let vertexIndexes: Promise<void> | undefined;
          for (const { file, plan, feed } of planned) {
            if (job.cancelRequested) throw new LoadStopped('cancelled');
            if (plan.element === 'edge' && !vertexIndexes) {
              vertexIndexes = writer.restoreIndexes(deferred.filter((n) => VERTEX_TABLE_INDEXES.has(n)));
              // Its failure fails the load below (and a statement after one fails in the transaction).
              vertexIndexes.catch(() => {});
            }
            feed.status = 'LOAD_IN_PROGRESS';
            feed.startTime = Math.floor(Date.now() / 1000);
            const feedStarted = Date.now();
            const loadFile = async (staged: boolean): Promise<FeedLoader> => {
              const loader = new FeedLoader(
                plan,
                file.uri,
                {
                  writer,
                  options: opts,
                  knownVertices,
                  newGraph,
                  vertexNumbers,
                  edgeIds,
                  counters: [feed, job.counters],
                  error: logError,
                  checkCancelled: () => {
                    if (job.cancelRequested) throw new LoadStopped('cancelled');
                  },
                },
                staged,
              );
              let header = true;
              const parser = new CsvParser({
                record: (fields, line) => {
                  if (header) header = false;
                  else loader.record(fields, line);
                },
                error: (message, line) => loader.syntaxError(message, line),
              });
              try {
                for await (const chunk of readText(this.#blobs, file.uri)) {
                  parser.write(chunk);
                  // The next batch is parsed while this one is written.
                  if (loader.pending >= BATCH_ROWS) await loader.flushAhead();
                }
                parser.end();
                await loader.finish();
              } catch (err) {
                // Nothing of this file may be written after the caller rolls it back.
                await loader.drain();
                if (err instanceof StagingAbandoned) err.loader = loader;
                throw err;
              }
              return loader;
            };
            try {
              if (stageEdges && plan.element === 'edge') {
                // The staged path, inside a savepoint: if it cannot give the batch path's result
                // (an edge id that is not new, an error under failOnError), the file is rolled back
                // and its counters restored, and it loads again through the batch path.
                const feedBefore = { ...feed };
                const jobBefore = { ...job.counters };
                await writer.resetStaging();
                await tx.run('SAVEPOINT graph_staged_file');
                try {
                  await loadFile(true);
                  await tx.run('RELEASE SAVEPOINT graph_staged_file');
                } catch (err) {
                  if (!(err instanceof StagingAbandoned)) throw err;
                  this.#log.debug(
                    { loadId: job.id, file: file.uri, why: err.why },
                    'graph loader: staged load abandoned',
                  );
                  await tx.run('ROLLBACK TO SAVEPOINT graph_staged_file');
                  await tx.run('RELEASE SAVEPOINT graph_staged_file');
                  await writer.resetStaging();
                  for (const id of err.loader?.remembered ?? []) knownVertices.delete(id);
                  Object.assign(feed, feedBefore);
                  Object.assign(job.counters, jobBefore);
                  // A load with repeated edge ids is likely to repeat them in its other files too.
                  stageEdges = false;
                  await batchEdges();
                  await loadFile(false);
                }
              } else {
                if (plan.element === 'edge') await batchEdges();
                await loadFile(false);
              }
            } catch (err) {
              feed.totalTimeSpent = Math.round((Date.now() - feedStarted) / 1000);
              if (err instanceof LoadStopped) {
                feed.status = err.reason === 'cancelled' ? 'LOAD_CANCELLED_BY_USER' : 'LOAD_FAILED';
              } else {
                feed.status = 'LOAD_S3_READ_ERROR';
              }
              throw err;
            }
            this.#log.debug(
              { loadId: job.id, file: file.uri, ms: Date.now() - feedStarted },
              'graph loader: file done',
            );
            feed.totalTimeSpent = Math.round((Date.now() - feedStarted) / 1000);
            feed.status =
              feed.parsingErrors + feed.datatypeMismatchErrors + feed.insertErrors > 0
                ? 'LOAD_FAILED'
                : 'LOAD_COMPLETED';
          }
          const indexesStarted = Date.now();
          await vertexIndexes;
          // Again, after a staged file rolled back to its savepoint (IF NOT EXISTS: the rest are kept).
          await writer.restoreIndexes(deferred);
          this.#log.debug(
            { loadId: job.id, indexes: deferred, ms: Date.now() - indexesStarted },
            'graph loader: indexes built',
          );
          // Success: the job's final state commits together with the data it describes; readers
          // see the final status only once the data is visible.
          final = this.#finalStatus(job);
          job.totalTimeSpent = Math.round((Date.now() - started) / 1000);
          await saveJob(tx, { ...job, status: final });
          await saveErrors(tx, job.id, errors);
        } finally {
          await restoreCache();
        }
      });
      // With the index builds' line before it: the time COMMIT and the WAL's sync take.
      this.#log.debug({ loadId: job.id, ms: Date.now() - started }, 'graph loader: committed and synced');
      job.status = final;
    } catch (err) {
      if (err instanceof LoadStopped) outcome = err.reason;
      else {
        this.#log.warn({ err, loadId: job.id }, 'graph loader: reading the source failed');
        outcome = 's3';
      }
    }
    if (outcome === 'completed') {
      job.errors = undefined;
      return;
    }
    // Rolled back: record why, then mark feeds that never ran.
    for (const f of job.feeds) {
      if (RUNNING.has(f.status))
        f.status = outcome === 'cancelled' ? 'LOAD_CANCELLED_BY_USER' : 'LOAD_CANCELLED_DUE_TO_ERRORS';
    }
    job.status =
      outcome === 'cancelled' ? 'LOAD_CANCELLED_BY_USER' : outcome === 's3' ? 'LOAD_S3_READ_ERROR' : 'LOAD_FAILED';
    await this.#finish(job, started);
  }

  #finalStatus(job: Job): LoadStatus {
    if (job.feeds.some((f) => f.status === 'LOAD_S3_READ_ERROR')) return 'LOAD_S3_READ_ERROR';
    const c = job.counters;
    return c.parsingErrors + c.datatypeMismatchErrors + c.insertErrors > 0 ? 'LOAD_FAILED' : 'LOAD_COMPLETED';
  }

  /** Persists a job that did not commit data, then exposes its final status. */
  async #finish(job: Job, started: number): Promise<void> {
    job.totalTimeSpent = Math.round((Date.now() - started) / 1000);
    const errors = job.errors ?? [];
    await this.#enqueuePersistence(async () => {
      if (!this.#jobs.has(job.id)) return;
      await this.#db.transaction(async (tx) => {
        await saveJob(tx, job);
        await tx.run('DELETE FROM graph_load_errors WHERE load_id = ?', [job.id]);
        await saveErrors(tx, job.id, errors);
      });
    });
    job.errors = undefined;
  }

  /**
   * RESUME and AUTO skip files that an earlier load of the same source loaded completely (and
   * that have not changed since); NEW loads everything.
   */
  #skipLoaded(job: Job, files: SourceFile[]): SourceFile[] {
    if (job.request.mode === 'NEW') return files;
    // DEVIATION(neptune): RESUME without an earlier load of the source loads it, like AUTO,
    // instead of stopping; RESUME is the default and a first load should simply work.
    const done = new Set<string>();
    for (const j of this.#jobs.values()) {
      if (j === job || j.request.source !== job.request.source) continue;
      for (const f of j.feeds)
        if (f.status === 'LOAD_COMPLETED' && j.status !== 'LOAD_CANCELLED_BY_USER')
          done.add(`${f.fullUri}\u0000${f.etag}`);
    }
    return files.filter((f) => !done.has(`${f.uri}\u0000${f.etag}`));
  }
}
