// What the sandbox keeps on the host around its sandboxes: the uids they run as, their files'
// owners, the markers by which a restarted server finds what its predecessor left, the staging
// namespace's holder, and this process's generated /etc.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { chmod, lchown, lstat, opendir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type HostLayout, probeLayout } from './mount-plan.js';
import { which } from './probe.js';
import { Stage } from './stage.js';

/** The uid range sandboxes run as when Slipway is root, above systemd's container ranges. */
export const DEFAULT_UIDS = { first: 1_900_000_000, last: 1_900_065_535 };

const isRoot = () => process.getuid?.() === 0;

/** Whether this process (root in its user namespace) can switch to every uid of `range`. */
function mapped(range: { first: number; last: number }): boolean {
  try {
    return readFileSync('/proc/self/uid_map', 'utf8')
      .split('\n')
      .some((l) => {
        const [inside, , count] = l.trim().split(/\s+/).map(Number);
        return inside! <= range.first && range.last < inside! + count!;
      });
  } catch {
    return false;
  }
}

/**
 * The uids sandboxes run as: one per sandbox from `range` when Slipway is root (and the range
 * exists in its user namespace), else Slipway's own (a sandbox's user namespace keeps it apart).
 */
export function uidRangeFor(
  range: { first: number; last: number } | undefined,
): { first: number; last: number } | undefined {
  const r = range ?? DEFAULT_UIDS;
  return isRoot() && mapped(r) ? r : undefined;
}

export class UidPool {
  readonly #inUse = new Set<number>();
  #next: number;
  constructor(private readonly range: { first: number; last: number } | undefined) {
    this.#next = range?.first ?? 0;
  }
  acquire(): number {
    const r = this.range;
    if (!r) return process.getuid?.() ?? 0;
    for (let i = 0; i <= r.last - r.first; i++) {
      const uid = this.#next;
      this.#next = uid >= r.last ? r.first : uid + 1;
      if (!this.#inUse.has(uid)) {
        this.#inUse.add(uid);
        return uid;
      }
    }
    throw new Error('every sandbox uid is in use');
  }
  release(uid: number): void {
    this.#inUse.delete(uid);
  }
}

/** Gives a directory tree to `uid` (a job writes its outputs; Slipway, as root, reads them back). */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await lchown(dir, uid, gid);
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    for await (const e of await opendir(d)) {
      const p = join(d, e.name);
      await lchown(p, uid, gid);
      if (e.isDirectory()) stack.push(p);
    }
  }
}

/** Makes a model directory readable by any uid (files a+r, directories a+rx), once. */
const readable = new Set<string>();
export async function makeReadable(dir: string): Promise<void> {
  if (readable.has(dir)) return;
  const stack = [dir];
  await chmod(dir, 0o755);
  while (stack.length > 0) {
    const d = stack.pop()!;
    for await (const e of await opendir(d)) {
      const p = join(d, e.name);
      const st = await lstat(p);
      if (st.isSymbolicLink()) continue;
      await chmod(p, st.mode | (e.isDirectory() ? 0o555 : 0o444));
      if (e.isDirectory()) stack.push(p);
    }
  }
  readable.add(dir);
}

/** The marker in a sandbox process's environment: which data directory's server started it. */
export const MARKER = 'SLIPWAY_SANDBOX';
export const tagOf = (dataDir: string) => createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);

/**
 * Ends the sandboxes (and their network helpers) a previous run of the server on `dataDir` left
 * behind: a server killed with SIGKILL cannot end them itself. Returns how many processes were
 * killed. Linux only (reads /proc); elsewhere it does nothing.
 */
export function reapStraySandboxes(dataDir: string): number {
  const wanted = `${MARKER}=${tagOf(dataDir)}`;
  let killed = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    let env: string;
    try {
      env = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (!env.split('\0').includes(wanted)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    } catch {}
  }
  return killed;
}

let docker: Promise<boolean> | undefined;
/** Whether a Docker engine answers `docker info` (asked once), for images not in the containers file. */
export function dockerAnswers(): Promise<boolean> {
  docker ??= new Promise<boolean>((r) => execFile('docker', ['info'], { timeout: 3000 }, (err) => r(!err)));
  return docker;
}

/** The marker of a staging namespace's holder: the pid of the server it serves. */
const STAGE_MARKER = 'SLIPWAY_SANDBOX_STAGE';

/** This process's staging namespace (stage.ts), ended when the process exits. */
export async function openStage(): Promise<Stage> {
  // Holders left by servers that are gone keep bind mounts alive: they go first.
  reapStrayStages();
  const stage = await Stage.open(
    { unshare: which('unshare'), nsenter: which('nsenter'), mount: which('mount') },
    { [STAGE_MARKER]: String(process.pid) },
  );
  process.once('exit', () => stage.close());
  return stage;
}

function reapStrayStages(): void {
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return;
  }
  for (const pid of pids) {
    let env: string;
    try {
      env = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    const owner = env
      .split('\0')
      .find((e) => e.startsWith(`${STAGE_MARKER}=`))
      ?.slice(STAGE_MARKER.length + 1);
    if (!owner) continue;
    try {
      process.kill(Number(owner), 0);
      continue; // its server is alive
    } catch {}
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {}
  }
}

/**
 * The host's layout with this process's generated files (its /etc copy, passwd per uid) in a
 * directory of its own, removed when it exits; those of processes that are gone are removed first.
 */
export function generatedLayout(): HostLayout {
  const prefix = 'slipway-sandbox-etc-';
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    try {
      if (pid > 0) process.kill(pid, 0);
      continue;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {}
  }
  const dir = join(tmpdir(), `${prefix}${process.pid}`);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return probeLayout(dir);
}
