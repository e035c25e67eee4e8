// Wires Slipway together: database, services, protocols, and the two HTTP servers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { Authorizer, deniedMessage } from './auth/authorizer.js';
import { sagemakerActions } from './auth/actions/sagemaker.js';
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
import { hostCaps } from './sandbox/limits.js';
import { Sandbox } from './sandbox/sandbox.js';
import { RestJsonProtocol } from './protocol/rest-json/rest-json.js';
import { createRepositories } from './services/common/deps.js';
import { appendLogs, createLogsHandlers } from './services/logs/index.js';
import { prewarmTrainer } from './training/run-builtin.js';
import { TrainingProgress } from './training/progress.js';
import { trainingKind } from './training/training-kind.js';
import { Tuning } from './tuning/tuning.js';
import { processingKind } from './processing/processing-kind.js';
import { transformKind } from './transform/transform-kind.js';
import { ContainersFileReader } from './inference/runtimes/container/containers-file.js';
import { createRuntimeHandlers } from './services/runtime/index.js';
import { s3Handler } from './services/s3/index.js';
import { createSageMakerHandlers } from './services/sagemaker/index.js';
import type { SageMakerHandlers } from './generated/sagemaker/handlers.js';
import { pipelineExecutionKind } from './pipelines/executor.js';
import { canRun } from './pipelines/step-work.js';
import { Wakeups } from './pipelines/wakeups.js';
import { EndpointDeployments } from './services/sagemaker/endpoint-deployments.js';
import { createInferenceEngine } from './inference/create-engine.js';
import { observedGraphListener } from './graph/http/graph-operation.js';
import { Telemetry } from './observability/telemetry.js';
import { concurrencyCounters, storageCounters } from './observability/server-counters.js';
import { LocalLimiter } from './inference/concurrency/limiter.js';
import { SharedLimiter } from './inference/concurrency/shared-limiter.js';
import { JobRunner } from './jobs/runner.js';
import { createLineageHooks } from './lineage/hooks.js';
import { openBlobStorage } from './storage/blobs/index.js';
import { openDatabase } from './storage/db/index.js';
import { databaseGauges } from './storage/db/size-gauges.js';
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
  // Metrics, the logger (JSON lines, or readable ones on a terminal) and, if asked for, traces.
  const telemetry = new Telemetry({ log, level: config.logLevel, format: config.logFormat });
  const logger = telemetry.log;
  await telemetry.startTracing(VERSION);
  // Read first: a bad credentials file stops the start before anything is opened.
  const authorizer = config.credentialsFile ? Authorizer.fromFile(config.credentialsFile) : Authorizer.anonymous();
  if (!config.databaseUrl) mkdirSync(config.dataDir, { recursive: true });
  const db = telemetry.database(
    await openDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      schema: config.databaseSchema,
      migrations: MIGRATIONS,
    }),
  );
  // Object storage (s3:// URIs): embedded under the data dir, or --s3-endpoint.
  const storage = await openBlobStorage({
    db,
    dataDir: config.dataDir,
    s3Endpoint: config.s3Endpoint,
    accountId: config.accountId,
    region: config.defaultRegion,
    gc: {
      graceMs: config.blobGcGraceSeconds * 1000,
      intervalMs: config.blobGcIntervalSeconds * 1000,
      uploadExpiryMs: config.incompleteUploadDays * 86_400_000,
      log: logger,
      onRun: storageCounters(telemetry.registry),
    },
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
  const registry = new MetricsRegistry({ buckets: config.endpointLatencyBuckets });
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
  // Endpoint limits: counted in memory for one replica (SQLite), shared through PostgreSQL otherwise.
  const limiterOptions = { accountConcurrency: config.serverlessAccountConcurrency };
  const limiter =
    db.dialect === 'postgres' && config.endpointLimits === 'shared'
      ? await SharedLimiter.open({ ...limiterOptions, db, log: logger, leaseMs: config.slotLeaseSeconds * 1000 })
      : new LocalLimiter(limiterOptions);
  if (limiter instanceof SharedLimiter) concurrencyCounters(telemetry.registry, limiter.stats);
  // The one way user code runs: jobs' programs and custom images' model servers. Sandboxes a killed
  // predecessor left running are ended first (their jobs are failed at restart by the runner).
  const sandbox = await Sandbox.open({
    dataDir: config.dataDir,
    hidden: [config.credentialsFile, config.containersFile].filter((p): p is string => p !== undefined),
    binds: config.sandboxBinds,
    uids: config.sandboxUids,
    host: hostCaps({ maxMemoryMB: config.sandboxMaxMemoryMB, maxDiskMB: config.sandboxMaxDiskMB }),
    required: authorizer.enabled,
    log: logger,
  });
  if (!sandbox.available && authorizer.enabled)
    logger.error(
      { sandbox: sandbox.describe() },
      'no working sandbox: jobs and custom-image model servers will be refused (a credentials file is in force)',
    );
  else if (!sandbox.available)
    logger.warn(
      { sandbox: sandbox.describe() },
      'no working sandbox: jobs and custom-image model servers run as plain processes',
    );
  else if (sandbox.probe.networkMissing.length > 0)
    logger.warn({ sandbox: sandbox.describe() }, 'sandbox without a user-mode network');
  else logger.info({ sandbox: sandbox.describe() }, 'sandbox ready');
  const engine = createInferenceEngine({
    registry,
    limiter,
    latencyBuckets: config.endpointLatencyBuckets,
    blobs: storage.blobs,
    dataDir: config.dataDir,
    idleSeconds: config.serverlessIdleSeconds,
    workerPollMicros: config.workerPollMicros,
    invokePollMicros: config.invokePollMicros,
    containerConfigPath: config.containersFile,
    log: logger,
    sandbox,
  });
  // Background lifecycles (endpoint deployments): one runner; its claims name this server.
  const runner = new JobRunner({
    db,
    log: logger,
    replicaId: config.replicaId ?? `${hostname()}:${config.dataDir}`,
    leaseMs: config.jobLeaseSeconds * 1000,
    observer: telemetry.jobs(db),
  });
  const deployments = new EndpointDeployments(deps, engine, logger, runner);
  // Jobs: training, batch transform and processing, each a kind of the same runner.
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
  // Running training jobs' output lines, for the tuning jobs that watch their children train.
  const progress = new TrainingProgress();
  const training = {
    runner,
    kind: runner.register(
      trainingKind({
        deps,
        blobs: storage.blobs,
        runner,
        dataDir: config.dataDir,
        containers,
        sandbox,
        appendLogs: jobLogs,
        logLimitBytes: config.jobLogLimitBytes,
        access: jobAccess,
        log: logger,
        metrics,
        progress,
      }),
    ),
  };
  // Hyperparameter tuning jobs: a kind of the same runner whose runs launch training jobs.
  const tuning = new Tuning({ deps, runner, training, progress, log: logger });
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
          sandbox,
          appendLogs: jobLogs,
          logLimitBytes: config.jobLogLimitBytes,
          access: jobAccess,
        }),
      ),
    },
  };
  // Pipeline executions: a kind of the same runner; their steps create jobs through the handlers
  // below, as a client would. A job's transitions wake the execution waiting on it at once.
  let sagemakerHandlers: SageMakerHandlers | undefined;
  const handlers = () => sagemakerHandlers!;
  const wakeups = new Wakeups();
  runner.subscribe(async (_tx, e) => wakeups.jobMoved(e.id));
  const pipelines = {
    runner,
    wakeups,
    blobs: storage.blobs,
    canRun: (type: string) => canRun(handlers(), type),
    kind: runner.register(
      pipelineExecutionKind({
        deps,
        blobs: storage.blobs,
        handlers,
        wakeups,
        log: logger,
        pollMs: Math.min(1000, Math.max(50, (config.jobLeaseSeconds * 1000) / 4)),
        access: authorizer.enabled
          ? {
              denied(role, operation, input, p) {
                const { action, resources } = sagemakerActions(operation, input, p);
                const refused = resources.find((r) => !authorizer.roleMay(role, action, r, p.region));
                return refused === undefined ? undefined : deniedMessage(role, action, refused, 'ImplicitDeny');
              },
              mayRead: (role, uri, region) => roleMayRead(authorizer, role, uri, region),
            }
          : undefined,
      }),
    ),
  };
  sagemakerHandlers = createSageMakerHandlers(deps, deployments, training, batch, pipelines, tuning);
  // Known once both servers listen (port 0 picks them); the console's config and CORS read them then.
  let port = 0;
  let graphPort = 0;
  const api = new AwsApi({
    accountId: config.accountId,
    defaultRegion: config.defaultRegion,
    log: logger,
    sagemaker: new AwsJsonProtocol({
      model: sagemakerModel,
      handlers: sagemakerHandlers,
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
    // Endpoint series first (the console reads them), then the database's size and the server's own.
    metrics: async () =>
      Buffer.concat([
        engine.exposition(),
        Buffer.from(await databaseGauges(db)),
        Buffer.from(await telemetry.registry.render()),
      ]),
    observe: telemetry.request,
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
    await limiter.close();
    storage.close();
    await db.close();
    throw err;
  }
  // The console (served on the AWS port) runs Gremlin queries on the graph port: allow its origin.
  const graphServer = createServer(
    { keepAliveTimeout: 65_000 },
    withConsoleCors(observedGraphListener(graph.listener, logger, telemetry.request), () => port),
  );
  graphServer.on('upgrade', graph.upgrade);
  try {
    port = await listen(awsServer, config.host, config.port);
    graphPort = await listen(graphServer, config.host, config.graphPort);
  } catch (err) {
    awsServer.close();
    await graph.close();
    await limiter.close();
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
  deployments.start();
  storage.collector?.start();
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
        await tuning.close();
        await deployments.close();
        await engine.close();
        await metrics.maintenance.close();
        stopSessionExpiry();
        await limiter.close();
        sandbox.close();
        await graph.close();
        await storage.collector?.close();
        storage.close();
        await db.close();
        await telemetry.close();
        logger.info('stopped');
      })();
      return closing;
    },
  };
}
