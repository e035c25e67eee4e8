// `slipway lineage export`: writes every lineage entity and association as Neptune bulk-load
// files (Gremlin or openCypher CSV) to a directory or an s3:// prefix, from Slipway's database
// or from a SageMaker account, and optionally loads them into a Neptune-compatible endpoint.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load.html
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  exportLineage,
  type ExportFormat,
  type ExportOutput,
  type ExportProgress,
} from '../lineage/export/exporter.js';
import type { LineageSource } from '../lineage/export/model.js';
import { blobOutput, directoryOutput } from '../lineage/export/outputs.js';
import { storeLineageSource } from '../lineage/export/store-source.js';
import type { S3BlobStore } from '../storage/blobs/s3-blob-store.js';
import { openDatabase } from '../storage/db/index.js';
import { DEFAULT_SQLITE_FILE } from '../storage/db/sqlite.js';
import type { Database } from '../storage/db/types.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { isLoopback } from '../config/config.js';

export const LINEAGE_EXPORT_USAGE = `Usage: slipway lineage export --out DIR|s3://bucket/prefix/ [options]

  --out DIR|s3://B/P/     where the node and edge files go (required)
  --format F              gremlin (default: Neptune Gremlin CSV, the seed notebook's files) or opencypher
  --source S              store (default: Slipway's database) or aws (a SageMaker account's API)

 from the store (same flags and environment as slipway serve):
  --data-dir DIR          (default ./.slipway; env SLIPWAY_DATA_DIR)
  --database-url URL      PostgreSQL instead of SQLite (env SLIPWAY_DATABASE_URL)
  --database-schema NAME  (env SLIPWAY_DATABASE_SCHEMA)
  --account-id ID         account whose lineage is exported (default 000000000000; env SLIPWAY_ACCOUNT_ID)
  --region NAME           region whose lineage is exported (default us-east-1; env AWS_REGION)

 from AWS (--source aws; credentials from the AWS SDK's usual chain):
  --endpoint-url URL      a SageMaker-compatible endpoint instead of AWS (e.g. http://127.0.0.1:4810)

 writing to s3://:
  --s3-endpoint URL       S3 endpoint (e.g. a Slipway server's http://127.0.0.1:4810; default AWS S3)

 loading (needs an s3:// --out the graph database can read):
  --load URL              POST /loader on this Neptune-compatible endpoint (e.g. http://127.0.0.1:8182) and wait
  --iam-role-arn ARN      role Amazon Neptune reads the bucket with
`;

