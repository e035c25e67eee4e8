// Resource limits through control groups, where the host lets Slipway create one: cgroup v2 (one
// tree with the memory, pids and cpu controllers) or the v1 hierarchies (memory, pids, and cpu
// where writable). Each sandbox gets a group of its own under Slipway's own cgroup, named after
// the data directory so that a restarted server finds (and empties) what its predecessor left.
// https://docs.kernel.org/admin-guide/cgroup-v2.html https://docs.kernel.org/admin-guide/cgroup-v1/memory.html
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Limits } from './limits.js';

/** A sandbox's group: join its first process, read whether the OOM killer struck, empty and remove it. */
export interface Cgroup {
  readonly kind: 'cgroup v2' | 'cgroup v1';
  /**
   * Moves a process (and the children it forks after) into the group, without holding the event
   * loop: a move into a memory cgroup takes the kernel 5-8 ms here (the write to cgroup.procs
   * waits for it).
   */
  join(pid: number): Promise<void>;
  /** Processes in the group now. */
  pids(): number[];
  /** Whether the kernel's OOM killer ended a process of the group. */
  oomKilled(): boolean;
  /** Peak memory use, when the kernel reports it. */
  peakBytes(): number | undefined;
  /** SIGKILLs everything in the group, then removes it (retrying while the kernel still counts tasks). */
  destroy(): Promise<void>;
}

interface Hierarchy {
  /** Controller → the directory under which this server's sandboxes are created. */
  readonly dirs: Readonly<Record<string, string>>;
}

const write = (path: string, value: string | number) => writeFileSync(path, String(value));

function readNumber(path: string, key?: string): number | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    if (key === undefined) return Number(text.trim());
    const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function pidsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** `/proc/self/cgroup` → controller (or '' for v2) → this process's path in that hierarchy. */
function ownPaths(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '') out.set('', m[2]!);
    for (const c of m[1]!.split(',')) if (c) out.set(c, m[2]!);
  }
  return out;
}

/** cgroup mounts from /proc/self/mountinfo: [mount point, fstype, super options]. */
function cgroupMounts(): Array<{ point: string; type: string; options: string[] }> {
  const out: Array<{ point: string; type: string; options: string[] }> = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const [type, , opts] = right.split(' ');
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    out.push({ point: left.split(' ')[4]!, type, options: (opts ?? '').split(',') });
  }
  return out;
}

function ensureDir(path: string): void {
  if (!existsSync(path)) mkdirSync(path);
}

