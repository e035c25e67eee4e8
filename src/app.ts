// Wires Slipway together: database, services, protocols, and the two HTTP servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { Authorizer } from './auth/authorizer.js';
import { roleMayRead, roleMayWrite } from './auth/s3-access.js';
import type { Config } from './config/config.js';
import { PageTokens } from './domain/page-token.js';
import { model as logsModel } from './generated/logs/model.js';
import { model as runtimeModel } from './generated/sagemaker-runtime/model.js';
import { model as sagemakerModel } from './generated/sagemaker/model.js';
import { openGraphService } from './graph/server.js';
import { AwsApi } from './http/aws-api.js';
import { ConsoleAssets } from './http/console-assets.js';
import { withConsoleCors } from './http/console-cors.js';
import { AwsJsonProtocol } from './protocol/aws-json/aws-json.js';
import { reapStraySandboxes } from './sandbox/sandbox.js';
import { RestJsonProtocol } from './protocol/rest-json/rest-json.js';
import { createRepositories } from './services/common/deps.js';
import { appendLogs, createLogsHandlers } from './services/logs/index.js';
import { prewarmTrainer } from './training/run-builtin.js';
import { trainingKind } from './training/training-kind.js';
import { processingKind } from './processing/processing-kind.js';
import { transformKind } from './transform/transform-kind.js';
import { ContainersFileReader } from './inference/runtimes/container/containers-file.js';
import { createRuntimeHandlers } from './services/runtime/index.js';
import { s3Handler } from './services/s3/index.js';
import { createSageMakerHandlers } from './services/sagemaker/index.js';
import { EndpointDeployments } from './services/sagemaker/endpoint-deployments.js';
import { createInferenceEngine } from './inference/create-engine.js';
import { JobRunner } from './jobs/runner.js';
import { createLineageHooks } from './lineage/hooks.js';
import { openBlobStorage } from './storage/blobs/index.js';
import { openDatabase } from './storage/db/index.js';
import { MIGRATIONS } from './storage/migrations.js';
import { pageTokenKey } from './storage/repositories/meta.js';
import { SessionStore } from './auth/sessions.js';
import { model as cloudwatchModel } from './generated/cloudwatch/model.js';
import { model as sagemakerMetricsModel } from './generated/sagemaker-metrics/model.js';
import { model as stsModel } from './generated/sts/model.js';
import { MetricsRegistry } from './inference/metrics.js';
import { EndpointMetricsRecorder } from './metrics/endpoint-recorder.js';
import { createMetrics } from './metrics/index.js';
import { AwsQueryProtocol } from './protocol/aws-query/aws-query.js';
import { RpcV2CborProtocol } from './protocol/rpc-v2-cbor/rpc-v2-cbor.js';
import { cloudWatchError, createCloudWatchHandlers } from './services/cloudwatch/index.js';
import { createSageMakerMetricsHandlers } from './services/sagemaker-metrics/index.js';
import { createStsHandlers, expireSessions } from './services/sts/index.js';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

