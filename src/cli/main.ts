// The `slipway` command: `slipway serve [options]` (the default) runs the server;
// `slipway lineage export` writes lineage as graph bulk-load files; `slipway demo` runs the whole
// loop against a running server.
// Each command imports what it runs when it runs: `lineage export` does not load the server.
import { readFileSync } from 'node:fs';
import { ConfigError, SERVE_USAGE, loadConfig } from '../config/config.js';

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
  if (command === 'lineage' && args[0] === 'export') {
    const { lineageExportCommand } = await import('./lineage-export.js');
    return lineageExportCommand(args.slice(1));
  }
  if (command === 'demo') {
    const { demoCommand } = await import('./demo.js');
    return demoCommand(args);
  }
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
  const [{ startApp }, { CredentialsError }] = await Promise.all([
    import('../app.js'),
    import('../auth/credentials.js'),
  ]);
  // Signals are handled from before the server starts: one that arrives while it starts (a
  // supervisor stopping it early) stops it as soon as it is up, instead of killing it half-started.
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  let firstSignal: number | undefined;
  let stopped: (() => void) | undefined;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const shutdown = (signal: NodeJS.Signals) => {
    const a = app!;
    a.log.info({ signal }, 'shutting down');
    a.close().then(stopped, (err) => {
      a.log.error({ err }, 'shutdown failed');
      process.exitCode = 1;
      stopped?.();
    });
  };
  let pending: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (firstSignal === undefined) {
      firstSignal = Date.now();
      if (app) shutdown(signal);
      else pending = signal;
      return;
    }
    // Ctrl-C under `npm start` reaches the server twice at once (from the terminal and forwarded
    // by npm): a repeat within a second of the first is the same request. A later one (a second
    // Ctrl-C) stops at once, as a user pressing it again expects.
    if (Date.now() - firstSignal < 1000) return;
    app?.log.warn({ signal }, 'stopping now, without waiting for requests and jobs to finish');
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    app = await startApp(config);
  } catch (err) {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    if (err instanceof CredentialsError) {
      process.stderr.write(`slipway: --credentials-file: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const running = app;
  // SIGHUP re-reads the credentials file; a broken file leaves the previous principals in force.
  const onHup = () => {
    try {
      const n = running.reloadCredentials();
      if (n) running.log.info(n, 'credentials reloaded');
      else running.log.warn('SIGHUP: no --credentials-file to reload');
    } catch (err) {
      running.log.error(
        { error: (err as Error).message },
        'credentials reload failed; the previous credentials stay in force',
      );
    }
  };
  process.on('SIGHUP', onHup);
  if (pending) shutdown(pending);
  await done;
  process.off('SIGHUP', onHup);
  return process.exitCode as number | undefined;
}

/** The package's version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
