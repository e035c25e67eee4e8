// The graph port (Neptune-compatible HTTP API): opens the graph store's own database, the bulk
// loader's job queue and the fast-reset tokens, and serves them with Neptune's wire format.
// https://docs.aws.amazon.com/neptune/latest/userguide/access-graph-http.html
import { roleMayRead } from '../auth/s3-access.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Authorizer } from '../auth/authorizer.js';
import { neptuneGate } from '../auth/neptune-gate.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { Database } from '../storage/db/types.js';
import { gremlinHttpListener, isGremlinPath } from './gremlin/http.js';
import { GremlinService } from './gremlin/service.js';
import { gremlinWebSocket } from './gremlin/websocket.js';
import { createGraphHandlers } from './handlers.js';
import { neptuneListener } from './http/neptune-http.js';
import { LoadJobs } from './loader/load-jobs.js';
import { GraphWriter, openGraphDatabase } from './store/graph-store.js';
import { FastResetTokens } from './system/fast-reset.js';

export interface GraphServiceOptions {
  /** postgres:// URL of the main database (the graph uses its own schema there), or absent for SQLite. */
  readonly databaseUrl?: string;
  readonly databaseSchema?: string;
  /** SQLite: the data dir (the graph is graph.db there). */
  readonly dataDir: string;
  /** SQLite file name override (':memory:' in tests). */
  readonly fileName?: string;
  readonly blobs: BlobStore;
  readonly log: Logger;
  readonly accountId: string;
  readonly defaultRegion: string;
  readonly startTime: Date;
  readonly version: string;
  /** Neptune IAM authentication and authorization; absent or anonymous: every request is served. */
  readonly authorizer?: Authorizer;
}

export interface GraphService {
  readonly db: Database;
  readonly jobs: LoadJobs;
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The graph port's `upgrade` listener: the Gremlin WebSocket endpoint (ws://host:port/gremlin). */
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Closes the Gremlin WebSocket connections (before the port stops, which waits for them). */
  closeSockets(): void;
  /** Lets a running load roll back (it runs again at the next start), then closes the database. */
  close(): Promise<void>;
}

export async function openGraphService(o: GraphServiceOptions): Promise<GraphService> {
  const db = await openGraphDatabase({
    url: o.databaseUrl,
    dataDir: o.dataDir,
    schema: o.databaseSchema,
    fileName: o.fileName,
  });
  const log = o.log.child({ component: 'graph' });
  const authz = o.authorizer?.enabled ? o.authorizer : undefined;
  const gate = authz ? neptuneGate(authz, o.accountId, o.defaultRegion) : undefined;
  const jobs = new LoadJobs({
    db,
    blobs: o.blobs,
    log,
    ...(authz ? { sourceAccess: (role: string, source: string) => roleMayRead(authz, role, source) } : {}),
  });
  try {
    await jobs.init();
  } catch (err) {
    await db.close();
    throw err;
  }
  const handlers = createGraphHandlers({
    jobs,
    tokens: new FastResetTokens(),
    writer: (tx) => new GraphWriter(tx),
    startTime: o.startTime,
    version: o.version,
  });
  const neptune = neptuneListener({ handlers, log, accountId: o.accountId, defaultRegion: o.defaultRegion });
  const gremlin = new GremlinService(db);
  const gremlinHttp = gremlinHttpListener(gremlin, log, gate?.queryAccess);
  const gremlinWs = gremlinWebSocket(gremlin, log, gate?.queryAccess);
  const listener = (req: IncomingMessage, res: ServerResponse) =>
    isGremlinPath(req.url) ? gremlinHttp(req, res) : neptune(req, res);
  return {
    db,
    jobs,
    listener: gate ? gate.listener(listener) : listener,
    upgrade: gate ? gate.upgrade(gremlinWs.upgrade) : gremlinWs.upgrade,
    closeSockets: () => gremlinWs.close(),
    async close() {
      await jobs.close();
      await db.close();
    },
  };
}
