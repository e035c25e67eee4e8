// The one way user code runs (see README.md here): training and processing programs to their
// end (`runJob`) and model servers for as long as they serve (`startServer`), each in a bubblewrap
// sandbox with a user namespace of its own, no capabilities, the seccomp filter, a file system of
// explicit read-only binds, its own PID, IPC, UTS, cgroup and network namespaces, and limits from
// its instance type. https://github.com/containers/bubblewrap
import type { Readable, Writable } from 'node:stream';
import { mkdir, rm } from 'node:fs/promises';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Logger } from 'pino';
import { type Cgroup, Cgroups, joinQuietly } from './cgroups.js';
import { diskUsage } from './disk-usage.js';
import {
  type DirBind,
  drained,
  killTree,
  LaunchError,
  type LaunchOptions,
  launch,
  type Rlimits,
  rerunTransient,
} from './launch.js';
import type { HostCaps, Limits } from './limits.js';
import { hostCaps } from './limits.js';
import { readLines, type Skipping } from './line-reader.js';
import { type HostLayout, isUnder, reachable, refusedBind } from './mount-plan.js';
import { NetworkPool, type PooledNetwork } from './net-pool.js';
import { type Attached, attachNetwork } from './network.js';
import { type Probe, probeHost, which } from './probe.js';
import {
  chownTree,
  generatedLayout,
  makeReadable,
  MARKER,
  openStage,
  reapStraySandboxes,
  tagOf,
  UidPool,
  uidRangeFor,
} from './host.js';
import { runUnsandboxed, startUnsandboxedServer } from './plain.js';
import { seccompFilter } from './seccomp.js';
import { type Child, startSpawner } from './spawner.js';

// The module's whole API, in one place for its users (README.md here).
export { DEFAULT_UIDS, dockerAnswers, reapStraySandboxes } from './host.js';
export { runUnsandboxed, startUnsandboxedServer } from './plain.js';

/** Where /opt/ml is inside the sandbox. */
export const CONTAINER_ML_ROOT = '/opt/ml';
/** The port a model server listens on inside its sandbox, as in SageMaker's containers. */
export const CONTAINER_PORT = 8080;
/** The system directories a sandboxed program's PATH holds. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export type NetworkMode = 'none' | 'outbound';

/** What every sandbox has in common: the program, its code, its network, its limits. */
interface CommonSpec {
  readonly argv: readonly string[];
  /** Working directory (inside the sandbox when sandboxed, on the host otherwise). */
  readonly cwd?: string;
  /** Host directories holding the program (the containers file's cwd and command directory, its binds), read-only at the same paths. */
  readonly code?: readonly string[];
  readonly network: NetworkMode;
  readonly limits: Limits;
}

export interface JobSpec extends CommonSpec {
  /** The job's directory: /opt/ml inside (read-write). */
  readonly mlRoot: string;
  /** Built from the root the program sees: `/opt/ml` sandboxed, `mlRoot` as a plain process. */
  readonly env: (mlRoot: string) => Record<string, string>;
  /** Nice value (jobs yield the CPU to serving). */
  readonly nice?: number;
}

export interface JobIo {
  /** Each line the program writes; a returned promise pauses its output until it settles. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void | Promise<void>;
  /** Lines about the sandbox itself (the limits applied), written before the program starts. */
  readonly onNote?: (line: string) => void;
  /** Past the log's limit, output may be counted instead of split into lines (see line-reader.ts). */
  readonly skip?: Skipping;
  /** Stops the program (StopTrainingJob, MaxRuntimeInSeconds): SIGTERM, then SIGKILL after `graceMs`. */
  readonly signal?: AbortSignal;
  readonly graceMs?: number;
}

export interface SandboxExit {
  /** Exit code, or null when the program was ended by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether it ran in a sandbox (else as a plain process). */
  readonly sandboxed: boolean;
  /** It could not be started at all (a missing command, a sandbox that did not come up): the reason. */
  readonly startError?: string;
  /** The kernel's OOM killer ended a process: the memory limit was reached. */
  readonly oomKilled: boolean;
  /** It wrote more than its volume: why it was stopped. */
  readonly diskExceeded?: string;
}

