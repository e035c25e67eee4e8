// The `process` runtime: a custom image mapped (by the containers file) to a local command that
// speaks SageMaker's container contract — how custom containers run on a machine with no Docker.
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html
//
// The command is started as `<command...> serve` in its cwd, in the sandbox (src/sandbox: its own
// user, network and PID namespaces, the seccomp filter, the file system the containers file's
// entry needs), with the sandbox's PATH, HOME and LANG and:
//   the container's Environment, then the entry's env, then
//   SAGEMAKER_BIND_TO_PORT  8080, the port inside its network namespace, published on the host's
//                           127.0.0.1 at a free port Slipway connects to
//   SM_MODEL_DIR            /opt/ml/model, the unpacked model (read-only)
//   SAGEMAKER_MODEL_DIR     the same (some inference toolkits read this name)
// Without a sandbox (an anonymous server without bwrap) it runs as a plain process listening on
// 127.0.0.1 at that free port, with SM_MODEL_DIR the model's directory on the host.
// Memory: MemorySizeInMB is the sandbox's memory cgroup limit (the OOM killer ends the server; the
// instance is replaced). Without a cgroup, the resident memory of the process tree is read from
// /proc every `memoryPollMs` (default 100 ms) and going over kills it: a watchdog rather than
// `prlimit --as`, whose address-space limit breaks runtimes that reserve large virtual ranges.

import { readFileSync } from 'node:fs';
import { retryTransient } from '../../../sandbox/launch.js';
import { hostCaps, serverLimits } from '../../../sandbox/limits.js';
import {
  type Sandbox,
  type SandboxedServer,
  type ServerSpec,
  startUnsandboxedServer,
} from '../../../sandbox/sandbox.js';
import { DeploymentError } from '../../engine.js';
import type { Instance, Runtime, RuntimeContext, RuntimeProvider } from '../../runtime.js';
import { ContainerFailure } from '../../failure.js';
import { entryCodeDirs } from './containers-file.js';
import type { AnswerPoller } from './answer-poller.js';
import { ChannelContainer } from './channel-container.js';
import { freePort, HttpContainer } from './http-container.js';

const STDERR_TAIL = 2048;

/** Resident set size of a process and all its descendants, in bytes (Linux /proc). */
export function treeRss(pid: number): number {
  let total = 0;
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    try {
      const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      if (children) for (const c of children.split(/\s+/)) stack.push(Number(c));
    } catch {
      // gone, or no /proc: nothing to add
    }
  }
  return total;
}

export interface ProcessRuntimeSettings {
  readonly memoryPollMs: number;
  /** Where the command runs (src/sandbox); without one, as a plain process. */
  readonly sandbox?: Sandbox;
}

/** Servers still running, stopped when Slipway exits so that no model outlives it. */
const live = new Set<SandboxedServer>();
let exitHook = false;
function track(server: SandboxedServer): void {
  live.add(server);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const s of live) s.stop(false);
    });
  }
}

/** A plain process, for an engine built without a sandbox (tests of the engine, benches). */
export function unsandboxed(): Pick<Sandbox, 'startServer' | 'host'> {
  return {
    host: hostCaps(),
    startServer: (spec, port) => startUnsandboxedServer(spec, port),
  };
}

export function processProvider(settings: ProcessRuntimeSettings): RuntimeProvider {
  const sandbox = settings.sandbox ?? unsandboxed();
  return {
    name: 'process',
    select(ctx: RuntimeContext): Runtime | undefined {
      const entry = ctx.entry;
      if (entry?.runtime !== 'process') return undefined;
      if (entry.command.length === 0)
        throw new DeploymentError(`The containers file gives no command for image "${ctx.container.image}".`);
      const startupTimeoutMs = entry.startupTimeoutMs ?? ctx.startupTimeoutMs;
      const network = ctx.container.networkIsolation ? 'none' : 'outbound';
      const refused = settings.sandbox?.refusal(network, true);
      if (refused) throw new DeploymentError(refused);
      return {
        kind: 'process',
        resolvedImage: ctx.container.image,
        start: () =>
          startServerInstance(sandbox, {
            spec: {
              argv: entry.appendServe ? [...entry.command, 'serve'] : [...entry.command],
              cwd: entry.cwd,
              code: entryCodeDirs(entry),
              network,
              limits: serverLimits(ctx.memoryMB, sandbox.host),
              modelDir: ctx.artifact.dir,
              env: ({ modelDir, port }) => ({
                ...ctx.container.environment,
                ...entry.env,
                SAGEMAKER_BIND_TO_PORT: String(port),
                SM_MODEL_DIR: modelDir,
                SAGEMAKER_MODEL_DIR: modelDir,
              }),
            },
            memoryMB: ctx.memoryMB,
            memoryPollMs: settings.memoryPollMs,
            startupTimeoutMs,
          }),
      };
    },
  };
}

