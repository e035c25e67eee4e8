// The `process` runtime: a custom image mapped (by the containers file) to a local command that
// speaks SageMaker's container contract — how custom containers run on a machine with no Docker.
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html
//
// The command is started as `<command...> serve` in its cwd with this environment, and nothing else
// from Slipway's own environment but PATH, HOME, LANG and TMPDIR:
//   the container's Environment, then the entry's env, then
//   SAGEMAKER_BIND_TO_PORT  the port to listen on (127.0.0.1), instead of 8080
//   SM_MODEL_DIR            the unpacked model directory, instead of /opt/ml/model
//   SAGEMAKER_MODEL_DIR     the same (some inference toolkits read this name)
// Memory: MemorySizeInMB bounds the resident memory of the process and its descendants, read from
// /proc/<pid>/status every `memoryPollMs` (default 100 ms); going over kills the process group.
// A watchdog rather than `prlimit --as`: address-space limits break runtimes that reserve large
// virtual ranges (V8, the JVM, Go) long before they use real memory.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DeploymentError } from '../../engine.js';
import type { Instance, Runtime, RuntimeContext, RuntimeProvider } from '../../runtime.js';
import { ContainerFailure } from '../../failure.js';
import { freePort, HttpContainer } from './http-container.js';

const KEPT_ENV = ['PATH', 'HOME', 'LANG', 'TMPDIR'];
const STDERR_TAIL = 2048;

/** Process groups still running, killed when Slipway exits so that no model outlives it. */
const live = new Set<number>();
let exitHook = false;
function track(pid: number): void {
  live.add(pid);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const p of live) killGroup(p, 'SIGKILL');
    });
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {}
  }
}

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
}

export function processProvider(settings: ProcessRuntimeSettings): RuntimeProvider {
  return {
    name: 'process',
    select(ctx: RuntimeContext): Runtime | undefined {
      const entry = ctx.entry;
      if (entry?.runtime !== 'process') return undefined;
      if (entry.command.length === 0)
        throw new DeploymentError(`The containers file gives no command for image "${ctx.container.image}".`);
      const startupTimeoutMs = entry.startupTimeoutMs ?? ctx.startupTimeoutMs;
      const limitBytes = ctx.memoryMB * 1024 * 1024;
      return {
        kind: 'process',
        resolvedImage: ctx.container.image,
        async start(): Promise<Instance> {
          const port = await freePort();
          const env: Record<string, string> = {};
          for (const k of KEPT_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
          Object.assign(env, ctx.container.environment, entry.env, {
            SAGEMAKER_BIND_TO_PORT: String(port),
            SM_MODEL_DIR: ctx.artifact.dir,
            SAGEMAKER_MODEL_DIR: ctx.artifact.dir,
          });
          const argv = entry.appendServe ? [...entry.command.slice(1), 'serve'] : entry.command.slice(1);
          let child: ChildProcess;
          try {
            child = spawn(entry.command[0]!, argv, {
              cwd: entry.cwd,
              env,
              detached: true,
              stdio: ['ignore', 'pipe', 'pipe'],
            });
          } catch (e) {
            throw new ContainerFailure(
              'startup',
              500,
              `The container command could not start: ${(e as Error).message}`,
            );
          }
          let stderr = '';
          child.stdout?.resume();
          child.stderr?.setEncoding('utf8');
          child.stderr?.on('data', (s: string) => {
            stderr = (stderr + s).slice(-STDERR_TAIL);
          });
          let stopTimer: NodeJS.Timeout | undefined;
          const container = new HttpContainer('127.0.0.1', port, {
            stop(graceful) {
              if (child.pid === undefined) return;
              if (!graceful) {
                killGroup(child.pid, 'SIGKILL');
                return;
              }
              killGroup(child.pid, 'SIGTERM');
              stopTimer = setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), 2000);
              stopTimer.unref();
            },
          });
          if (child.pid !== undefined) track(child.pid);
          const watchdog = setInterval(() => {
            if (child.pid === undefined || container.dead) return;
            const rss = treeRss(child.pid);
            if (rss > limitBytes) {
              container.dying('memory');
              killGroup(child.pid, 'SIGKILL');
            }
          }, settings.memoryPollMs);
          watchdog.unref();
          let ended = false;
          const onEnd = (message: string): void => {
            if (ended) return;
            ended = true;
            clearInterval(watchdog);
            if (stopTimer) clearTimeout(stopTimer);
            if (child.pid !== undefined) {
              killGroup(child.pid, 'SIGKILL'); // descendants the command left behind
              live.delete(child.pid);
            }
            container.exited(message);
          };
          child.on('error', (e) => onEnd(`The container command could not start: ${e.message}`));
          child.on('exit', (code, signal) => {
            const tail = stderr.trim().split('\n').slice(-5).join(' | ');
            const how = code !== null ? `exited with code ${code}` : `was killed by ${signal}`;
            onEnd(
              container.dyingKind === 'memory'
                ? `The container exceeded its memory limit (MemorySizeInMB=${ctx.memoryMB}) and was restarted.`
                : `The container ${how}${tail ? `: ${tail}` : ''}.`,
            );
          });
          await container.waitReady(startupTimeoutMs);
          return container;
        },
      };
    },
  };
}
