// One typed, frozen configuration built from flags, environment and defaults (flags win).
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { DEFAULT_INVOKE_POLL_US } from '../inference/runtimes/container/answer-poller.js';

export interface Config {
  readonly host: string;
  /** AWS API port (SageMaker, SageMaker Runtime); 0 picks a free port. */
  readonly port: number;
  /** Graph (Neptune-compatible) API port; 0 picks a free port. */
  readonly graphPort: number;
  readonly dataDir: string;
  readonly accountId: string;
  /** `postgres://...` to use PostgreSQL; absent for the embedded SQLite database. */
  readonly databaseUrl: string | undefined;
  /** PostgreSQL schema (default public). */
  readonly databaseSchema: string | undefined;
  readonly logLevel: string;
  /** Region used when a request is not SigV4-signed. */
  readonly defaultRegion: string;
  /** A real S3 or MinIO for object storage (the embedded S3 API is then off); absent for the embedded store. */
  readonly s3Endpoint: string | undefined;
  /** Serverless scale-in: workers stop after this many seconds without traffic. */
  readonly serverlessIdleSeconds: number;
  /** Longest a framework model worker busy-polls for its next request before it sleeps (µs; 0: never). */
  readonly workerPollMicros: number;
  /** Longest the event loop polls for a framework model worker's answer before it sleeps (µs; 0: never). */
  readonly invokePollMicros: number;
  /** JSON file mapping custom container images to local commands (the process runtime). */
  readonly containersFile: string | undefined;
  /** Names this server in background-work claims (src/jobs); default: host name and data dir. */
  readonly replicaId: string | undefined;
  /** A claim on background work lasts this long without a heartbeat before another replica takes it over. */
  readonly jobLeaseSeconds: number;
  /** JSON file of principals (access keys, ARNs, IAM policies) and roles; absent: anonymous, loopback only. */
  readonly credentialsFile: string | undefined;
  /** Serve without authentication on a non-loopback address (explicitly asked for). */
  readonly allowAnonymous: boolean;
  /** Days the metrics store keeps CloudWatch data points (CloudWatch keeps 455). */
  readonly metricsRetentionDays: number;
  /** Whether endpoint invocations are recorded in the metrics store (AWS/SageMaker), a minute at a time. */
  readonly endpointMetrics: boolean;
  // Operating several replicas, storage hygiene and logs (issue 33).
  /**
   * `shared`: with PostgreSQL, endpoint limits hold for the endpoint across replicas; `replica`: each
   * replica counts alone (as before; for comparison and for replicas that must not wait on the database).
   */
  readonly endpointLimits: 'shared' | 'replica';
  /** Concurrency slots of an endpoint a replica holds without heartbeat are released after this long. */
  readonly slotLeaseSeconds: number;
  /** In-flight serverless invocations of one account and region, all endpoints together (SageMaker's quota). */
  readonly serverlessAccountConcurrency: number;
  /** Orphan blob files last written longer ago than this are removed (embedded object store). */
  readonly blobGcGraceSeconds: number;
  /** How often orphan blobs and stale multipart uploads are looked for. */
  readonly blobGcIntervalSeconds: number;
  /** Multipart uploads initiated longer ago than this are aborted; 0 keeps them. */
  readonly incompleteUploadDays: number;
  /** /metrics: endpoint latencies as histograms with buckets rather than summaries (sum, count). */
  readonly endpointLatencyBuckets: boolean;
  /** Log lines: `pretty` (human-readable), `json`, or `auto` (pretty on a terminal, JSON otherwise). */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** The sandbox (src/sandbox): uids it runs user code as when Slipway is root. */
  readonly sandboxUids: { readonly first: number; readonly last: number } | undefined;
  /** Directories every sandbox sees read-only (an interpreter outside /usr). */
  readonly sandboxBinds: readonly string[];
  /** Caps on any one sandbox's memory and any one job's disk, below what instance types give (MB). */
  readonly sandboxMaxMemoryMB: number | undefined;
  readonly sandboxMaxDiskMB: number | undefined;
  /** Bytes of one job's log kept in CloudWatch Logs; the rest is counted and noted. */
  readonly jobLogLimitBytes: number;
}