export interface ServerSpec extends CommonSpec {
  /** The unpacked model: /opt/ml/model inside (read-only). */
  readonly modelDir: string;
  /** The model's code from outside its archive (a framework model's source directory): /opt/ml/code inside (read-only). */
  readonly codeDir?: string;
  readonly env: (where: { modelDir: string; port: number; codeDir?: string }) => Record<string, string>;
  /**
   * Reached through its standard input and output (Slipway's own protocol) instead of a published
   * port: no port, no pasta between the two, only the outbound network when it has one.
   */
  readonly channel?: boolean;
}

/** A long-lived sandboxed server, reached on 127.0.0.1:`port`. */
export interface SandboxedServer {
  readonly host: string;
  readonly port: number;
  /** Whether a memory cgroup bounds it (otherwise the caller watches its resident memory). */
  readonly memoryBounded: boolean;
  /** The process to watch (its tree) when no memory cgroup bounds it. */
  readonly pid: number | undefined;
  readonly sandboxed: boolean;
  /** The server's standard error as it arrives. */
  onStderr(listener: (text: string) => void): void;
  /** Its standard input and output, for a `channel` server. */
  readonly channel?: { readonly input: Writable; readonly output: Readable };
  /** SIGTERM first when `graceful` (SIGKILL 2 s later), else SIGKILL at once. */
  stop(graceful: boolean): void;
  readonly exited: Promise<SandboxExit>;
}

export interface SandboxOptions {
  readonly dataDir: string;
  /** Host paths no sandbox sees, even under a directory it binds: the data dir, the credentials file. */
  readonly hidden?: readonly string[];
  /** Directories every sandbox sees read-only (--sandbox-bind: an interpreter outside /usr). */
  readonly binds?: readonly string[];
  /** uids sandboxes run as when Slipway is root (one per running sandbox). */
  readonly uids?: { readonly first: number; readonly last: number };
  readonly host?: HostCaps;
  /** A credentials file is in force: user code never runs unsandboxed. */
  readonly required: boolean;
  readonly log?: Logger;
}

let layoutOnce: HostLayout | undefined;
const probes = new Map<number, Promise<Probe>>();

/** The sandbox of one server: probed once at start, then asked to run jobs and servers. */
export class Sandbox {
  readonly #uids: UidPool;
  readonly #hidden: string[];
  readonly #binds: string[];
  readonly #marker: Record<string, string>;
  /** The data directory's trees bwrap enters by relative path from their staged root. */
  readonly #roots: string[];
  #pool: NetworkPool | undefined;
  readonly host: HostCaps;

  private constructor(
    readonly options: SandboxOptions,
    readonly probe: Probe,
    readonly cgroups: Cgroups,
    readonly layout: HostLayout,
  ) {
    const range = uidRangeFor(options.uids);
    // The range's last uid is the pooled networks' (net-pool.ts), never a sandbox's.
    this.#uids = new UidPool(range && { first: range.first, last: range.last - 1 });
    this.#hidden = (options.hidden ?? []).map((p) => resolve(p));
    this.#hidden.push(resolve(options.dataDir));
    this.#binds = [...(options.binds ?? [])];
    this.#marker = { [MARKER]: tagOf(options.dataDir) };
    this.#roots = ['jobs', 'models'].map((d) => join(resolve(options.dataDir), d));
    this.host = options.host ?? hostCaps();
  }

  /** Probes the host (once per process) and readies cgroups for `dataDir`; ends strays of a previous run. */
  static async open(o: SandboxOptions): Promise<Sandbox> {
    layoutOnce ??= generatedLayout();
    const range = uidRangeFor(o.uids);
    const probeUid = range?.first ?? process.getuid?.() ?? 0;
    let p = probes.get(probeUid);
    if (!p) {
      p = probeHost(layoutOnce, probeUid, probeUid, range ? openStage : undefined);
      probes.set(probeUid, p);
    }
    const probe = await p;
    // The processes sandboxes need are forked by a helper from here on (spawner.ts).
    if (probe.works) startSpawner();
    const cgroups = probe.works ? Cgroups.detect(o.dataDir) : Cgroups.detect('');
    const sandbox = new Sandbox(o, probe, cgroups, layoutOnce);
    // The trees jobs and models live in: reachable below their staged roots by any uid (0711).
    if (probe.stage && range) {
      for (const r of sandbox.#roots) {
        mkdirSync(r, { recursive: true });
        chmodSync(r, 0o711);
      }
    }
    const strays = reapStraySandboxes(o.dataDir) + (probe.works ? await cgroups.reap() : 0);
    if (strays > 0) o.log?.warn({ strays }, 'ended sandboxes left by a previous run');
    return sandbox;
  }

