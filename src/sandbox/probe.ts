// What this host offers the sandbox, found once at start: the programs it needs (bwrap, pasta,
// nsenter, ip, prlimit) and whether a real sandbox starts here (user namespaces, the seccomp
// filter), with each missing piece named the way an operator can act on it.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type LaunchOptions, launch } from './launch.js';
import type { HostLayout } from './mount-plan.js';
import { routeWriter } from './network.js';
import { seccompFilter, seccompSupported } from './seccomp.js';
import type { Stage } from './stage.js';

export interface Probe {
  readonly bwrap?: string;
  readonly pasta?: string;
  readonly nsenter?: string;
  readonly ip?: string;
  readonly prlimit?: string;
  readonly nsenterKeepsCaps?: boolean;
  /** The staging namespace bwrap runs in when Slipway is root (stage.ts). */
  readonly stage?: Stage;
  /** A sandbox (user namespace, no capabilities, seccomp, own namespaces) works here. */
  readonly works: boolean;
  /** What is missing for a sandbox at all (empty when `works`). */
  readonly missing: readonly string[];
  /** What is missing for a sandbox's outbound or published network (empty when available). */
  readonly networkMissing: readonly string[];
}

const SEARCH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** An executable by name: on PATH, then in the system directories. */
export function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SEARCH];
  for (const d of dirs) {
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}

/** Translates bwrap's complaint into what the operator must change. */
function explain(message: string): string {
  if (/namespace|uid map|setting up uid|Operation not permitted|No permissions/i.test(message))
    return `user namespaces cannot be created here (kernel.unprivileged_userns_clone / user.max_user_namespaces, or an AppArmor or container policy): ${message}`;
  if (/seccomp/i.test(message)) return `the seccomp filter cannot be loaded: ${message}`;
  return `bwrap cannot start a sandbox: ${message}`;
}

/** Runs `true` in a sandbox as it would run a job (network none), as `uid`. */
async function tryOne(
  bwrap: string,
  layout: HostLayout,
  uid: number,
  gid: number,
  wrap: LaunchOptions['wrap'],
): Promise<string | undefined> {
  try {
    const { child } = await launch({
      bwrap,
      layout,
      uid,
      gid,
      wrap,
      argv: ['true'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
      binds: [],
      hidden: [],
      shmBytes: 1 << 20,
      tmpBytes: 1 << 20,
      network: 'none',
      seccomp: seccompFilter(),
      marker: {},
      prepare: async () => {},
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    child.stdout!.resume();
    child.stderr!.resume();
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    return code === 0 ? undefined : explain(err.trim() || `exit code ${code}`);
  } catch (e) {
    return explain((e as Error).message);
  }
}

/**
 * Probes the host, running a real sandbox as `uid` (through `stage`'s namespace when Slipway is
 * root and `uid` another: see stage.ts).
 */
export async function probeHost(
  layout: HostLayout,
  uid: number,
  gid: number,
  stage?: () => Promise<Stage>,
): Promise<Probe> {
  if (process.env.SLIPWAY_SANDBOX === 'none')
    return { works: false, missing: ['the sandbox is turned off (SLIPWAY_SANDBOX=none)'], networkMissing: [] };
  const bwrap = which('bwrap');
  const pasta = which('pasta');
  const nsenter = which('nsenter');
  const ip = which('ip');
  const prlimit = which('prlimit');
  const missing: string[] = [];
  if (process.platform !== 'linux') missing.push('the sandbox needs Linux');
  if (!seccompSupported()) missing.push(`the seccomp filter is written for x86_64 Linux (this is ${process.arch})`);
  if (!bwrap) missing.push('bwrap is not installed (Debian package bubblewrap)');
  let staged: Stage | undefined;
  if (missing.length === 0 && stage) {
    try {
      staged = await stage();
    } catch (e) {
      missing.push(`the staging mount namespace cannot be made: ${(e as Error).message}`);
    }
  }
  if (missing.length === 0 && bwrap) {
    const why = await tryOne(bwrap, layout, uid, gid, staged?.wrap(uid, gid));
    if (why) missing.push(why);
  }
  const networkMissing: string[] = [];
  if (!pasta) networkMissing.push('pasta is not installed (Debian package passt)');
  if (!nsenter) networkMissing.push('nsenter is not installed (Debian package util-linux)');
  if (!ip) networkMissing.push('ip is not installed (Debian package iproute2)');
  const nsenterKeepsCaps = nsenter ? await helpMentions(nsenter, '--keep-caps') : false;
  if (nsenter && ip && !routeWriter({ nsenter, ip, nsenterKeepsCaps }, uid !== process.getuid?.()))
    networkMissing.push(
      'fencing a sandbox network off the host needs Slipway to run as root, or nsenter --keep-caps (util-linux 2.39 or later)',
    );
  return {
    bwrap,
    pasta,
    nsenter,
    ip,
    prlimit,
    nsenterKeepsCaps,
    stage: staged,
    works: missing.length === 0,
    missing,
    networkMissing,
  };
}

/** Whether `file --help` mentions `option`. */
function helpMentions(file: string, option: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = spawn(file, ['--help'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    c.once('error', () => resolve(false));
    c.once('close', () => resolve(out.includes(option)));
  });
}
