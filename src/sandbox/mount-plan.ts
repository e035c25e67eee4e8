// The sandbox's file system as bubblewrap options: an empty read-only root holding only what an
// interpreter needs (the system directories, an allow-list of /etc, a few device nodes, a /proc of
// its own), the job's directories, and read-only binds of exactly the directories the containers
// file names. Secrets under a bound directory (the data directory, the credentials file) are
// covered over. https://github.com/containers/bubblewrap (option reference: `bwrap --help`)
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';

/** Directories of the host that are never bound whole: they hold everyone's files and secrets. */
export const NEVER_BOUND = [
  '/',
  '/root',
  '/home',
  '/etc',
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/var',
  '/tmp',
  '/boot',
  '/mnt',
  '/media',
  '/srv',
  '/opt',
];

/** /etc entries a program may need: the loader, name service, TLS roots, locale and time, interpreters. */
const ETC_ALLOWED = new Set([
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'crypto-policies',
  'debian_version',
  'fonts',
  'gai.conf',
  'host.conf',
  'ImageMagick-6',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'lsb-release',
  'magic',
  'magic.mime',
  'mailcap',
  'matplotlibrc',
  'mime.types',
  'mtab',
  'networks',
  'nsswitch.conf',
  'os-release',
  'pki',
  'protocols',
  'rpc',
  'services',
  'ssl',
  'terminfo',
  'timezone',
]);
/** Interpreter configuration directories by pattern (python3, python3.11 ...). */
const ETC_PATTERNS = [/^python3(\.\d+)?$/, /^java-\d+-openjdk$/, /^R$/];

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom'];

/** A path as it is on the host: a directory or file to bind, or a symbolic link to recreate. */
export interface HostEntry {
  readonly path: string;
  readonly link?: string;
}

/** What of the host every sandbox sees, worked out once. */
export interface HostLayout {
  readonly system: readonly HostEntry[];
  /** The /etc entries of the allow-list found on this host. */
  readonly etc: readonly HostEntry[];
  /**
   * Slipway's own files: `etc/` (a copy of the allow-listed /etc, world-readable parts only, with
   * hosts and hostname: one bind instead of dozens), passwd and group per uid, resolv.conf per network.
   */
  readonly generated: string;
}

/** Copies `src` to `dst`: symbolic links as links, and only what anyone may read (no ssl/private). */
function copyReadable(src: string, dst: string): void {
  const st = lstatSync(src);
  if (st.isSymbolicLink()) {
    symlinkSync(readlinkSync(src), dst);
  } else if (st.isDirectory()) {
    if ((st.mode & 0o005) !== 0o005) return;
    mkdirSync(dst, { mode: 0o755 });
    for (const n of readdirSync(src)) copyReadable(join(src, n), join(dst, n));
  } else if (st.isFile() && st.mode & 0o004) {
    copyFileSync(src, dst);
    chmodSync(dst, 0o644);
  }
}

function entry(path: string): HostEntry | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return { path, link: readlinkSync(path) };
    return { path };
  } catch {
    return undefined;
  }
}

/** Reads the host's layout and writes the generated /etc files under `generated`. */
export function probeLayout(generated: string): HostLayout {
  const system = SYSTEM.map(entry).filter((e): e is HostEntry => e !== undefined);
  let names: string[] = [];
  try {
    names = readdirSync('/etc');
  } catch {}
  const etc = names
    .filter((n) => ETC_ALLOWED.has(n) || ETC_PATTERNS.some((p) => p.test(n)))
    .sort()
    .map((n) => entry(join('/etc', n)))
    .filter((e): e is HostEntry => e !== undefined);
  mkdirSync(generated, { recursive: true, mode: 0o755 });
  const copy = join(generated, 'etc');
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { mode: 0o755 });
  for (const e of etc) copyReadable(e.path, join(copy, basename(e.path)));
  writeFileSync(join(copy, 'hosts'), '127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\talgo-1\n', { mode: 0o644 });
  writeFileSync(join(copy, 'hostname'), 'algo-1\n', { mode: 0o644 });
  // Where each sandbox's own passwd, group and resolv.conf are bound.
  for (const f of ['passwd', 'group', 'resolv.conf']) writeFileSync(join(copy, f), '', { mode: 0o644 });
  // The user-mode network's DNS forwarder (see network.ts); without a network, none.
  writeFileSync(join(generated, 'resolv.conf.outbound'), `nameserver ${SANDBOX_DNS}\noptions edns0\n`, { mode: 0o644 });
  writeFileSync(join(generated, 'resolv.conf.none'), '', { mode: 0o644 });
  return { system, etc, generated };
}

/** The address the sandbox's resolver asks (forwarded by the user-mode network to the host's). */
export const SANDBOX_DNS = '198.51.100.3';

