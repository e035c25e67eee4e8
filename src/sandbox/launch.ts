// Starting one bubblewrap sandbox: bwrap runs as the sandbox's uid, with its options on a
// descriptor (`--args`, so neither the environment nor the host's paths show in `ps`), the seccomp
// program on another, and `--block-fd`: the sandbox is built and then held until `prepare` (cgroup,
// nice value, network) has run on its first process. bwrap reaches what it binds by path, as the
// sandbox's uid: when Slipway is root, `wrap` runs it inside the staging mount namespace
// (stage.ts), where those directories are reachable.
import type { Readable, Writable } from 'node:stream';
import { argsData, bwrapOptions, type HostLayout } from './mount-plan.js';
import { type Child, spawnChild } from './spawner.js';

const ARGS_FD = 3;
const SECCOMP_FD = 4;
const INFO_FD = 5;
const BLOCK_FD = 6;

export interface DirBind {
  /** The directory on the host (hidden paths under it are covered over). */
  readonly dir: string;
  /** The path bwrap binds from (the staged one when Slipway is root), default `dir`. */
  readonly source?: string;
  readonly at: string;
  readonly writable: boolean;
}

export interface Rlimits {
  readonly nproc: number;
  /** RLIMIT_FSIZE: no file larger than the job's volume. */
  readonly fsize?: number;
  /** RLIMIT_DATA: the memory bound when no memory cgroup holds the sandbox. */
  readonly data?: number;
}

export interface LaunchOptions {
  readonly bwrap: string;
  readonly prlimit?: string;
  readonly layout: HostLayout;
  /** The sandbox's uid and gid, inside and outside. */
  readonly uid: number;
  readonly gid: number;
  /** Runs bwrap through another command (nsenter ... -S X -G X), which sets the uid. */
  readonly wrap?: (file: string, args: string[]) => [string, string[]];
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly binds: readonly DirBind[];
  readonly hidden: readonly string[];
  readonly tmpBytes?: number;
  readonly shmBytes: number;
  readonly network: 'none' | 'outbound' | 'host';
  /** bwrap starts inside the network namespace it is to keep (`wrap` put it there). */
  readonly shareNet?: boolean;
  readonly seccomp?: Buffer;
  readonly rlimits?: Rlimits;
  /** bwrap's own environment: the marker reapStraySandboxes looks for. */
  readonly marker: Record<string, string>;
  /**
   * Runs with the sandbox's first process (held before the program starts); a rejection ends the
   * sandbox. It may run again, for the first process of a new sandbox (see retryTransient).
   */
  readonly prepare: (pid: number) => Promise<void>;
  /** Give the program a pipe as its standard input (a channel to it), rather than none. */
  readonly stdin?: boolean;
}

export interface Launched {
  /** The bwrap process (its process group holds the sandbox). */
  readonly child: Child;
  /** The sandbox's first process (PID 1 inside). */
  readonly pid: number;
}

export class LaunchError extends Error {}

function prlimitArgs(r: Rlimits): string[] {
  // Limits are only lowered (the uid bwrap runs as may not raise one): open files stay the server's.
  const a = [`--nproc=${r.nproc}`, '--core=0'];
  if (r.fsize !== undefined) a.push(`--fsize=${r.fsize}`);
  if (r.data !== undefined) a.push(`--data=${r.data}`);
  return a;
}

/** Kills the bwrap process group (with --die-with-parent, the sandbox goes with it). */
export function killTree(
  child: { readonly pid?: number; kill(signal?: NodeJS.Signals): boolean },
  signal: NodeJS.Signals = 'SIGKILL',
): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {}
  }
}

/**
 * Resolves once `stream` has ended, or after `ms`: a child's 'exit' can come before the last of
 * what it wrote to a pipe has been read (through the spawner, the exit and the pipes are separate
 * channels), and an exit message quotes the tail of its standard error. The bound is for a pipe
 * some survivor outside the killed group still holds.
 */
export function drained(stream: Readable | null | undefined, ms = 500): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stream.off('end', done);
      stream.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stream.once('end', done);
    stream.once('close', done);
  });
}

/**
 * bwrap's complaints of a kernel momentarily short of something while it builds the sandbox (a
 * fork refused with EAGAIN, a netlink answer lost while it sets up the loopback, both seen under
 * CI's load): the user's program has not started, so another sandbox is built. The loopback is
 * set up after the sandbox is let go, so that one can also end a sandbox launch() returned; its
 * callers start such a sandbox again too (a job: rerunTransient; a model server:
 * startServerInstance, through retryTransient).
 */
const TRANSIENT = /bwrap: (.*Resource temporarily unavailable|loopback: Failed)/;
// Five attempts, 1.5 s of backing off in all: under CI's full suite three (0.25 s) were at times
// all refused, and an endpoint failed to deploy.
const LAUNCH_ATTEMPTS = 5;

/**
 * The one retry loop of sandbox starts: `attempt` again, backing off, while `transient` finds
 * bwrap's transient complaint in its outcome (a rejection or a result), at most LAUNCH_ATTEMPTS
 * times in all; the last outcome stands. `onRetry` is told the complaint before each new attempt.
 */
