// Starts real Slipway servers for end-to-end tests: in-process (fast) or as a child process (for
// signals and kill -9). Both listen on port 0 and use a fresh data directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import pino from 'pino';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';

export const ACCOUNT = '111122223333';
export const REGION = 'us-west-2';
export const PG_URL = process.env.SLIPWAY_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestServer {
  readonly endpoint: string;
  readonly graphEndpoint: string;
  readonly dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = 'slipway-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Server flags for a database: SQLite in the data dir, or PostgreSQL in a fresh schema. */
export function databaseArgs(dialect: 'sqlite' | 'postgres', schema?: string): string[] {
  if (dialect === 'sqlite') return [];
  return ['--database-url', PG_URL, '--database-schema', schema ?? `t_${process.pid}_${Date.now().toString(36)}`];
}

export async function startServer(
  extraArgs: string[] = [],
  opts: { dataDir?: string } = {},
): Promise<TestServer & { app: RunningApp }> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig(
    ['--port', '0', '--graph-port', '0', '--data-dir', dataDir, '--account-id', ACCOUNT, ...extraArgs],
    {},
  );
  const app = await startApp(config, pino({ level: 'silent' }));
  return {
    app,
    endpoint: `http://127.0.0.1:${app.port}`,
    graphEndpoint: `http://127.0.0.1:${app.graphPort}`,
    dataDir,
    async close() {
      await app.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      await dropTestSchemas(extraArgs);
    },
  };
}

/** Drops the PostgreSQL schemas a test server made with databaseArgs() (its own and the graph's). */
async function dropTestSchemas(args: readonly string[]): Promise<void> {
  const i = args.indexOf('--database-schema');
  const schema = i >= 0 ? args[i + 1] : undefined;
  if (!schema?.startsWith('t_')) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${schema}_graph CASCADE`);
  } finally {
    await client.end();
  }
}

export interface ChildServer extends TestServer {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** What it has written to stdout so far (its JSON log lines). */
  output(): string;
}

/**
 * Runs `bin/slipway.js serve` as a child process and waits for its "listening" log line. `prefix`
 * runs it through another command (e.g. `unshare ... sh -c '...; exec "$@"'`), which must exec it;
 * `env` is added to the environment it inherits.
 */
export async function spawnServer(
  args: string[],
  dataDir: string,
  prefix: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const serve = [
    process.execPath,
    'bin/slipway.js',
    'serve',
    '--port',
    '0',
    '--graph-port',
    '0',
    '--data-dir',
    dataDir,
    '--account-id',
    ACCOUNT,
    ...args,
  ];
  const [command, ...rest] = [...prefix, ...serve];
  const child = spawn(command!, rest, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    if (output.length < 1_000_000) output += `${line}\n`;
  });
  const ready = await new Promise<{ port: number; graphPort: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start within 20 s')), 20_000);
    lines.on('line', (line) => {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === 'listening') {
          clearTimeout(timer);
          resolve({ port: rec.port, graphPort: rec.graphPort });
        }
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening`));
    });
  });
  lines.on('line', () => {}); // keep draining stdout
  return {
    child,
    exited,
    endpoint: `http://127.0.0.1:${ready.port}`,
    graphEndpoint: `http://127.0.0.1:${ready.graphPort}`,
    dataDir,
    output: () => output,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Credentials the SDK clients sign with; Slipway reads only the region from the signature. */
export const CREDENTIALS = { accessKeyId: 'AKIDSLIPWAYTEST', secretAccessKey: 'secret' };
