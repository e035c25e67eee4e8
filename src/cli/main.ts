// The `slipway` command: `slipway serve [options]` (the default) runs the server;
// `slipway lineage export` writes lineage as graph bulk-load files; `slipway demo` runs the whole
// loop against a running server.
import { readFileSync } from 'node:fs';
import { CredentialsError } from '../auth/credentials.js';
import { ConfigError, SERVE_USAGE, loadConfig } from '../config/config.js';
import { startApp } from '../app.js';
import { demoCommand } from './demo.js';
import { lineageExportCommand } from './lineage-export.js';

const USAGE = `Usage: slipway <command> [options]

Commands:
  serve            run the SageMaker-compatible API and the graph API (default)
  lineage export   write lineage as Neptune bulk-load CSV (see slipway lineage export --help)
  demo             train, register, deploy and invoke a model on a running server (see slipway demo --help)
  version          print the version (also --version)

${SERVE_USAGE}`;

export async function main(argv: string[]): Promise<number | undefined> {
  const [first, ...rest] = argv;
  const command = first === undefined || first.startsWith('-') ? 'serve' : first;
  const args = command === first ? rest : argv;
  if (command === 'help' || (command === 'serve' && (args.includes('--help') || args.includes('-h')))) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'version' || (command === 'serve' && args.includes('--version'))) {
    process.stdout.write(`slipway ${version()}\n`);
    return 0;
  }
  if (command === 'lineage' && args[0] === 'export') return lineageExportCommand(args.slice(1));
  if (command === 'demo') return demoCommand(args);
  if (command !== 'serve') {
    process.stderr.write(`slipway: unknown command '${command}'\n\n${USAGE}`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(args);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`slipway: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  let app: Awaited<ReturnType<typeof startApp>>;
  try {
    app = await startApp(config);
  } catch (err) {
    if (err instanceof CredentialsError) {
      process.stderr.write(`slipway: --credentials-file: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // SIGHUP re-reads the credentials file; a broken file leaves the previous principals in force.
  const onHup = () => {
    try {
      const n = app.reloadCredentials();
      if (n) app.log.info(n, 'credentials reloaded');
      else app.log.warn('SIGHUP: no --credentials-file to reload');
    } catch (err) {
      app.log.error({ error: (err as Error).message }, 'credentials reload failed; the previous credentials stay in force');
    }
  };
  process.on('SIGHUP', onHup);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      app.log.info({ signal }, 'shutting down');
      app.close().then(resolve, (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exitCode = 1;
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  process.off('SIGHUP', onHup);
  return process.exitCode as number | undefined;
}

/** The package's version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