export class ConfigError extends Error {}

/** Off: what polling buys and costs is measured in docs/benchmarks.md (issue 30). */
const DEFAULT_WORKER_POLL_US = 0;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'graph-port': { type: 'string' },
  'data-dir': { type: 'string' },
  'account-id': { type: 'string' },
  'database-url': { type: 'string' },
  'database-schema': { type: 'string' },
  'log-level': { type: 'string' },
  'default-region': { type: 'string' },
  's3-endpoint': { type: 'string' },
  'serverless-idle-seconds': { type: 'string' },
  'worker-poll-us': { type: 'string' },
  'invoke-poll-us': { type: 'string' },
  'containers-file': { type: 'string' },
  'replica-id': { type: 'string' },
  'job-lease-seconds': { type: 'string' },
  'credentials-file': { type: 'string' },
  'allow-anonymous': { type: 'boolean' },
  'metrics-retention-days': { type: 'string' },
  'endpoint-metrics': { type: 'string' },
  'slot-lease-seconds': { type: 'string' },
  'endpoint-limits': { type: 'string' },
  'serverless-account-concurrency': { type: 'string' },
  'blob-gc-grace-seconds': { type: 'string' },
  'blob-gc-interval-seconds': { type: 'string' },
  'incomplete-upload-days': { type: 'string' },
  'log-format': { type: 'string' },
  'endpoint-latency-buckets': { type: 'boolean' },
  'sandbox-uids': { type: 'string' },
  'sandbox-bind': { type: 'string', multiple: true },
  'sandbox-max-memory-mb': { type: 'string' },
  'sandbox-max-disk-mb': { type: 'string' },
  'job-log-limit-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const SERVE_USAGE = `Usage: slipway serve [options]

  --host HOST             address to listen on (default 127.0.0.1; env SLIPWAY_HOST)
  --port PORT             AWS API port: SageMaker, SageMaker Runtime, S3 (default 4810; env SLIPWAY_PORT)
  --graph-port PORT       graph API port, Neptune-compatible (default 8182; env SLIPWAY_GRAPH_PORT)
  --data-dir DIR          where the embedded database and objects live (default ./.slipway; env SLIPWAY_DATA_DIR)
  --account-id ID         12-digit account that owns the resources (default 000000000000; env SLIPWAY_ACCOUNT_ID)
  --database-url URL      postgres://user@host:port/db to use PostgreSQL instead of SQLite (env SLIPWAY_DATABASE_URL)
  --database-schema NAME  PostgreSQL schema (default public; env SLIPWAY_DATABASE_SCHEMA)
  --default-region NAME   region of unsigned requests (default us-east-1; env SLIPWAY_DEFAULT_REGION)
  --s3-endpoint URL       keep objects in this S3/MinIO (AWS_* credentials from the environment) instead of
                          the embedded S3 API on --port (env SLIPWAY_S3_ENDPOINT)
  --serverless-idle-seconds N  scale a serverless endpoint to zero after N idle seconds (default 300)
  --worker-poll-us N      a framework model worker looks for its next request for up to N µs after an
                          answer before it sleeps, while its traffic is that dense (e.g. 300; default 0,
                          never; env SLIPWAY_WORKER_POLL_US)
  --invoke-poll-us N      the server polls for a framework model worker's answer for up to N µs after sending
                          it a request, instead of sleeping, while its answers come that fast and the cores
                          are not contended (default 400; 0, never; env SLIPWAY_INVOKE_POLL_US)
  --containers-file FILE  JSON mapping custom container images to local commands (env SLIPWAY_CONTAINERS_FILE)
  --replica-id ID         names this server when several share one PostgreSQL database; a restarted server with
                          the same id takes its unfinished background work back at once (default: host name and
                          data dir; env SLIPWAY_REPLICA_ID)
  --job-lease-seconds N   background work held by a server that stops answering is taken over by another after
                          N seconds (default 30; env SLIPWAY_JOB_LEASE_SECONDS)
  --log-level LEVEL       trace|debug|info|warn|error|silent (default info; env SLIPWAY_LOG_LEVEL)
  --credentials-file FILE principals (access keys, ARNs, IAM policies) and roles: every request must then be
                          SigV4-signed by one of them and allowed by its policy; re-read on SIGHUP
                          (env SLIPWAY_CREDENTIALS_FILE). Without it Slipway accepts any request and
                          listens on loopback only
  --allow-anonymous       listen on a non-loopback --host without a credentials file (anyone who reaches
                          the port can do anything; env SLIPWAY_ALLOW_ANONYMOUS=1)
  --metrics-retention-days N  keep CloudWatch metric data points N days (default 455, as CloudWatch;
                          env SLIPWAY_METRICS_RETENTION_DAYS)
  --endpoint-metrics on|off  record endpoint invocations in CloudWatch's AWS/SageMaker namespace
                          (default on; env SLIPWAY_ENDPOINT_METRICS)
  --endpoint-limits shared|replica  with PostgreSQL, whether MaxConcurrency, ProvisionedConcurrency and the
                          account's serverless concurrency hold for each endpoint across replicas (shared,
                          the default) or per replica (env SLIPWAY_ENDPOINT_LIMITS)
  --slot-lease-seconds N  with PostgreSQL, endpoint concurrency held by a replica that stops answering is released
                          after N seconds (default 10; env SLIPWAY_SLOT_LEASE_SECONDS)
  --serverless-account-concurrency N  in-flight serverless invocations of an account and region, all endpoints
                          together, before ThrottlingException (default 1000; env SLIPWAY_SERVERLESS_ACCOUNT_CONCURRENCY)
  --blob-gc-grace-seconds N     object-store files no object refers to are removed once N seconds old (default 900)
  --blob-gc-interval-seconds N  how often to look for them and for stale multipart uploads (default 3600)
  --incomplete-upload-days N    abort multipart uploads initiated more than N days ago (default 7; 0: never)
  --endpoint-latency-buckets  /metrics gives each endpoint's ModelLatency, OverheadLatency and ModelSetupTime
                          as histograms with 18 buckets (default: summaries, their sum and count; 20 times
                          fewer series with many endpoints; env SLIPWAY_ENDPOINT_LATENCY_BUCKETS=1)
  --log-format FORMAT     pretty|json|auto: auto prints human-readable lines on a terminal, JSON lines
                          otherwise (default auto; env SLIPWAY_LOG_FORMAT)
  --sandbox-uids A-B      uids jobs and model servers run as when Slipway runs as root, one per sandbox
                          (default 1900000000-1900065535; env SLIPWAY_SANDBOX_UIDS)
  --sandbox-bind DIR      a directory every sandbox sees read-only, e.g. an interpreter outside /usr
                          (repeatable; env SLIPWAY_SANDBOX_BIND, colon-separated)
  --sandbox-max-memory-mb N  no sandbox gets more memory than this, whatever its instance type
                          (env SLIPWAY_SANDBOX_MAX_MEMORY_MB)
  --sandbox-max-disk-mb N no job writes more than this under /opt/ml and /tmp, whatever its
                          VolumeSizeInGB (env SLIPWAY_SANDBOX_MAX_DISK_MB)
  --job-log-limit-mb N    log kept per job in CloudWatch Logs; the rest is counted and noted in the stream
                          (default 32; env SLIPWAY_JOB_LOG_LIMIT_MB)