function tryV2(tag: string): Hierarchy | string {
  const mount = cgroupMounts().find((m) => m.type === 'cgroup2');
  if (!mount) return 'no cgroup2 mount';
  const own = ownPaths().get('') ?? '/';
  const base = join(mount.point, own);
  let controllers: string[];
  try {
    controllers = readFileSync(join(base, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch {
    return 'cgroup2 is not readable';
  }
  if (!controllers.includes('memory') || !controllers.includes('pids'))
    return 'cgroup2 has no memory and pids controllers here (they are bound to v1 hierarchies)';
  // A non-root v2 group may not hold processes and delegate controllers at once: only the root
  // group, or a tree delegated to Slipway, can be used without moving the server itself.
  if (own !== '/' && pidsIn(base).length > 0) return `cgroup2 group ${own} holds processes; delegate a subtree`;
  try {
    const wanted = ['memory', 'pids', ...(controllers.includes('cpu') ? ['cpu'] : [])];
    write(join(base, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    const top = join(base, 'slipway');
    ensureDir(top);
    write(join(top, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    const mine = join(top, tag);
    ensureDir(mine);
    write(join(mine, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
    return { dirs: { v2: mine } };
  } catch (e) {
    return `cannot create a cgroup2 group: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
}

function tryV1(tag: string): Hierarchy | string {
  const own = ownPaths();
  const dirs: Record<string, string> = {};
  for (const controller of ['memory', 'pids', 'cpu']) {
    const mount = cgroupMounts().find((m) => m.type === 'cgroup' && m.options.includes(controller));
    if (!mount) continue;
    try {
      const top = join(mount.point, own.get(controller) ?? '/', 'slipway');
      ensureDir(top);
      const mine = join(top, tag);
      ensureDir(mine);
      dirs[controller] = mine;
    } catch {
      // not writable: the controller is left out (cpu), or v1 is unusable (memory, pids)
    }
  }
  if (!dirs.memory || !dirs.pids) return 'the cgroup v1 memory and pids hierarchies are not writable';
  return { dirs };
}

let counter = 0;

class V2Group implements Cgroup {
  readonly kind = 'cgroup v2';
  constructor(readonly dir: string) {}
  async join(pid: number) {
    await writeFile(join(this.dir, 'cgroup.procs'), String(pid));
  }
  pids() {
    return pidsIn(this.dir);
  }
  oomKilled() {
    return (readNumber(join(this.dir, 'memory.events'), 'oom_kill') ?? 0) > 0;
  }
  peakBytes() {
    return readNumber(join(this.dir, 'memory.peak'));
  }
  async destroy() {
    try {
      write(join(this.dir, 'cgroup.kill'), 1);
    } catch {
      for (const p of this.pids()) killQuietly(p);
    }
    await removeWhenEmpty([this.dir], () => this.pids());
  }
}

class V1Group implements Cgroup {
  readonly kind = 'cgroup v1';
  constructor(readonly dirs: Readonly<Record<string, string>>) {}
  async join(pid: number) {
    await Promise.all(Object.values(this.dirs).map((d) => writeFile(join(d, 'cgroup.procs'), String(pid))));
  }
  pids() {
    return pidsIn(this.dirs.pids!);
  }
  oomKilled() {
    return (readNumber(join(this.dirs.memory!, 'memory.oom_control'), 'oom_kill') ?? 0) > 0;
  }
  peakBytes() {
    return readNumber(join(this.dirs.memory!, 'memory.max_usage_in_bytes'));
  }
  async destroy() {
    await removeWhenEmpty(Object.values(this.dirs), () => {
      const pids = this.pids();
      for (const p of pids) killQuietly(p);
      return pids;
    });
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

async function removeWhenEmpty(dirs: readonly string[], left: () => number[]): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (left().length === 0) {
      let all = true;
      for (const d of dirs) {
        try {
          rmdirSync(d);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') all = false;
        }
      }
      if (all) return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Creates per-sandbox groups under `<own cgroup>/slipway/<tag>/`, where `tag` names the data
 * directory. `available` says why not when neither version can be used (limits then fall back to
 * rlimits).
 */
export class Cgroups {
  private constructor(
    private readonly h: Hierarchy | undefined,
    readonly unavailable: string | undefined,
  ) {}

  static detect(dataDir: string): Cgroups {
    if (process.platform !== 'linux' || process.env.SLIPWAY_SANDBOX_CGROUPS === 'none')
      return new Cgroups(undefined, 'cgroups are turned off (SLIPWAY_SANDBOX_CGROUPS=none)');
    const tag = createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
    let v2: Hierarchy | string;
    let v1: Hierarchy | string;
    try {
      v2 = tryV2(tag);
      if (typeof v2 !== 'string') return new Cgroups(v2, undefined);
      v1 = tryV1(tag);
      if (typeof v1 !== 'string') return new Cgroups(v1, undefined);
    } catch (e) {
      return new Cgroups(undefined, (e as Error).message);
    }
    return new Cgroups(undefined, `${v2}; ${v1}`);
  }

  get kind(): 'cgroup v2' | 'cgroup v1' | undefined {
    if (!this.h) return undefined;
    return this.h.dirs.v2 ? 'cgroup v2' : 'cgroup v1';
  }

  /** A new group with `limits` written, or undefined when cgroups cannot be used. */
  create(limits: Limits): Cgroup | undefined {
    if (!this.h) return undefined;
    const name = `s${process.pid}-${(++counter).toString(36)}`;
    const cpuQuota = Math.max(1000, Math.round(limits.cpus * 100_000));
    if (this.h.dirs.v2) {
      const dir = join(this.h.dirs.v2, name);
      mkdirSync(dir);
      const g = new V2Group(dir);
      try {
        write(join(dir, 'memory.max'), limits.memoryBytes);
        try {
          write(join(dir, 'memory.swap.max'), 0);
        } catch {}
        write(join(dir, 'pids.max'), limits.pids);
        try {
          write(join(dir, 'cpu.max'), `${cpuQuota} 100000`);
        } catch {}
      } catch (e) {
        rmdirSync(dir);
        throw e;
      }
      return g;
    }
    const dirs: Record<string, string> = {};
    for (const [c, base] of Object.entries(this.h.dirs)) {
      dirs[c] = join(base, name);
      mkdirSync(dirs[c]!);
    }
    try {
      write(join(dirs.memory!, 'memory.limit_in_bytes'), limits.memoryBytes);
      try {
        write(join(dirs.memory!, 'memory.memsw.limit_in_bytes'), limits.memoryBytes);
      } catch {}
      write(join(dirs.pids!, 'pids.max'), limits.pids);
      if (dirs.cpu) {
        write(join(dirs.cpu, 'cpu.cfs_period_us'), 100_000);
        write(join(dirs.cpu, 'cpu.cfs_quota_us'), cpuQuota);
      }
    } catch (e) {
      for (const d of Object.values(dirs)) rmdirSync(d);
      throw e;
    }
    return new V1Group(dirs);
  }

  /** Kills and removes every group a previous run under the same data directory left; returns how many. */
  async reap(): Promise<number> {
    if (!this.h) return 0;
    const byName = new Map<string, string[]>();
    for (const base of Object.values(this.h.dirs)) {
      let names: string[] = [];
      try {
        names = readdirSync(base, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
      } catch {}
      for (const n of names) byName.set(n, [...(byName.get(n) ?? []), join(base, n)]);
    }
    // This server's own groups (same pid prefix) are alive, not strays.
    const mine = `s${process.pid}-`;
    let reaped = 0;
    for (const [name, dirs] of byName) {
      if (name.startsWith(mine)) continue;
      const procs = () => dirs.flatMap((d) => pidsIn(d));
      await removeWhenEmpty(dirs, () => {
        const pids = procs();
        for (const p of pids) killQuietly(p);
        return pids;
      });
      reaped++;
    }
    return reaped;
  }
}

/**
 * Moves a sandbox's first process into its group, without holding the event loop (the kernel takes
 * 5-8 ms to move a process into a memory cgroup here); a process already gone is not an error.
 */
export async function joinQuietly(cgroup: Cgroup | undefined, pid: number): Promise<void> {
  try {
    await cgroup?.join(pid);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}
