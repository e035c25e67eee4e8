// What the sandbox keeps on the host around its sandboxes: the uids they run as, their files'
// owners, the markers by which a restarted server finds what its predecessor left, the staging
// namespace's holder, and this process's generated /etc.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  type Dir,
  type Dirent,
  lchownSync,
  lstatSync,
  opendirSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
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

/**
 * Where the servers of one host claim the uids their sandboxes run as (a file per uid, holding the
 * claiming server's pid): the uid range is the host's, not one server's. tmpfs, gone at boot.
 */
export const UID_CLAIMS_DIR = '/run/slipway/sandbox-uids';

/**
 * The uids of running sandboxes. Every server of a host (replicas, a second instance, parallel
 * tests) draws from the same range, so a uid is also claimed host-wide (`claimsDir`): two servers'
 * sandboxes never share a uid, nor its limits (RLIMIT_NPROC counts every process of a uid, so one
 * sandbox's fork bomb stopped another server's sandbox of the same uid from starting: EAGAIN). A
 * claim whose server is gone (kill -9) is taken over. Each server starts at a random place in the
 * range, so servers rarely even try the same uids.
 */
export class UidPool {
  readonly #inUse = new Set<number>();
  #next: number;
  readonly #claims: string | undefined;
  constructor(
    private readonly range: { first: number; last: number } | undefined,
    claimsDir: string | undefined = UID_CLAIMS_DIR,
  ) {
    this.#next = range ? range.first + Math.floor(Math.random() * (range.last - range.first + 1)) : 0;
    let claims: string | undefined;
    if (range && claimsDir) {
      try {
        mkdirSync(claimsDir, { recursive: true, mode: 0o700 });
        claims = claimsDir;
      } catch {
        // No host-wide claims (a read-only /run): this server's own bookkeeping only.
      }
    }
    this.#claims = claims;
  }
  acquire(): number {
    const r = this.range;
    if (!r) return process.getuid?.() ?? 0;
    for (let i = 0; i <= r.last - r.first; i++) {
      const uid = this.#next;
      this.#next = uid >= r.last ? r.first : uid + 1;
      if (!this.#inUse.has(uid) && this.#claim(uid)) {
        this.#inUse.add(uid);
        return uid;
      }
    }
    throw new Error('every sandbox uid is in use');
  }
  release(uid: number): void {
    if (!this.#inUse.delete(uid) || !this.#claims) return;
    try {
      unlinkSync(join(this.#claims, String(uid)));
    } catch {}
  }
  /** Claims `uid` on the host: a new claim file, or one whose server has exited. */
  #claim(uid: number): boolean {
    const dir = this.#claims;
    if (!dir) return true;
    const file = join(dir, String(uid));
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // claims unusable: as before
      }
      const pid = claimant(file);
      // Being written, unreadable, or its server alive: not ours to take.
      if (attempt > 0 || pid === undefined || processAlive(pid)) return false;
      // Its server is gone: take the claim over (another server may race for it; `wx` decides).
      try {
        unlinkSync(file);
      } catch {}
    }
    return false;
  }
}

function claimant(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process runs (one of another user's too: EPERM). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Gives a directory tree to `uid` (a job writes its outputs; Slipway, as root, reads them back). */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  lchownSync(dir, uid, gid);
  await walkTree(
    dir,
    (p) => lchown(p, uid, gid),
    (p) => lchownSync(p, uid, gid),
  );
}

/** Entries a tree walk visits with synchronous calls before it goes on asynchronously. */
const WALK_SYNC_ENTRIES = 256;
/** File system calls the asynchronous part of a tree walk keeps in flight at once. */
const WALK_CONCURRENCY = 16;

interface WalkItem {
  readonly path: string;
  readonly entry: Dirent;
}

/**
 * Calls `visit` on every entry under `dir` (not `dir` itself; symbolic links are visited, not
 * followed). The first WALK_SYNC_ENTRIES entries are read and visited with synchronous calls
 * (`visitSync`): each asynchronous call is a round trip to libuv's thread pool, ~0.8 ms on a busy
 * VM, so a job's 15-entry directory took 6-9 ms even with its calls side by side (25 ms one after
 * the other), against ~0.2 ms synchronously. A larger tree goes on asynchronously,
 * WALK_CONCURRENCY calls and directory reads at a time, so the event loop is never held long.
 */
async function walkTree(
  dir: string,
  visit: (path: string, e: Dirent) => Promise<void>,
  visitSync: (path: string, e: Dirent) => void,
): Promise<void> {
  const dirs = [dir];
  const pending: WalkItem[] = [];
  let open: { path: string; handle: Dir } | undefined;
  let budget = WALK_SYNC_ENTRIES;
  try {
    while (budget > 0) {
      if (!open) {
        const d = dirs.pop();
        if (d === undefined) return;
        open = { path: d, handle: opendirSync(d) };
      }
      const entry = open.handle.readSync();
      if (entry === null) {
        open.handle.closeSync();
        open = undefined;
        continue;
      }
      const path = join(open.path, entry.name);
      visitSync(path, entry);
      budget--;
      if (entry.isDirectory()) dirs.push(path);
    }
    // The rest of the directory being read when the budget ran out (the iterator closes it).
    if (open) {
      const { path, handle } = open;
      open = undefined;
      for await (const entry of handle) pending.push({ path: join(path, entry.name), entry });
    }
  } finally {
    open?.handle.closeSync();
  }
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const item = pending.pop();
      if (item) {
        await visit(item.path, item.entry);
        if (item.entry.isDirectory()) dirs.push(item.path);
        continue;
      }
      const d = dirs.pop();
      if (d === undefined) return;
      for (const entry of await readdir(d, { withFileTypes: true })) pending.push({ path: join(d, entry.name), entry });
    }
  };
  // A worker ends when nothing is left at the moment it looks; what a running one finds later,
  // it takes on itself.
  await Promise.all(
    Array.from({ length: WALK_CONCURRENCY }, () =>
      worker().catch((e: unknown) => {
        failure ??= e;
      }),
    ),
  );
  if (failure !== undefined) throw failure;
}

/** Makes a model directory readable by any uid (files a+r, directories a+rx), once. */
const readable = new Set<string>();
export async function makeReadable(dir: string): Promise<void> {
  if (readable.has(dir)) return;
  await chmod(dir, 0o755);
  const bits = (e: Dirent) => (e.isDirectory() ? 0o555 : 0o444);
  await walkTree(
    dir,
    async (p, e) => {
      if (e.isSymbolicLink()) return;
      const st = await lstat(p);
      if (!st.isSymbolicLink()) await chmod(p, st.mode | bits(e));
    },
    (p, e) => {
      if (e.isSymbolicLink()) return;
      const st = lstatSync(p);
      if (!st.isSymbolicLink()) chmodSync(p, st.mode | bits(e));
    },
  );
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
    if (!owner || processAlive(Number(owner))) continue; // its server is alive
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
    if (!(pid > 0) || processAlive(pid)) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {}
  }
  const dir = join(tmpdir(), `${prefix}${process.pid}`);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return probeLayout(dir);
}
