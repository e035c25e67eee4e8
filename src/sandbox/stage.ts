// When Slipway is root, sandboxes run as other uids, and bwrap (running as one of them) must reach
// every directory it binds by path: a job's directory under a 0700 data directory, or an
// interpreter under /root/.pyenv, is out of its reach. The stage is a mount namespace of Slipway's
// own (held by a sleeping process; private, so nothing of it shows on the host) in which each such
// directory is also bind-mounted under one reachable directory (a tmpfs at STAGE_DIR): bwrap runs
// inside it (nsenter -m -S uid -G gid) and binds from there. What a uid may
// read inside a staged directory is unchanged: a bind mount keeps every file's owner and mode.
// https://man7.org/linux/man-pages/man7/mount_namespaces.7.html
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnChild } from './spawner.js';

/** The mount point of the stage's tmpfs (an empty directory on the host; mounted only inside). */
export const STAGE_DIR = '/run/slipway-stage';

export interface StageTools {
  readonly unshare?: string;
  readonly nsenter?: string;
  readonly mount?: string;
}

async function run(file: string, args: string[], env: Record<string, string>): Promise<void> {
  // Through the process spawner (spawner.ts) when it runs: a job's first bind of a directory.
  const c = await spawnChild(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((ok, fail) => {
    let err = '';
    c.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    c.once('error', fail);
    c.once('close', (code) =>
      code === 0 ? ok() : fail(new Error(`${file} ${args.join(' ')}: ${err.trim() || code}`)),
    );
  });
}

export class Stage {
  readonly #staged = new Map<string, Promise<string>>();
  #next = 0;

  private constructor(
    private readonly holder: ChildProcess,
    private readonly tools: Required<StageTools>,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts the stage's namespace; `env` marks its holder for reapStraySandboxes. */
  static async open(tools: StageTools, env: Record<string, string>): Promise<Stage> {
    if (!tools.unshare || !tools.nsenter || !tools.mount)
      throw new Error('unshare, nsenter and mount (Debian packages util-linux and mount) are needed');
    mkdirSync(STAGE_DIR, { recursive: true, mode: 0o755 });
    const holder = spawn(
      tools.unshare,
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        `${tools.mount} -t tmpfs -o mode=0755,size=1m slipway-stage ${STAGE_DIR} && echo ready && exec sleep infinity`,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    await new Promise<void>((ok, fail) => {
      let err = '';
      holder.stderr!.on('data', (d: Buffer) => {
        err += d.toString('utf8');
      });
      holder.stdout!.once('data', () => ok());
      holder.once('error', fail);
      holder.once('exit', (code) =>
        fail(new Error(`the staging namespace could not be made (${code}): ${err.trim()}`)),
      );
    });
    // It sleeps for as long as this process lives; it does not keep the process alive.
    holder.unref();
    for (const s of [holder.stdout, holder.stderr]) {
      s!.removeAllListeners('data');
      s!.resume();
      (s as unknown as { unref?: () => void }).unref?.();
    }
    return new Stage(holder, tools as Required<StageTools>, env);
  }

  get pid(): number {
    return this.holder.pid!;
  }

  /** The path, inside the stage, at which `dir` can be bound (staged once). */
  path(dir: string): Promise<string> {
    const d = resolve(dir);
    let p = this.#staged.get(d);
    if (!p) {
      const at = join(STAGE_DIR, String(this.#next++));
      p = run(
        this.tools.nsenter,
        [
          '-t',
          String(this.pid),
          '-m',
          '--',
          '/bin/sh',
          '-c',
          'mkdir -p "$1" && exec "$2" --bind "$0" "$1"',
          d,
          at,
          this.tools.mount,
        ],
        this.env,
      ).then(() => at);
      // A failure is not remembered: the directory may appear later.
      p.catch(() => this.#staged.delete(d));
      this.#staged.set(d, p);
    }
    return p;
  }

  /**
   * Runs `file args` as `uid` (no supplementary groups), in the stage's mount namespace when
   * `staged`, in the network namespace at `net` when given.
   */
  wrap(
    uid: number,
    gid: number,
    o: { staged: boolean; net?: string } = { staged: true },
  ): (file: string, args: string[]) => [string, string[]] {
    const { nsenter } = this.tools;
    const ns = [...(o.staged ? ['-t', String(this.pid), '-m'] : []), ...(o.net ? [`--net=${o.net}`] : [])];
    // nsenter switches to the uid itself once inside (-S, -G: no supplementary groups, no capabilities).
    return (file, args) => [nsenter, [...ns, '-S', String(uid), '-G', String(gid), '--', file, ...args]];
  }

  /** Whether the holder is still there (a stage whose holder died cannot be entered). */
  get alive(): boolean {
    try {
      return readFileSync(`/proc/${this.pid}/stat`, 'utf8').length > 0 && this.holder.exitCode === null;
    } catch {
      return false;
    }
  }

  close(): void {
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {}
  }
}