/** passwd and group files naming the sandbox's uid (written once per uid). */
export function identityFiles(layout: HostLayout, uid: number, gid: number): { passwd: string; group: string } {
  const passwd = join(layout.generated, `passwd.${uid}`);
  const group = join(layout.generated, `group.${gid}`);
  if (!existsSync(passwd))
    writeFileSync(
      passwd,
      `root:x:0:0:root:/root:/usr/sbin/nologin\nsagemaker-user:x:${uid}:${gid}:SageMaker job:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
      { mode: 0o644 },
    );
  if (!existsSync(group))
    writeFileSync(group, `root:x:0:\nsagemaker-user:x:${gid}:\nnogroup:x:65534:\n`, { mode: 0o644 });
  return { passwd, group };
}

/** A directory bound into the sandbox. */
export interface Bind {
  /** The path bwrap binds from (a staged path when Slipway is root: see stage.ts). */
  readonly source: string;
  /** The directory on the host (hidden paths under it are covered over). */
  readonly host: string;
  readonly at: string;
  readonly writable: boolean;
}

export interface Plan {
  readonly layout: HostLayout;
  readonly uid: number;
  readonly gid: number;
  /** Directory binds: /opt/ml, /tmp on disk, the model, read-only code directories. */
  readonly binds: readonly Bind[];
  /** Host paths to hide wherever they fall under a bound directory. */
  readonly hidden: readonly string[];
  /** Bytes of the /tmp tmpfs, when no /tmp directory is bound. */
  readonly tmpBytes?: number;
  readonly shmBytes: number;
  /** 'outbound': a user-mode network is attached; 'none': loopback only; 'host': the host's (unsandboxed network). */
  readonly network: 'none' | 'outbound' | 'host';
  /** bwrap is started inside the network namespace it is to use (a pooled one): it keeps it. */
  readonly shareNet?: boolean;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly seccompFd?: number;
  readonly infoFd: number;
  readonly blockFd: number;
}

/** The bwrap options (everything before `--`), in the order bubblewrap applies them. */
export function bwrapOptions(p: Plan): string[] {
  const a: string[] = ['--unshare-all', '--unshare-user'];
  if (p.network === 'host' || p.shareNet) a.push('--share-net');
  a.push('--hostname', 'algo-1', '--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  for (const s of p.layout.system) {
    if (s.link !== undefined) a.push('--symlink', s.link, s.path);
    else a.push('--ro-bind', s.path, s.path);
  }
  const ids = identityFiles(p.layout, p.uid, p.gid);
  const gen = (name: string) => join(p.layout.generated, name);
  a.push('--ro-bind', gen('etc'), '/etc');
  a.push('--ro-bind', ids.passwd, '/etc/passwd', '--ro-bind', ids.group, '/etc/group');
  if (p.network === 'host') {
    if (existsSync('/etc/resolv.conf')) a.push('--ro-bind', '/etc/resolv.conf', '/etc/resolv.conf');
  } else a.push('--ro-bind', gen(`resolv.conf.${p.network}`), '/etc/resolv.conf');
  // /dev without devpts (`--dev` would make bwrap nest a second user namespace, which the
  // network helper then cannot enter): the device nodes a program opens, and the fd links.
  a.push('--dir', '/dev');
  for (const d of DEVICES) a.push('--dev-bind', `/dev/${d}`, `/dev/${d}`);
  a.push('--symlink', '/proc/self/fd', '/dev/fd');
  a.push('--symlink', '/proc/self/fd/0', '/dev/stdin', '--symlink', '/proc/self/fd/1', '/dev/stdout');
  a.push('--symlink', '/proc/self/fd/2', '/dev/stderr');
  a.push('--size', String(p.shmBytes), '--tmpfs', '/dev/shm');
  a.push('--proc', '/proc');
  const tmpBind = p.binds.find((b) => b.at === '/tmp');
  if (!tmpBind) a.push('--size', String(p.tmpBytes ?? 64 * 1024 * 1024), '--tmpfs', '/tmp');
  a.push('--symlink', '../tmp', '/var/tmp');
  for (const b of p.binds) {
    a.push(b.writable ? '--bind' : '--ro-bind', b.source, b.at);
    for (const h of p.hidden) {
      // Covered where the sandbox's uid could reach it; beyond a directory it may not enter,
      // it is out of reach anyway (and bwrap, running as that uid, could not cover it).
      if (!isUnder(h, b.host) || !existsSync(h) || !reachable(b.host, h, p.uid, p.gid)) continue;
      const inside = join(b.at, relative(b.host, h));
      if (statSync(h).isDirectory()) a.push('--tmpfs', inside, '--remount-ro', inside);
      else a.push('--ro-bind', '/dev/null', inside);
    }
  }
  a.push('--remount-ro', '/');
  a.push('--chdir', p.cwd, '--clearenv');
  for (const [k, v] of Object.entries(p.env)) a.push('--setenv', k, v);
  if (p.seccompFd !== undefined) a.push('--seccomp', String(p.seccompFd));
  a.push('--info-fd', String(p.infoFd), '--block-fd', String(p.blockFd));
  return a;
}

/** Whether `uid` (with only `gid`) may search every directory from `root` down to `path`'s parent. */
export function reachable(root: string, path: string, uid: number, gid: number): boolean {
  const parts = relative(root, path).split(sep).slice(0, -1);
  let dir = root;
  for (const part of ['', ...parts]) {
    dir = part ? join(dir, part) : dir;
    try {
      const st = statSync(dir);
      const bits = st.uid === uid ? (st.mode >> 6) & 7 : st.gid === gid ? (st.mode >> 3) & 7 : st.mode & 7;
      if ((bits & 1) === 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Whether `path` is `dir` or inside it. */
export function isUnder(path: string, dir: string): boolean {
  const p = resolve(path);
  const d = resolve(dir);
  return p === d || p.startsWith(d.endsWith(sep) ? d : d + sep);
}

/**
 * Why a directory may not be bound into a sandbox, or undefined when it may: it must be absolute
 * and must not be (or contain) one of NEVER_BOUND's whole trees.
 */
export function refusedBind(dir: string): string | undefined {
  if (!dir.startsWith('/')) return `${dir} is not an absolute path`;
  const d = resolve(dir);
  for (const n of NEVER_BOUND) if (d === n) return `${d} would show every file under it`;
  return undefined;
}

/** The bwrap options in `--args FD` form: NUL-terminated. */
export const argsData = (options: readonly string[]): Buffer => Buffer.from(options.map((o) => `${o}\0`).join(''));