  /** Whether user code runs sandboxed here. */
  get available(): boolean {
    return this.probe.works;
  }

  /** One line for the start log: what the sandbox is, or what it lacks. */
  describe(): string {
    if (!this.probe.works) return `no sandbox: ${this.probe.missing.join('; ')}`;
    const limits = this.cgroups.kind ?? `rlimits (${this.cgroups.unavailable})`;
    const net = this.probe.networkMissing.length
      ? `no outbound network (${this.probe.networkMissing.join('; ')})`
      : 'pasta';
    return `bubblewrap, seccomp, ${limits}, ${net}, uid ${uidRangeFor(this.options.uids) ? 'one per sandbox from a range' : "the server's own"}`;
  }

  /**
   * Why this program may not run here, or undefined when it may: with a credentials file, user
   * code never runs without a working sandbox, nor with a network the sandbox cannot fence.
   */
  refusal(network: NetworkMode, publish = false): string | undefined {
    if (!this.options.required) return undefined;
    if (!this.probe.works) return `Slipway cannot run user code safely on this host: ${this.probe.missing.join('; ')}.`;
    if ((network === 'outbound' || publish) && this.probe.networkMissing.length > 0)
      return `Slipway cannot give this ${publish ? 'model server' : 'job'} a fenced network on this host: ${this.probe.networkMissing.join('; ')}.`;
    return undefined;
  }

  /** Directories the program's code lives in, checked: never a whole tree like /home or /tmp. */
  #codeBinds(code: readonly string[] | undefined): DirBind[] {
    const out: DirBind[] = [];
    const system = this.layout.system.map((e) => e.path);
    for (const dir of [...(code ?? []), ...this.#binds]) {
      // Already there: /usr/bin/python3's directory is part of the read-only system; or never
      // shown: a directory inside the data directory (a containers file kept there).
      if (system.some((s) => isUnder(dir, s)) || this.#hidden.some((h) => isUnder(dir, h))) continue;
      const why = refusedBind(dir);
      if (why) throw new LaunchError(`The directory ${dir} cannot be shown to a sandbox: ${why}.`);
      if (out.some((b) => isUnder(dir, b.at))) continue;
      out.push({ dir: resolve(dir), at: resolve(dir), writable: false });
    }
    return out;
  }

  /**
   * The working directory inside: the one asked for, unless it is hidden or the sandbox's uid may
   * not enter it (a containers file kept in a 0700 directory, whose directory is the default
   * cwd): then `fallback`, said in `note`.
   */
  #cwd(cwd: string | undefined, fallback: string, uid: number, note?: (line: string) => void): string {
    if (cwd === undefined || this.#hidden.some((h) => isUnder(cwd, h))) return fallback;
    if (!reachable(cwd, join(cwd, 'x'), uid, uid)) {
      note?.(
        `[sandbox] the working directory ${cwd} cannot be entered by the sandbox's uid ${uid} (it needs o+x): the program starts in ${fallback}`,
      );
      return fallback;
    }
    return cwd;
  }

  /**
   * How bwrap is started as another uid (Slipway is root): by Node itself when it can reach every
   * directory it binds and needs no pooled network; else through nsenter (the staging mount
   * namespace, the pooled network namespace), which switches to the uid.
   */
  #wrap(uid: number, staged: boolean, net: PooledNetwork | undefined): LaunchOptions['wrap'] {
    if (uid === process.getuid?.() || (!staged && !net)) return undefined;
    return this.probe.stage!.wrap(uid, uid, { staged, net: net?.path });
  }