const OPTIONS = {
  out: { type: 'string' },
  format: { type: 'string' },
  source: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'database-schema': { type: 'string' },
  'account-id': { type: 'string' },
  region: { type: 'string' },
  'endpoint-url': { type: 'string' },
  's3-endpoint': { type: 'string' },
  load: { type: 'string' },
  'iam-role-arn': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

/** A one-line progress display on a terminal; nothing when stderr is not one. */
function progressLine(): { update(p: ExportProgress): void; done(): void } {
  if (!process.stderr.isTTY) return { update() {}, done() {} };
  let last = 0;
  const started = Date.now();
  const draw = (p: ExportProgress) =>
    process.stderr.write(
      `\r\x1b[Kexporting: ${p.nodes.toLocaleString()} nodes, ${p.edges.toLocaleString()} edges  ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  let latest: ExportProgress | undefined;
  return {
    update(p) {
      latest = p;
      const now = Date.now();
      if (now - last > 100) {
        last = now;
        draw(p);
      }
    },
    done() {
      if (latest) draw(latest);
      process.stderr.write('\n');
    },
  };
}

export async function lineageExportCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    process.stderr.write(`slipway lineage export: ${(err as Error).message}\n\n${LINEAGE_EXPORT_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(LINEAGE_EXPORT_USAGE);
    return 0;
  }
  const s = (k: string) => v[k] as string | undefined;
  let db: Database | undefined;
  let source: LineageSource | undefined;
  let s3: S3BlobStore | undefined;
  try {
    const out = s('out');
    if (!out) throw new UsageError('--out is required');
    const format = (s('format') ?? 'gremlin') as ExportFormat;
    if (format !== 'gremlin' && format !== 'opencypher')
      throw new UsageError(`--format must be gremlin or opencypher, got '${format}'`);
    const region = s('region') ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
    const sourceName = s('source') ?? 'store';
    // Every AWS-API endpoint this run talks to: what decides whether dummy credentials may stand in.
    const endpoints = [
      sourceName === 'aws' ? (s('endpoint-url') ?? null) : undefined,
      out.startsWith('s3://') ? (s('s3-endpoint') ?? env.AWS_ENDPOINT_URL_S3 ?? null) : undefined,
    ].filter((e) => e !== undefined);
    const credentials = endpoints.length > 0 ? await signingCredentials(endpoints, env, region) : undefined;
    if (sourceName === 'aws') {
      // Imported on demand, as the S3 SDK below: the SageMaker SDK costs a store export start-up time.
      const { awsLineageSource } = await import('../lineage/export/aws-source.js');
      source = await awsLineageSource({ region, endpoint: s('endpoint-url'), credentials });
    } else if (sourceName === 'store') {
      const accountId = s('account-id') ?? env.SLIPWAY_ACCOUNT_ID ?? '000000000000';
      const url = s('database-url') ?? (env.SLIPWAY_DATABASE_URL || undefined);
      const dataDir = s('data-dir') ?? env.SLIPWAY_DATA_DIR ?? '.slipway';
      db = await openDatabase({
        url,
        dataDir,
        schema: s('database-schema') ?? (env.SLIPWAY_DATABASE_SCHEMA || undefined),
        migrations: MIGRATIONS,
      });
      // SQLite: read and written on several threads, each with a connection of its own
      source = storeLineageSource(
        db,
        { accountId, region },
        { sqliteFile: url ? undefined : join(dataDir, DEFAULT_SQLITE_FILE) },
      );
    } else {
      throw new UsageError(`--source must be store or aws, got '${sourceName}'`);
    }
    let output: ExportOutput;
    if (out.startsWith('s3://')) {
      // Imported on demand: the S3 SDK costs start-up time and memory a directory export does not need.
      const { S3BlobStore } = await import('../storage/blobs/s3-blob-store.js');
      s3 = new S3BlobStore({
        endpoint: s('s3-endpoint') ?? env.AWS_ENDPOINT_URL_S3 ?? `https://s3.${region}.amazonaws.com`,
        region,
        credentials,
      });
      output = blobOutput(s3, out, (bucket) => process.stderr.write(`created bucket ${bucket} (it did not exist)\n`));
    } else {
      output = directoryOutput(out);
    }
    const bar = progressLine();
    const started = Date.now();
    const result = await exportLineage({ source, output, format, onProgress: (p) => bar.update(p) });
    bar.done();
    const secs = ((Date.now() - started) / 1000).toFixed(2);
    process.stdout.write(
      `exported ${result.nodes} nodes and ${result.edges} edges to ${output.location} in ${secs} s` +
        `${result.skippedEdges ? ` (${result.skippedEdges} associations with experiments or trials skipped)` : ''}\n`,
    );
    const load = s('load');
    if (load) {
      if (!output.location.startsWith('s3://'))
        throw new UsageError('--load needs an s3:// --out that the graph database can read');
      const { loadIntoNeptune } = await import('../lineage/export/neptune-load.js');
      const outcome = await loadIntoNeptune({
        endpoint: load,
        source: output.location,
        format: format === 'gremlin' ? 'csv' : 'opencypher',
        region,
        iamRoleArn: s('iam-role-arn'),
        credentials,
        onStatus: (st) => {
          if (process.stderr.isTTY) process.stderr.write(`\r\x1b[Kloading: ${st}`);
        },
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      const o = outcome.overallStatus;
      process.stdout.write(
        `load ${outcome.loadId}: ${outcome.status}, ${o.totalRecords} records (${o.totalDuplicates} duplicates) in ${o.totalTimeSpent} s\n`,
      );
      for (const e of outcome.errorLogs)
        process.stdout.write(`  ${e.errorCode} ${e.fileName}:${e.recordNum} ${e.errorMessage}\n`);
      return outcome.status === 'LOAD_COMPLETED' ? 0 : 1;
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`slipway lineage export: ${err.message}\n\n${LINEAGE_EXPORT_USAGE}`);
      return 2;
    }
    process.stderr.write(`slipway lineage export: ${(err as Error).message}\n`);
    return 1;
  } finally {
    await source?.close?.();
    s3?.close();
    await db?.close();
  }
}

type SigningCredentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

/** Whether a URL names this machine (a local Slipway server), where dummy credentials are fine. */
function isLocal(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * The credentials to sign with, and a line on stderr saying which: the environment's or the AWS SDK's
 * usual chain (profiles, SSO, instance roles); failing those, when every endpoint is a local server
 * (`null` = AWS itself), dummy ones, which a Slipway server without a credentials file accepts.
 */
async function signingCredentials(
  endpoints: ReadonlyArray<string | null>,
  env: NodeJS.ProcessEnv,
  region: string,
): Promise<SigningCredentials> {
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    process.stderr.write(`signing with access key ${env.AWS_ACCESS_KEY_ID} from the environment\n`);
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN,
    };
  }
  const { S3Client } = await import('@aws-sdk/client-s3');
  const probe = new S3Client({ region });
  try {
    const c = await probe.config.credentials();
    process.stderr.write(`signing with access key ${c.accessKeyId} from the AWS SDK's credential chain\n`);
    return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken };
  } catch (err) {
    if (!endpoints.every((e) => e !== null && isLocal(e))) {
      throw new Error(
        `no AWS credentials found (${(err as Error).message}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile`,
      );
    }
    process.stderr.write(
      'no AWS credentials found: signing with dummy credentials (a Slipway server without a credentials file accepts any)\n',
    );
    return { accessKeyId: 'slipway-cli', secretAccessKey: 'slipway-cli' };
  } finally {
    probe.destroy();
  }
}