async function whileTransient<T>(
  attempt: () => Promise<T>,
  transient: (outcome: { value: T } | { error: unknown }) => string | undefined,
  onRetry?: (why: string) => void,
): Promise<T> {
  for (let n = 1; ; n++) {
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await attempt() };
    } catch (error) {
      outcome = { error };
    }
    const text = n < LAUNCH_ATTEMPTS ? transient(outcome) : undefined;
    if (text === undefined || !TRANSIENT.test(text)) {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }
    onRetry?.(text);
    await new Promise((r) => setTimeout(r, 50 * n * n));
  }
}

/**
 * `attempt` again while it rejects with bwrap's transient complaint; `mayRetry` picks the errors
 * that can carry one (default: a LaunchError).
 */
export function retryTransient<T>(
  attempt: () => Promise<T>,
  mayRetry: (e: unknown) => boolean = (e) => e instanceof LaunchError,
): Promise<T> {
  return whileTransient(attempt, (o) => ('error' in o && mayRetry(o.error) ? (o.error as Error).message : undefined));
}

/** A sandboxed program run again while it ends with bwrap's transient complaint as its startError. */
export function rerunTransient<T extends { readonly startError?: string }>(
  run: () => Promise<T>,
  onRetry: (why: string) => void,
): Promise<T> {
  return whileTransient(run, (o) => ('value' in o ? o.value.startError : undefined), onRetry);
}

/**
 * Spawns the sandbox and runs `prepare` (again, for a new sandbox, when bwrap failed for a
 * transient reason); resolves once its program has been let go.
 */
export function launch(o: LaunchOptions): Promise<Launched> {
  return retryTransient(() => launchOnce(o));
}

async function launchOnce(o: LaunchOptions): Promise<Launched> {
  const options = bwrapOptions({
    layout: o.layout,
    uid: o.uid,
    gid: o.gid,
    binds: o.binds.map((b) => ({ source: b.source ?? b.dir, host: b.dir, at: b.at, writable: b.writable })),
    hidden: o.hidden,
    tmpBytes: o.tmpBytes,
    shmBytes: o.shmBytes,
    network: o.network,
    shareNet: o.shareNet,
    env: o.env,
    cwd: o.cwd,
    seccompFd: o.seccomp ? SECCOMP_FD : undefined,
    infoFd: INFO_FD,
    blockFd: BLOCK_FD,
  });
  let [file, args]: [string, string[]] = [o.bwrap, ['--args', String(ARGS_FD), '--', ...o.argv]];
  if (o.rlimits && o.prlimit) [file, args] = [o.prlimit, [...prlimitArgs(o.rlimits), '--', file, ...args]];
  if (o.wrap) [file, args] = o.wrap(file, args);
  // Spawned by the process spawner (spawner.ts): the server's event loop does not pay the fork.
  let child: Child;
  try {
    child = await spawnChild(file, args, {
      ...(o.wrap ? {} : { uid: o.uid, gid: o.gid }),
      cwd: '/',
      env: o.marker,
      detached: true,
      stdio: [o.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe', o.seccomp ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    throw new LaunchError(`${file} could not be started: ${(e as Error).message}`);
  }
  const stdio = child.stdio as unknown as [null, Readable, Readable, Writable, Writable | null, Readable, Writable];
  // Pipes to a process that dies early raise EPIPE: that death is reported through 'exit'.
  for (const s of stdio.slice(3)) s?.on('error', () => {});
  stdio[ARGS_FD].end(argsData(options));
  if (o.seccomp) stdio[SECCOMP_FD]!.end(o.seccomp);
  let early = '';
  const collect = (d: Buffer) => {
    if (early.length < 4000) early += d.toString('utf8');
  };
  stdio[2].on('data', collect);
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      let info = '';
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        reject(new LaunchError(`the sandbox ended before its program started (${code ?? signal}): ${early.trim()}`));
      child.once('exit', onExit);
      stdio[INFO_FD].on('data', (d: Buffer) => {
        info += d.toString('utf8');
        const m = /"child-pid":\s*(\d+)\s*[,}\n]/.exec(info);
        if (m) {
          child.off('exit', onExit);
          stdio[INFO_FD].removeAllListeners('data');
          stdio[INFO_FD].resume();
          resolve(Number(m[1]));
        }
      });
    });
    await o.prepare(pid);
    stdio[BLOCK_FD].end('x');
    return { child, pid };
  } catch (e) {
    // bwrap's own complaint (a bind it could not make) explains a sandbox that died while prepared.
    await new Promise((r) => setTimeout(r, 20));
    killTree(child);
    if (e instanceof LaunchError) throw e;
    const said = early.trim();
    throw new LaunchError(said.startsWith('bwrap:') ? said : (e as Error).message);
  } finally {
    stdio[2].off('data', collect);
    // Held until the caller reads it (readLines resumes it): nothing the program prints is lost.
    stdio[2].pause();
  }
}