`;

/** 127.0.0.0/8, ::1 and localhost: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

function port(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`--${name} must be a port number (0-65535), got '${v}'`);
  return n;
}

function nonNegative(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`--${name} must be a non-negative number, got '${v}'`);
  return n;
}

function positive(name: string, v: string | undefined, dflt: number): number {
  const n = nonNegative(name, v, dflt);
  if (n === 0) throw new ConfigError(`--${name} must be a positive number, got '${v}'`);
  return n;
}

function onOff(name: string, v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  if (/^(on|true|1|yes)$/i.test(v)) return true;
  if (/^(off|false|0|no)$/i.test(v)) return false;
  throw new ConfigError(`--${name} must be on or off, got '${v}'`);
}

function endpointLimits(v: string | undefined): Config['endpointLimits'] {
  if (v === undefined || v === '' || v === 'shared') return 'shared';
  if (v === 'replica') return 'replica';
  throw new ConfigError(`--endpoint-limits must be shared or replica, got '${v}'`);
}

function logFormat(v: string | undefined): Config['logFormat'] {
  if (v === undefined || v === '') return 'auto';
  if (v === 'auto' || v === 'json' || v === 'pretty') return v;
  throw new ConfigError(`--log-format must be pretty, json or auto, got '${v}'`);
}

/** Builds the configuration; throws ConfigError with a message for the user on bad input. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Config & { help: boolean } {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const str = (flag: string, envName: string): string | undefined =>
    (values[flag] as string | undefined) ?? env[envName];
  const accountId = str('account-id', 'SLIPWAY_ACCOUNT_ID') ?? '000000000000';
  if (!/^\d{12}$/.test(accountId)) throw new ConfigError(`--account-id must be 12 digits, got '${accountId}'`);
  const databaseUrl = str('database-url', 'SLIPWAY_DATABASE_URL') || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`--database-url must be a postgres:// URL, got '${databaseUrl}'`);
  }
  const s3Endpoint = str('s3-endpoint', 'SLIPWAY_S3_ENDPOINT') || undefined;
  if (s3Endpoint && !/^https?:\/\/[^/]+/.test(s3Endpoint))
    throw new ConfigError(`--s3-endpoint must be an http(s):// URL, got '${s3Endpoint}'`);
  const region = str('default-region', 'SLIPWAY_DEFAULT_REGION') ?? 'us-east-1';
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region))
    throw new ConfigError(`--default-region is not a region name: '${region}'`);
  const host = str('host', 'SLIPWAY_HOST') ?? '127.0.0.1';
  const credentialsFile = str('credentials-file', 'SLIPWAY_CREDENTIALS_FILE') || undefined;
  const allowAnonymous =
    values['allow-anonymous'] === true || /^(1|true|yes)$/i.test(env.SLIPWAY_ALLOW_ANONYMOUS ?? '');
  // Secure by default: an open server is only ever reachable from this machine unless asked for.
  if (!credentialsFile && !allowAnonymous && !isLoopback(host) && values.help !== true) {
    throw new ConfigError(
      `refusing to listen on ${host} without authentication: give --credentials-file FILE (principals and their policies), or --allow-anonymous to let anyone who reaches the port do anything`,
    );
  }
  return Object.freeze({
    help: values.help === true,
    host,
    port: port('port', str('port', 'SLIPWAY_PORT'), 4810),
    graphPort: port('graph-port', str('graph-port', 'SLIPWAY_GRAPH_PORT'), 8182),
    dataDir: resolve(str('data-dir', 'SLIPWAY_DATA_DIR') ?? '.slipway'),
    accountId,
    databaseUrl,
    databaseSchema: str('database-schema', 'SLIPWAY_DATABASE_SCHEMA') || undefined,
    logLevel: str('log-level', 'SLIPWAY_LOG_LEVEL') ?? 'info',
    defaultRegion: region,
    s3Endpoint,
    serverlessIdleSeconds: nonNegative(
      'serverless-idle-seconds',
      str('serverless-idle-seconds', 'SLIPWAY_SERVERLESS_IDLE_SECONDS'),
      300,
    ),
    workerPollMicros: Math.round(
      nonNegative('worker-poll-us', str('worker-poll-us', 'SLIPWAY_WORKER_POLL_US'), DEFAULT_WORKER_POLL_US),
    ),
    invokePollMicros: Math.round(
      nonNegative('invoke-poll-us', str('invoke-poll-us', 'SLIPWAY_INVOKE_POLL_US'), DEFAULT_INVOKE_POLL_US),
    ),
    containersFile: str('containers-file', 'SLIPWAY_CONTAINERS_FILE') || undefined,
    replicaId: str('replica-id', 'SLIPWAY_REPLICA_ID') || undefined,
    jobLeaseSeconds: positive('job-lease-seconds', str('job-lease-seconds', 'SLIPWAY_JOB_LEASE_SECONDS'), 30),
    credentialsFile: credentialsFile ? resolve(credentialsFile) : undefined,
    allowAnonymous,
    metricsRetentionDays: positive(
      'metrics-retention-days',
      str('metrics-retention-days', 'SLIPWAY_METRICS_RETENTION_DAYS'),
      455,
    ),
    endpointMetrics: onOff('endpoint-metrics', str('endpoint-metrics', 'SLIPWAY_ENDPOINT_METRICS'), true),
    endpointLimits: endpointLimits(str('endpoint-limits', 'SLIPWAY_ENDPOINT_LIMITS')),
    slotLeaseSeconds: positive('slot-lease-seconds', str('slot-lease-seconds', 'SLIPWAY_SLOT_LEASE_SECONDS'), 10),
    serverlessAccountConcurrency: positive(
      'serverless-account-concurrency',
      str('serverless-account-concurrency', 'SLIPWAY_SERVERLESS_ACCOUNT_CONCURRENCY'),
      1000,
    ),
    blobGcGraceSeconds: nonNegative(
      'blob-gc-grace-seconds',
      str('blob-gc-grace-seconds', 'SLIPWAY_BLOB_GC_GRACE_SECONDS'),
      900,
    ),
    blobGcIntervalSeconds: positive(
      'blob-gc-interval-seconds',
      str('blob-gc-interval-seconds', 'SLIPWAY_BLOB_GC_INTERVAL_SECONDS'),
      3600,
    ),
    incompleteUploadDays: nonNegative(
      'incomplete-upload-days',
      str('incomplete-upload-days', 'SLIPWAY_INCOMPLETE_UPLOAD_DAYS'),
      7,
    ),
    logFormat: logFormat(str('log-format', 'SLIPWAY_LOG_FORMAT')),
    endpointLatencyBuckets:
      values['endpoint-latency-buckets'] === true || /^(1|true|yes)$/i.test(env.SLIPWAY_ENDPOINT_LATENCY_BUCKETS ?? ''),
    sandboxUids: uidRange(str('sandbox-uids', 'SLIPWAY_SANDBOX_UIDS')),
    sandboxBinds: sandboxBinds(values['sandbox-bind'] as string[] | undefined, env.SLIPWAY_SANDBOX_BIND),
    sandboxMaxMemoryMB: optionalPositive(
      'sandbox-max-memory-mb',
      str('sandbox-max-memory-mb', 'SLIPWAY_SANDBOX_MAX_MEMORY_MB'),
    ),
    sandboxMaxDiskMB: optionalPositive(
      'sandbox-max-disk-mb',
      str('sandbox-max-disk-mb', 'SLIPWAY_SANDBOX_MAX_DISK_MB'),
    ),
    jobLogLimitBytes:
      positive('job-log-limit-mb', str('job-log-limit-mb', 'SLIPWAY_JOB_LOG_LIMIT_MB'), 32) * 1024 * 1024,
  });
}

function optionalPositive(name: string, v: string | undefined): number | undefined {
  return v === undefined || v === '' ? undefined : positive(name, v, 0);
}

/** `A-B`: a range of uids (not 0, below 2^31 where every tool handles them). */
function uidRange(v: string | undefined): { first: number; last: number } | undefined {
  if (v === undefined || v === '') return undefined;
  const m = /^(\d+)-(\d+)$/.exec(v);
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1 || last < first || last >= 2 ** 31)
    throw new ConfigError(`--sandbox-uids must be a range FIRST-LAST of uids between 1 and 2147483647, got '${v}'`);
  return { first, last };
}

function sandboxBinds(flags: string[] | undefined, fromEnv: string | undefined): string[] {
  const dirs = flags ?? (fromEnv ? fromEnv.split(':').filter(Boolean) : []);
  for (const d of dirs) {
    if (!d.startsWith('/')) throw new ConfigError(`--sandbox-bind needs an absolute directory, got '${d}'`);
  }
  return dirs.map((d) => resolve(d));
}