export interface RunningApp {
  readonly port: number;
  readonly graphPort: number;
  readonly log: Logger;
  /** Re-reads the credentials file (SIGHUP); open connections stay. Throws (keeping the old file) on error. */
  reloadCredentials(): { principals: number; roles: number } | undefined;
  /**
   * Writes the endpoint metrics of the minute so far and compacts the metrics store now instead of
   * at the next minute (tests and benchmarks; the data are readable either way once written).
   */
  flushMetrics(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startApp(config: Config, log?: Logger): Promise<RunningApp> {
  const logger = log ?? pino({ level: config.logLevel, base: { service: 'slipway' } });
  // Read first: a bad credentials file stops the start before anything is opened.
  const authorizer = config.credentialsFile ? Authorizer.fromFile(config.credentialsFile) : Authorizer.anonymous();
  if (!config.databaseUrl) mkdirSync(config.dataDir, { recursive: true });
  const db = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema,
    migrations: MIGRATIONS,
  });
  // Object storage (s3:// URIs): embedded under the data dir, or --s3-endpoint.
  const storage = await openBlobStorage({
    db,
    dataDir: config.dataDir,
    s3Endpoint: config.s3Endpoint,
    accountId: config.accountId,
    region: config.defaultRegion,
  });
  const deps = {
    db,
    tokens: new PageTokens(await pageTokenKey(db)),
    repos: createRepositories(),
    blobs: storage.blobs,
    lineage: createLineageHooks(),
  };
  // The metrics store (CloudWatch, SageMaker Metrics) and what writes to it besides clients:
  // endpoint counters a minute at a time, training jobs' metrics as they are read off their output.
  const metrics = createMetrics({ db, log: logger, retentionDays: config.metricsRetentionDays });
  const registry = new MetricsRegistry();
  const recorder = config.endpointMetrics
    ? new EndpointMetricsRecorder({
        registry,
        metrics,
        defaultPartition: { accountId: config.accountId, region: config.defaultRegion },
        log: logger,
      })
    : undefined;
  // Temporary credentials (STS): kept in the database, verified by the authorizer.
  const sessions = new SessionStore(db);
  authorizer.useSessions(sessions);
  const engine = createInferenceEngine({
    registry,
    blobs: storage.blobs,
    dataDir: config.dataDir,
    idleSeconds: config.serverlessIdleSeconds,
    containerConfigPath: config.containersFile,
    log: logger,
  });
  // Background lifecycles (endpoint deployments): one runner; its claims name this server.
  const runner = new JobRunner({
    db,
    log: logger,
    replicaId: config.replicaId ?? `${hostname()}:${config.dataDir}`,
    leaseMs: config.jobLeaseSeconds * 1000,
  });
  const deployments = new EndpointDeployments(deps, engine, logger, runner);
  // Jobs: training, batch transform and processing, each a kind of the same runner. A sandbox a
  // killed predecessor left running is ended first (its job is failed at restart by the runner).
  const strays = reapStraySandboxes(join(config.dataDir, 'jobs'));
  if (strays > 0) logger.warn({ strays }, 'ended job processes left by a previous run');
  const containers = new ContainersFileReader(config.containersFile ?? process.env.SLIPWAY_CONTAINERS_FILE);
  const jobLogs = (
    p: Parameters<typeof appendLogs>[1],
    group: string,
    stream: string,
    lines: Parameters<typeof appendLogs>[4],
  ) => appendLogs(deps, p, group, stream, lines);
  const jobAccess = authorizer.enabled
    ? {
        mayRead: (role: string, uri: string) => roleMayRead(authorizer, role, uri),
        mayWrite: (role: string, uri: string) => roleMayWrite(authorizer, role, uri),
      }
    : undefined;
  const training = {
    runner,
    kind: runner.register(
      trainingKind({
        deps,
        blobs: storage.blobs,
        runner,
        dataDir: config.dataDir,
        containers,
        appendLogs: jobLogs,
        access: jobAccess,
        log: logger,
        metrics,
      }),
    ),
  };
  const batch = {
    transform: {
      runner,
      kind: runner.register(
        transformKind({ deps, blobs: storage.blobs, engine, appendLogs: jobLogs, access: jobAccess }),
      ),
    },
    processing: {
      runner,
      kind: runner.register(
        processingKind({
          deps,
          blobs: storage.blobs,
          dataDir: config.dataDir,
          containers,
          appendLogs: jobLogs,
          access: jobAccess,
        }),
      ),
    },
  };
  // Known once both servers listen (port 0 picks them); the console's config and CORS read them then.
  let port = 0;
  let graphPort = 0;
  const api = new AwsApi({
    accountId: config.accountId,
    defaultRegion: config.defaultRegion,
    log: logger,
    sagemaker: new AwsJsonProtocol({
      model: sagemakerModel,
      handlers: createSageMakerHandlers(deps, deployments, training, batch),
    }),
    runtime: new RestJsonProtocol(runtimeModel, createRuntimeHandlers(deployments)),
    logs: new AwsJsonProtocol({ model: logsModel, handlers: createLogsHandlers(deps) }),
    sts: new AwsQueryProtocol({ model: stsModel, handlers: createStsHandlers({ authorizer, sessions }) }),
    cloudwatch: (() => {
      const service = { model: cloudwatchModel, handlers: createCloudWatchHandlers(metrics, deps.tokens) };
      const options = { mapError: cloudWatchError };
      return {
        query: new AwsQueryProtocol(service, options),
        json: new AwsJsonProtocol(service, options),
        cbor: new RpcV2CborProtocol(service, options),
      };
    })(),
    sagemakerMetrics: new RestJsonProtocol(sagemakerMetricsModel, createSageMakerMetricsHandlers(deps, metrics)),
    s3: s3Handler(storage, config.accountId),
    health: () => ({ version: VERSION, database: db.dialect }),
    metrics: () => engine.metrics(),
    authorizer,
    console: new ConsoleAssets(fileURLToPath(new URL('../public/console', import.meta.url)), () => ({
      graphPort,
      region: config.defaultRegion,
      accountId: config.accountId,
      version: VERSION,
      authentication: authorizer.enabled ? 'sigv4' : 'none',
    })),
  });
  const startTime = new Date();
  const awsServer = createServer({ keepAliveTimeout: 65_000 }, api.listener);
  // The graph store opens its own database next to the main one (graph.db or <schema>_graph).
  let graph: Awaited<ReturnType<typeof openGraphService>>;
  try {
    graph = await openGraphService({
      databaseUrl: config.databaseUrl,
      databaseSchema: config.databaseSchema,
      dataDir: config.dataDir,
      blobs: storage.blobs,
      log: logger,
      accountId: config.accountId,
      defaultRegion: config.defaultRegion,
      startTime,
      version: VERSION,
      authorizer,
    });
  } catch (err) {
    storage.close();
    await db.close();
    throw err;
  }
  // The console (served on the AWS port) runs Gremlin queries on the graph port: allow its origin.
  const graphServer = createServer(
    { keepAliveTimeout: 65_000 },
    withConsoleCors(graph.listener, () => port),
  );
  graphServer.on('upgrade', graph.upgrade);
  try {
    port = await listen(awsServer, config.host, config.port);
    graphPort = await listen(graphServer, config.host, config.graphPort);
  } catch (err) {
    awsServer.close();
    await graph.close();
    await db.close();
    throw err;
  }
  // Always written, whatever the log level: scripts and tests wait for this line to learn the ports.
  logger.child({}, { level: 'info' }).info(
    {
      host: config.host,
      port,
      graphPort,
      dataDir: config.dataDir,
      database: db.dialect,
      // Which file, never what is in it.
      authentication: authorizer.enabled ? `sigv4 (${config.credentialsFile})` : 'none',
    },
    'listening',
  );
  // Endpoints left Creating, Updating or Deleting by a previous run carry on: the runner takes back
  // what this server held and claims what is queued (or held by a replica whose lease ran out).
  const resumed = await deployments.resume();
  if (resumed > 0) logger.info({ endpoints: resumed }, 'resuming endpoint deployments');
  runner.start();
  metrics.maintenance.start();
  recorder?.start();
  const stopSessionExpiry = expireSessions(sessions, logger);
  // The first training job need not pay for compiling the trainer: one thread is readied a second
  // after start, at nice 19 (SLIPWAY_TRAINER_PREWARM=0 turns this off; the test runner does).
  if (process.env.SLIPWAY_TRAINER_PREWARM !== '0') setTimeout(prewarmTrainer, 1000).unref();

