// The plain-process fallbacks: a job's program and a model server run without a sandbox (an
// anonymous server on a host without bwrap), and the `docker` CLI, which isolates an image itself.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { dirname, isAbsolute } from 'node:path';
import { drained, killTree } from './launch.js';
import { readLines } from './line-reader.js';
import {
  CONTAINER_ML_ROOT,
  type JobIo,
  type JobSpec,
  SANDBOX_PATH,
  type SandboxedServer,
  type SandboxExit,
  type ServerSpec,
} from './sandbox.js';

/**
 * Without a sandbox (an anonymous server without bwrap, or the `docker` CLI that runs an image in
 * Docker's own): the program as a plain process.
 */
export function runUnsandboxed(spec: JobSpec, io: JobIo): Promise<SandboxExit> {
  const env = { PATH: process.env.PATH ?? SANDBOX_PATH, HOME: process.env.HOME ?? '/tmp', ...spec.env(spec.mlRoot) };
  return new Promise((resolveExit) => {
    let startError: string | undefined;
    const cwd = spec.cwd && isAbsolute(spec.cwd) && !spec.cwd.startsWith(CONTAINER_ML_ROOT) ? spec.cwd : spec.mlRoot;
    const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (spec.nice !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, spec.nice);
      } catch {}
    }
    let hardKill: NodeJS.Timeout | undefined;
    const onAbort = () => {
      killTree(child, 'SIGTERM');
      hardKill = setTimeout(() => killTree(child), io.graceMs ?? 2000);
    };
    if (io.signal?.aborted) onAbort();
    else io.signal?.addEventListener('abort', onAbort, { once: true });
    const reading = Promise.all([
      readLines(child.stdout!, (l) => io.onLine(l, 'stdout'), io.skip),
      readLines(child.stderr!, (l) => io.onLine(l, 'stderr'), io.skip),
    ]).catch(() => {});
    child.once('error', (err) => {
      startError = `${spec.argv[0]} could not be started: ${(err as NodeJS.ErrnoException).code ?? err.message}`;
    });
    child.once('close', async (code, signal) => {
      await reading;
      if (hardKill) clearTimeout(hardKill);
      io.signal?.removeEventListener('abort', onAbort);
      killTree(child);
      resolveExit({ code, signal, sandboxed: false, oomKilled: false, startError });
    });
  });
}

/** Without a sandbox: the server as a plain process listening on `hostPort` (its model at its host path). */
export async function startUnsandboxedServer(spec: ServerSpec, hostPort: number): Promise<SandboxedServer> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'TMPDIR']) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  Object.assign(env, spec.env({ modelDir: spec.modelDir, port: hostPort, codeDir: spec.codeDir }));
  const child = spawn(spec.argv[0]!, spec.argv.slice(1), {
    cwd: spec.cwd ?? dirname(spec.modelDir),
    env,
    detached: true,
    stdio: [spec.channel ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (!spec.channel) child.stdout!.resume();
  child.stdin?.on('error', () => {}); // a channel to a process that died: its exit says why
  child.stderr!.setEncoding('utf8');
  let hard: NodeJS.Timeout | undefined;
  const exited = new Promise<SandboxExit>((resolveExit) => {
    let startError: string | undefined;
    child.once('error', (e) => {
      startError = `The container command could not start: ${e.message}`;
      resolveExit({ code: null, signal: null, sandboxed: false, oomKilled: false, startError });
    });
    child.once('exit', async (code, signal) => {
      killTree(child);
      if (hard) clearTimeout(hard);
      await drained(child.stderr); // its last words, which the exit message quotes
      resolveExit({ code, signal, sandboxed: false, oomKilled: false, startError });
    });
  });
  return {
    host: '127.0.0.1',
    port: hostPort,
    memoryBounded: false,
    pid: child.pid,
    sandboxed: false,
    onStderr: (l) => child.stderr!.on('data', l),
    ...(spec.channel ? { channel: { input: child.stdin!, output: child.stdout! } } : {}),
    stop(graceful) {
      if (!graceful) return killTree(child);
      killTree(child, 'SIGTERM');
      hard = setTimeout(() => killTree(child), 2000);
      hard.unref();
    },
    exited,
  };
}