export interface ServerInstanceOptions {
  readonly spec: ServerSpec;
  readonly memoryMB: number;
  readonly memoryPollMs: number;
  readonly startupTimeoutMs: number;
  /** Lines of standard error kept for the exit message (default 5, joined with " | "). */
  readonly tailLines?: number;
  /** How a start that failed is worded (default: "The container command could not start: ..."). */
  readonly startFailure?: (message: string) => string;
  /**
   * How an exit is worded, given how it ended ("exited with code 1", with ", having written nothing
   * to its log" when its standard error was empty) and that standard error's tail.
   */
  readonly exitMessage?: (how: string, tail: string) => string;
  /** Each piece of standard error as it arrives (the model's log). */
  readonly onStderr?: (text: string) => void;
  /** A channel server's answers are polled for with it (answer-poller.ts). */
  readonly answerPoller?: AnswerPoller;
}

/**
 * One instance: a server started in the sandbox (or as a plain process), reached over HTTP once
 * GET /ping answers, or through its standard input and output (a `channel` spec) once it says it
 * is loaded; its resident memory watched when no memory cgroup bounds it.
 */
export async function startServerInstance(
  sandbox: Pick<Sandbox, 'startServer' | 'host'>,
  o: ServerInstanceOptions,
): Promise<Instance> {
  // bwrap failed to set the sandbox up after letting it go (its loopback, under load): the server
  // never ran, so another sandbox is started, as launch() does for its earlier failures.
  return retryTransient(
    () => startServerOnce(sandbox, o),
    (e) => e instanceof ContainerFailure && e.kind === 'startup',
  );
}

async function startServerOnce(
  sandbox: Pick<Sandbox, 'startServer' | 'host'>,
  o: ServerInstanceOptions,
): Promise<Instance> {
  const limitBytes = o.memoryMB * 1024 * 1024;
  // A channel server has no port (a free one is looked for only for a server that listens).
  const hostPort = o.spec.channel ? 0 : await freePort();
  let server: SandboxedServer;
  try {
    server = await sandbox.startServer(o.spec, hostPort);
  } catch (e) {
    const m = (e as Error).message;
    throw new ContainerFailure(
      'startup',
      500,
      o.startFailure ? o.startFailure(m) : `The container command could not start: ${m}`,
    );
  }
  let stderr = '';
  server.onStderr((s) => {
    stderr = (stderr + s).slice(-STDERR_TAIL);
    o.onStderr?.(s);
  });
  const handle = { stop: (graceful: boolean) => server.stop(graceful) };
  const container = server.channel
    ? new ChannelContainer(server.channel.input, server.channel.output, handle, o.answerPoller)
    : new HttpContainer(server.host, server.port, handle);
  track(server);
  // Without a memory cgroup, the resident memory of the tree is watched instead.
  const watchdog = server.memoryBounded
    ? undefined
    : setInterval(() => {
        if (server.pid === undefined || container.dead) return;
        if (treeRss(server.pid) > limitBytes) {
          container.dying('memory');
          server.stop(false);
        }
      }, o.memoryPollMs);
  watchdog?.unref();
  void server.exited.then((exit) => {
    if (watchdog) clearInterval(watchdog);
    live.delete(server);
    if (exit.oomKilled) container.dying('memory');
    const tail = lastWords(stderr, o.tailLines);
    // A server that wrote nothing at all (os._exit, a library that exits) is said to have: its
    // reason must not leave the reader wondering whether its log was lost.
    const how =
      (exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`) +
      (tail ? '' : ', having written nothing to its log');
    container.exited(
      exit.startError
        ? exit.startError
        : container.dyingKind === 'memory'
          ? `The container exceeded its memory limit (MemorySizeInMB=${o.memoryMB}) and was restarted.`
          : o.exitMessage
            ? o.exitMessage(how, tail)
            : `The container ${how}${tail ? `: ${tail}` : ''}.`,
    );
  });
  try {
    await container.waitReady(o.startupTimeoutMs);
  } catch (e) {
    // Not ready in time (it had not exited: an exit says why itself): what the server printed
    // so far says where it was, as the container's log would in SageMaker.
    const tail = container.dead ? '' : lastWords(stderr, o.tailLines);
    if (e instanceof ContainerFailure && tail)
      throw new ContainerFailure(e.kind, e.status, `${e.message} Its last output: ${tail}`);
    throw e;
  }
  return container;
}

/** The last lines a server wrote to standard error: `lines` of them, else five joined by ` | `. */
function lastWords(stderr: string, lines: number | undefined): string {
  const all = stderr.trim().split('\n');
  return (lines ? all.slice(-lines).join('\n') : all.slice(-5).join(' | ')).trim();
}