  let closing: Promise<void> | undefined;
  /**
   * Stops accepting; busy connections finish their request (answered with `Connection: close`),
   * idle keep-alive ones are closed as they become idle; after `graceMs` the rest are cut.
   */
  const closeServer = (s: Server, graceMs = 30_000) =>
    new Promise<void>((resolve) => {
      const sweep = setInterval(() => s.closeIdleConnections(), 50);
      const deadline = setTimeout(() => s.closeAllConnections(), graceMs);
      s.close(() => {
        clearInterval(sweep);
        clearTimeout(deadline);
        resolve();
      });
      s.closeIdleConnections();
    });
  return {
    port,
    graphPort,
    log: logger,
    reloadCredentials() {
      return authorizer.enabled ? authorizer.reload() : undefined;
    },
    async flushMetrics() {
      await recorder?.flush();
      await metrics.maintenance.compactAll();
    },
    close() {
      closing ??= (async () => {
        api.startDraining();
        graph.closeSockets();
        await Promise.all([closeServer(awsServer), closeServer(graphServer)]);
        // The last minute of endpoint metrics is written while the variants are still known.
        await recorder?.close();
        await runner.close();
        await deployments.close();
        await engine.close();
        await metrics.maintenance.close();
        stopSessionExpiry();
        await graph.close();
        storage.close();
        await db.close();
        logger.info('stopped');
      })();
      return closing;
    },
  };
}
