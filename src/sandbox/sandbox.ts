// Runs a program written for a SageMaker container (training or processing) without Docker: inside a
// bubblewrap sandbox where a job's private directory is mounted at /opt/ml, so scripts that use the
// container paths (/opt/ml/input/data/train, /opt/ml/model, /opt/ml/processing/input) run unchanged.
// Without bwrap the program runs as a plain process and finds its directories only through the SM_*
// environment (the paths are the job directory's own). https://github.com/containers/bubblewrap
import { execFile, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';

/** Where /opt/ml is inside the sandbox. */
export const CONTAINER_ML_ROOT = '/opt/ml';

export interface ContractRun {
  /** The job's directory that becomes /opt/ml (input/, model/, output/, processing/ ...). */
  readonly mlRoot: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Built from the root the program will see: `/opt/ml` in the sandbox, `mlRoot` without one. */
  readonly env: (mlRoot: string) => Record<string, string>;
  /** Each line the program writes, as it writes it. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Stops the program (StopTrainingJob, MaxRuntimeInSeconds): SIGTERM, then SIGKILL after `graceMs`. */
  readonly signal?: AbortSignal;
  readonly graceMs?: number;
  /** Nice value for the program (jobs yield the CPU to serving); default: the server's own. */
  readonly nice?: number;
  /** Run in bubblewrap or as a plain process; default: bubblewrap when it is available. */
  readonly sandbox?: boolean;
}

export interface ContractExit {
  /** Exit code, or null when the program was ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether it ran in a bubblewrap sandbox (else as a plain process). */
  readonly sandboxed: boolean;
  /** It could not be started at all (a missing command): the reason. */
  readonly startError?: string;
}

let probed: boolean | undefined;

/** Whether bubblewrap is installed and can create a sandbox here (probed once). */
export function sandboxAvailable(): boolean {
  if (probed === undefined) {
    if (process.env.SLIPWAY_SANDBOX === 'none') probed = false;
    else {
      const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], {
        stdio: 'ignore',
        timeout: 5000,
      });
      probed = r.status === 0;
    }
  }
  return probed;
}

/**
 * bwrap arguments: the host file system read-only, a fresh /dev, /proc and /tmp, /opt replaced by a
 * tmpfs that keeps the host's /opt entries (read-only) and gains /opt/ml, the job's directory.
 */
function bwrapArgs(mlRoot: string, cwd: string): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/opt'];
  let hostOpt: string[] = [];
  try {
    hostOpt = readdirSync('/opt').filter((n) => n !== 'ml');
  } catch {}
  for (const n of hostOpt) args.push('--ro-bind', `/opt/${n}`, `/opt/${n}`);
  // The program's own directory stays visible even where a tmpfs covers it (a checkout under /tmp).
  args.push('--ro-bind', cwd, cwd);
  args.push('--bind', mlRoot, CONTAINER_ML_ROOT);
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--chdir', cwd);
  return args;
}

/** Runs the program to its end; never rejects (a program that cannot start is reported in startError). */
export function runContract(run: ContractRun): Promise<ContractExit> {
  const sandboxed = run.sandbox ?? sandboxAvailable();
  const root = sandboxed ? CONTAINER_ML_ROOT : run.mlRoot;
  const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', ...run.env(root) };
  const [file, args] = sandboxed
    ? ['bwrap', [...bwrapArgs(run.mlRoot, run.cwd), '--', ...run.argv]]
    : [run.argv[0]!, run.argv.slice(1)];
  // Stopped before it started (a stop that raced the job's start): nothing is run at all.
  if (run.signal?.aborted) return Promise.resolve({ code: null, signal: 'SIGTERM', sandboxed });
  return new Promise((resolve) => {
    let startError: string | undefined;
    const child = spawn(file, args, { cwd: run.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // A job's program yields the CPU to serving (its children inherit the nice value).
    if (run.nice !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, run.nice);
      } catch {
        // not permitted: normal priority
      }
    }
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, sig);
      } catch {}
    };
    let hardKill: NodeJS.Timeout | undefined;
    // bwrap's sandbox (its pid-namespace init, in a session of its own) can outlive a bwrap killed
    // while it was still setting up (--die-with-parent is not armed yet): it is found and ended too.
    const killSandbox = (sig: NodeJS.Signals) => {
      killGroup(sig);
      if (sandboxed) reapSandboxOf(run.mlRoot, sig);
    };
    const onAbort = () => {
      killSandbox('SIGTERM');
      hardKill = setTimeout(() => killSandbox('SIGKILL'), run.graceMs ?? 2000);
    };
    if (run.signal?.aborted) onAbort();
    else run.signal?.addEventListener('abort', onAbort, { once: true });
    const pending: Promise<void>[] = [];
    for (const [stream, name] of [
      [child.stdout, 'stdout'],
      [child.stderr, 'stderr'],
    ] as const) {
      const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      rl.on('line', (line) => run.onLine(line, name));
      pending.push(new Promise((r) => rl.once('close', () => r())));
    }
    child.once('error', (err) => {
      startError = `${run.argv[0]} could not be started: ${(err as NodeJS.ErrnoException).code ?? err.message}`;
    });
    child.once('close', async (code, signal) => {
      await Promise.all(pending);
      if (hardKill) clearTimeout(hardKill);
      run.signal?.removeEventListener('abort', onAbort);
      // The group may have survivors (a daemon the program started): they go with it.
      killGroup('SIGKILL');
      resolve({ code, signal, sandboxed, startError });
    });
  });
}

let docker: Promise<boolean> | undefined;
/** Whether a Docker engine answers `docker info` (asked once), for images not in the containers file. */
export function dockerAnswers(): Promise<boolean> {
  docker ??= new Promise<boolean>((resolve) => execFile('docker', ['info'], { timeout: 3000 }, (err) => resolve(!err)));
  return docker;
}

/**
 * Kills sandboxes a previous run of this server left behind: bubblewrap processes whose /opt/ml is a
 * directory under `jobsDir` (a server killed with SIGKILL cannot end its jobs' processes itself).
 * Returns how many were killed. Linux only (reads /proc); elsewhere it does nothing.
 */
export function reapStraySandboxes(jobsDir: string): number {
  return killBwraps(`\0--bind\0${jobsDir.replace(/\/+$/, '')}/`, 'SIGKILL');
}

/** Signals the bubblewrap processes whose /opt/ml is exactly `mlRoot` (one job's sandbox). */
function reapSandboxOf(mlRoot: string, sig: NodeJS.Signals): number {
  return killBwraps(`\0--bind\0${mlRoot}\0${CONTAINER_ML_ROOT}\0`, sig);
}

function killBwraps(marker: string, sig: NodeJS.Signals): number {
  let killed = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (!cmd.startsWith('bwrap\0') || !cmd.includes(marker)) continue;
    try {
      process.kill(Number(pid), sig);
      killed++;
    } catch {}
  }
  return killed;
}