  /**
   * Where bwrap binds each directory from: itself when the sandbox's uid can reach it, else (Slipway
   * root) its staged path. The data directory's `jobs` and `models` trees are staged once and
   * entered by relative path; other directories (code) are staged on first use.
   */
  async #staged(binds: DirBind[], uid: number): Promise<{ binds: DirBind[]; staged: boolean }> {
    const stage = this.probe.stage;
    const direct = (d: string) => reachable('/', join(d, '.'), uid, uid) && reachable('/', join(d, 'x'), uid, uid);
    if (!stage || uid === process.getuid?.() || binds.every((b) => direct(b.dir))) return { binds, staged: false };
    const out: DirBind[] = [];
    for (const b of binds) {
      const root = this.#roots.find((r) => isUnder(b.dir, r));
      const source = root ? join(await stage.path(root), relative(root, b.dir)) : await stage.path(b.dir);
      out.push({ ...b, source });
    }
    return { binds: out, staged: true };
  }

  /** A ready outbound network for a job (Slipway root, pasta available), or undefined. */
  async #pooledNetwork(uid: number): Promise<PooledNetwork | undefined> {
    const range = uidRangeFor(this.options.uids);
    const { pasta, nsenter, ip } = this.probe;
    const unshare = which('unshare');
    if (!range || uid === process.getuid?.() || !pasta || !nsenter || !ip || !unshare || !this.probe.stage)
      return undefined;
    // The pool's uid is the range's last: it owns only the pooled namespaces, never a sandbox.
    this.#pool ??= new NetworkPool({ pasta, nsenter, ip, unshare }, range.last, this.#marker);
    return this.#pool.take();
  }

  /** Ends the networks made ahead of time (the server is closing). */
  close(): void {
    this.#pool?.close();
    this.#pool = undefined;
  }

  #networkFor(mode: NetworkMode, publish: boolean): 'none' | 'outbound' | 'host' {
    if (mode === 'none' && !publish) return 'none';
    if (this.probe.networkMissing.length === 0) return mode === 'outbound' ? 'outbound' : 'none';
    // No way to fence a network (anonymous server only; refusal() stops it otherwise): the host's.
    return mode === 'outbound' || publish ? 'host' : 'none';
  }

  #confine(limits: Limits, disk: boolean): { cgroup?: Cgroup; rlimits: Rlimits; note: string } {
    let cgroup: Cgroup | undefined;
    let why = this.cgroups.unavailable;
    try {
      cgroup = this.cgroups.create(limits);
    } catch (e) {
      why = `creating a cgroup failed: ${(e as Error).message}`;
    }
    const rlimits = {
      nproc: limits.pids,
      fsize: disk ? limits.diskBytes : undefined,
      data: cgroup ? undefined : limits.memoryBytes,
    };
    const note = cgroup
      ? `limits through ${cgroup.kind}: memory, ${limits.pids} tasks, ${limits.cpus} CPU${disk ? ', disk watched' : ''}`
      : `limits through rlimits (${why}): data segment, ${limits.pids} processes${disk ? ', file size, disk watched' : ''}; no CPU limit`;
    return { cgroup, rlimits, note };
  }

  /** Runs a job's program to its end; never rejects (a program that cannot start is reported in startError). */
  async runJob(spec: JobSpec, io: JobIo): Promise<SandboxExit> {
    // bwrap can fail to set the sandbox up after letting it go (its loopback, under load): the
    // program never ran, so the job's sandbox is built again.
    return rerunTransient(
      () => this.#runJobOnce(spec, io),
      (why) => io.onNote?.(`[sandbox] ${why}; building the sandbox again`),
    );
  }

  async #runJobOnce(spec: JobSpec, io: JobIo): Promise<SandboxExit> {
    // Stopped before it started (a stop that raced the job's start): nothing is run at all.
    const stoppedFirst = (): SandboxExit => ({
      code: null,
      signal: 'SIGTERM',
      sandboxed: this.probe.works,
      oomKilled: false,
    });
    if (io.signal?.aborted) return stoppedFirst();
    if (!this.probe.works) {
      if (this.options.required)
        return { code: null, signal: null, sandboxed: false, oomKilled: false, startError: this.refusal('none') };
      io.onNote?.(`[sandbox] none: ${this.probe.missing.join('; ')}; the program runs as a plain process`);
      return runUnsandboxed(spec, io);
    }
    const refused = this.refusal(spec.network);
    if (refused) return { code: null, signal: null, sandboxed: true, oomKilled: false, startError: refused };
    const uid = this.#uids.acquire();
    const tmp = `${spec.mlRoot.replace(/\/+$/, '')}.tmp`;
    const { cgroup, rlimits, note } = this.#confine(spec.limits, true);
    let net: Attached | undefined;
    let pooled: PooledNetwork | undefined;
    let child: Child | undefined;
    try {
      const owned = uid !== process.getuid?.();
      await Promise.all([
        owned ? chownTree(spec.mlRoot, uid, uid) : undefined,
        mkdir(tmp, { recursive: true, mode: 0o700 }).then(() => (owned ? chownTree(tmp, uid, uid) : undefined)),
      ]);
      const network = this.#networkFor(spec.network, false);
      io.onNote?.(
        `[sandbox] bubblewrap: user namespace (uid ${uid}), no capabilities, seccomp, network ${network === 'outbound' ? 'outbound only (pasta)' : network === 'host' ? "the host's (no user-mode network here)" : 'none'}; ${note}; ${spec.limits.source}`,
      );
      // The job's own first: a code directory under /tmp (a checkout there) is mounted over them.
      const { binds, staged } = await this.#staged(
        [
          { dir: spec.mlRoot, at: CONTAINER_ML_ROOT, writable: true },
          { dir: tmp, at: '/tmp', writable: true },
          ...this.#codeBinds(spec.code),
        ],
        uid,
      );
      if (network === 'outbound') pooled = await this.#pooledNetwork(uid);
      if (io.signal?.aborted) return stoppedFirst();
      const launched = await launch({
        bwrap: this.probe.bwrap!,
        prlimit: this.probe.prlimit,
        layout: this.layout,
        uid,
        gid: uid,
        wrap: this.#wrap(uid, staged, pooled),
        argv: spec.argv,
        cwd: this.#cwd(spec.cwd, CONTAINER_ML_ROOT, uid, io.onNote),
        env: { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: process.env.LANG ?? 'C.UTF-8', ...spec.env(CONTAINER_ML_ROOT) },
        binds,
        hidden: this.#hidden,
        shmBytes: spec.limits.shmBytes,
        network,
        shareNet: pooled !== undefined,
        seccomp: seccompFilter(),
        rlimits,
        marker: this.#marker,
        prepare: async (pid) => {
          await joinQuietly(cgroup, pid);
          if (spec.nice !== undefined) {
            try {
              setPriority(pid, spec.nice);
            } catch {}
          }
          net?.stop(); // an earlier attempt's (launch builds a new sandbox after a transient failure)
          net = undefined;
          if (network === 'outbound' && !pooled)
            net = await attachNetwork(this.probe, {
              pid,
              uid,
              gid: uid,
              asRoot: uid !== process.getuid?.(),
              outbound: true,
              marker: this.#marker,
            });
        },
      });
      child = launched.child;
      return await this.#follow(launched, spec, io, cgroup, [spec.mlRoot, tmp], uid);
    } catch (e) {
      if (child) killTree(child);
      const msg =
        e instanceof LaunchError
          ? explainBwrap(e.message, uid)
          : `the sandbox could not be set up: ${(e as Error).message}`;
      return { code: null, signal: null, sandboxed: true, oomKilled: cgroup?.oomKilled() ?? false, startError: msg };
    } finally {
      net?.stop();
      pooled?.release();
      await cgroup?.destroy();
      this.#uids.release(uid);
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Follows a launched job: its output, a stop, the disk watchdog; ends everything it started. */
  async #follow(
    launched: { child: Child; pid: number },
    spec: JobSpec,
    io: JobIo,
    cgroup: Cgroup | undefined,
    dirs: string[],
    uid: number,
  ): Promise<SandboxExit> {
    const { child, pid } = launched;
    let bwrapError: string | undefined;
    const reading = Promise.all([
      readLines(child.stdout!, (l) => io.onLine(l, 'stdout'), io.skip),
      readLines(
        child.stderr!,
        (l) => {
          // bwrap's own failure (a bind it could not make) comes before the program's first line.
          if (bwrapError === undefined && l.startsWith('bwrap: ')) bwrapError = l;
          return io.onLine(l, 'stderr');
        },
        io.skip,
      ),
    ]).catch(() => {});
    let hardKill: NodeJS.Timeout | undefined;
    const onAbort = () => {
      // SIGTERM to every process of the program (the sandbox's PID 1 ignores it), then SIGKILL.
      for (const p of cgroup?.pids() ?? descendants(pid)) if (p !== pid) signalQuietly(p, 'SIGTERM');
      hardKill = setTimeout(() => killTree(child), io.graceMs ?? 2000);
    };
    if (io.signal?.aborted) onAbort();
    else io.signal?.addEventListener('abort', onAbort, { once: true });
    let diskExceeded: string | undefined;
    const limit = spec.limits.diskBytes;
    let checking = false;
    // Over the volume in two looks in a row (2 s apart): a file written up to its size limit
    // (RLIMIT_FSIZE is the volume) and removed at once, as a program probing for space does, is
    // not a full volume, and one look may fall in the moment it existed.
    let overBefore = false;
    const watchdog =
      limit === undefined
        ? undefined
        : setInterval(async () => {
            if (checking || diskExceeded) return;
            checking = true;
            const u = await diskUsage(dirs).catch(() => undefined);
            checking = false;
            const over = u !== undefined && (u.bytes > limit || u.entries >= 1_000_000);
            if (u && over && overBefore) {
              diskExceeded = `it wrote ${Math.round(u.bytes / 2 ** 20)} MiB in ${u.entries} files under /opt/ml and /tmp, more than its volume holds (${Math.round(limit / 2 ** 20)} MiB)`;
              killTree(child);
            }
            overBefore = over;
          }, 2000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once('exit', (c, s) => r([c, s])),
    );
    // The group may have survivors (a daemon the program started): they go with it.
    killTree(child);
    await reading;
    if (watchdog) clearInterval(watchdog);
    if (hardKill) clearTimeout(hardKill);
    io.signal?.removeEventListener('abort', onAbort);
    const oomKilled = cgroup?.oomKilled() ?? false;
    if (bwrapError && code !== 0 && !oomKilled)
      return {
        code,
        signal,
        sandboxed: true,
        oomKilled,
        startError: `the sandbox could not be set up: ${explainBwrap(bwrapError, uid)}`,
      };
    return { code, signal, sandboxed: true, oomKilled, diskExceeded };
  }

  /** Starts a long-lived server in a sandbox; its port is published on 127.0.0.1. Rejects when it cannot start. */
  async startServer(spec: ServerSpec, hostPort: number): Promise<SandboxedServer> {
    if (!this.probe.works) {
      if (this.options.required) throw new LaunchError(this.refusal('none')!);
      return startUnsandboxedServer(spec, hostPort);
    }
    const refused = this.refusal(spec.network, true);
    if (refused) throw new LaunchError(refused);
    const uid = this.#uids.acquire();
    const { cgroup, rlimits } = this.#confine(spec.limits, false);
    let net: Attached | undefined;
    const network = this.#networkFor(spec.network, !spec.channel);
    const published = network !== 'host' && !spec.channel;
    const port = published ? CONTAINER_PORT : hostPort;
    const cleanup = async () => {
      net?.stop();
      await cgroup?.destroy();
      this.#uids.release(uid);
    };
    let launched: Awaited<ReturnType<typeof launch>>;
    try {
      await makeReadable(spec.modelDir);
      if (spec.codeDir) await makeReadable(spec.codeDir);
      const { binds, staged } = await this.#staged(
        [
          { dir: spec.modelDir, at: `${CONTAINER_ML_ROOT}/model`, writable: false },
          ...(spec.codeDir ? [{ dir: spec.codeDir, at: `${CONTAINER_ML_ROOT}/code`, writable: false }] : []),
          ...this.#codeBinds(spec.code),
        ],
        uid,
      );
      launched = await launch({
        bwrap: this.probe.bwrap!,
        prlimit: this.probe.prlimit,
        layout: this.layout,
        uid,
        gid: uid,
        wrap: this.#wrap(uid, staged, undefined),
        argv: spec.argv,
        cwd: this.#cwd(spec.cwd, '/', uid),
        env: {
          PATH: SANDBOX_PATH,
          HOME: '/tmp',
          LANG: process.env.LANG ?? 'C.UTF-8',
          ...spec.env({
            modelDir: `${CONTAINER_ML_ROOT}/model`,
            port,
            ...(spec.codeDir ? { codeDir: `${CONTAINER_ML_ROOT}/code` } : {}),
          }),
        },
        binds,
        hidden: this.#hidden,
        tmpBytes: spec.limits.tmpBytes,
        shmBytes: spec.limits.shmBytes,
        network,
        seccomp: seccompFilter(),
        rlimits,
        marker: this.#marker,
        stdin: spec.channel,
        prepare: async (pid) => {
          await joinQuietly(cgroup, pid);
          net?.stop(); // an earlier attempt's (launch builds a new sandbox after a transient failure)
          net = undefined;
          if (published || (spec.channel && network === 'outbound'))
            net = await attachNetwork(this.probe, {
              pid,
              uid,
              gid: uid,
              asRoot: uid !== process.getuid?.(),
              outbound: network === 'outbound',
              ...(published ? { publish: { hostPort, port } } : {}),
              marker: this.#marker,
            });
        },
      });
    } catch (e) {
      await cleanup();
      throw e instanceof LaunchError
        ? new LaunchError(explainBwrap(e.message, uid))
        : new LaunchError(`the sandbox could not be set up: ${(e as Error).message}`);
    }
    const { child, pid } = launched;
    if (!spec.channel) child.stdout!.resume();
    child.stderr!.setEncoding('utf8');
    child.stderr!.resume();
    let hard: NodeJS.Timeout | undefined;
    const exited = new Promise<SandboxExit>((resolveExit) => {
      child.once('exit', async (code, signal) => {
        killTree(child);
        if (hard) clearTimeout(hard);
        // Said as soon as its last words are read (a request in flight is waiting to learn why,
        // and the message quotes them); the group is removed after.
        await drained(child.stderr);
        resolveExit({ code, signal, sandboxed: true, oomKilled: cgroup?.oomKilled() ?? false });
        void cleanup();
      });
    });
    return {
      host: '127.0.0.1',
      port: hostPort,
      memoryBounded: cgroup !== undefined,
      pid: cgroup ? undefined : pid,
      sandboxed: true,
      onStderr: (l) => child.stderr!.on('data', l),
      ...(spec.channel ? { channel: { input: child.stdin!, output: child.stdout! } } : {}),
      stop(graceful) {
        if (!graceful) return killTree(child);
        for (const p of cgroup?.pids() ?? descendants(pid)) if (p !== pid) signalQuietly(p, 'SIGTERM');
        hard = setTimeout(() => killTree(child), 2000);
        hard.unref();
      },
      exited,
    };
  }
}

/** bwrap's complaint, with what to do when it is about permissions (the sandbox's uid may not enter a directory). */
export function explainBwrap(message: string, uid: number): string {
  if (!/Permission denied/.test(message)) return message;
  return `${message} (the sandbox runs as uid ${uid}, which must be able to enter the directories it is given: the containers file entry's cwd and command directories need o+rx on them and o+x on their parents)`;
}

/** Puts the sandbox in its cgroup; a sandbox that already died (bwrap refused a bind) says why on exit. */
function signalQuietly(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {}
}

/** A process's descendants (Linux /proc), for a stop without a cgroup to list them. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    out.push(p);
    try {
      const kids = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      if (kids) for (const c of kids.split(/\s+/)) stack.push(Number(c));
    } catch {}
  }
  return out;
}
