// A sandbox's network: its own namespace (bwrap --unshare-net) with loopback only, or, for
// outbound access, Debian's passt in pasta mode attached to that namespace: a user-mode TCP/UDP
// stack that opens connections from the host's side on the job's behalf, with
//   - the host's loopback out of reach: no gateway mapping (--no-map-gw), no ports forwarded
//     from the namespace to the host (-T none -U none);
//   - private, link-local, shared and reserved ranges and every address of the host itself made
//     unreachable by routes inside the namespace (the job holds no capability to change them);
//   - IPv4 only (-4), DNS through pasta's forwarder at SANDBOX_DNS to the host's resolver.
// A model server's port is published on the host's 127.0.0.1 by pasta's port forwarding (-t),
// spliced between the two loopbacks. https://passt.top/passt/about/
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { SANDBOX_DNS } from './mount-plan.js';
import { spawnChild } from './spawner.js';

/** The namespace's side of pasta's network (a documentation range, TEST-NET-2). */
export const SANDBOX_ADDRESS = '198.51.100.100';
export const SANDBOX_GATEWAY = '198.51.100.2';

/** IPv4 ranges a job never reaches: private, loopback, link-local (cloud metadata), CGNAT, reserved. */
export const UNREACHABLE_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

/** The host's own IPv4 addresses (a job must not reach a server listening on 0.0.0.0). */
export function hostAddresses(): string[] {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) out.add(a.address);
  }
  return [...out];
}

/**
 * `ip -batch` input: the unreachable routes of a sandbox with outbound access. The gateway itself
 * is one of them (with --no-map-gw its address would be sent on as a real destination); the default
 * route through it, added by pasta before these, stays.
 */
export function routeBatch(extra: readonly string[] = hostAddresses()): string {
  const lines = UNREACHABLE_V4.map((r) => `route add unreachable ${r}`);
  for (const a of [SANDBOX_GATEWAY, ...extra]) lines.push(`route add unreachable ${a}/32`);
  return `${lines.join('\n')}\n`;
}

export interface Tools {
  readonly pasta?: string;
  readonly nsenter?: string;
  readonly ip?: string;
  /** nsenter keeps capabilities across its exec (util-linux 2.39's --keep-caps). */
  readonly nsenterKeepsCaps?: boolean;
}

/**
 * How the routes are written into a sandbox's namespace: as root, nsenter joins the network
 * namespace alone; otherwise it joins the user namespace too, and `ip` keeps the capabilities that
 * gives only with util-linux 2.39's --keep-caps. Undefined when neither works here.
 */
export function routeWriter(
  tools: Tools,
  root: boolean,
): ((pid: number) => { args: string[]; asRoot: boolean }) | undefined {
  if (!tools.nsenter || !tools.ip) return undefined;
  if (root) return (pid) => ({ args: ['-t', String(pid), '-n', tools.ip!, '-batch', '-'], asRoot: true });
  if (!tools.nsenterKeepsCaps) return undefined;
  return (pid) => ({
    args: ['-t', String(pid), '-U', '-n', '--preserve-credentials', '--keep-caps', tools.ip!, '-batch', '-'],
    asRoot: false,
  });
}

export interface Attached {
  /** Ends the helper (the namespace's last user is gone, or the sandbox is being torn down). */
  stop(): void;
}

interface AttachOptions {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /**
   * Slipway is root: the routes are written by nsenter joining the network namespace as root.
   * Otherwise nsenter joins the sandbox's user namespace first (see routeWriter). pasta always
   * runs as the sandbox's uid, which owns the namespaces it joins.
   */
  readonly asRoot: boolean;
  /** Outbound access (pasta configures the interface; the routes fence it). */
  readonly outbound: boolean;
  /** A port inside the namespace published on the host's 127.0.0.1. */
  readonly publish?: { readonly hostPort: number; readonly port: number };
  /** Environment of the helpers: marks them as this server's (reapStraySandboxes). */
  readonly marker: Record<string, string>;
  /** Bring the loopback interface up too (a namespace bwrap did not make). */
  readonly loopback?: boolean;
  /** Nice value of pasta and the route writer (a network made ahead of time yields the CPU). */
  readonly nice?: number;
}

async function run(file: string, args: string[], o: AttachOptions, asRoot: boolean, input?: string): Promise<void> {
  const child = await spawnChild(file, args, {
    ...(asRoot ? {} : { uid: o.uid, gid: o.gid }),
    nice: o.nice,
    env: o.marker,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      if (err.length < 2000) err += s;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}: ${err.trim().slice(0, 500)}`)),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Whether the namespace of `pid` has a default route yet (pasta configured it). */
function hasDefaultRoute(pid: number): boolean {
  try {
    // Iface Destination Gateway Flags RefCnt Use Metric Mask ...: 0.0.0.0/0 through an interface.
    return readFileSync(`/proc/${pid}/net/route`, 'utf8')
      .split('\n')
      .some((l) => {
        const c = l.split(/\s+/);
        return c[0] !== '*' && c[1] === '00000000' && c[7] === '00000000';
      });
  } catch {
    return false;
  }
}

/**
 * Attaches pasta to the network namespace of `pid` (a sandbox held before its program starts), as
 * the sandbox's own uid, and fences it with routes. Resolves once the network is usable.
 */
export async function attachNetwork(tools: Tools, o: AttachOptions): Promise<Attached> {
  const writer = routeWriter(tools, o.asRoot);
  if (!tools.pasta || (o.outbound && !writer))
    throw new Error('pasta, nsenter and ip are needed for a sandbox network');
  const args = ['-f', '-q', '-4', '--no-map-gw', '-u', 'none', '-T', 'none', '-U', 'none'];
  args.push('-t', o.publish ? `127.0.0.1/${o.publish.hostPort}:${o.publish.port}` : 'none');
  if (o.outbound) {
    args.push('--config-net', '-a', SANDBOX_ADDRESS, '-n', '24', '-g', SANDBOX_GATEWAY, '--dns-forward', SANDBOX_DNS);
    args.push('--no-dhcp', '--no-ndp', '--no-dhcpv6', '--no-ra');
  }
  args.push(String(o.pid));
  const pasta = await spawnChild(tools.pasta, args, {
    uid: o.uid,
    gid: o.gid,
    nice: o.nice,
    env: o.marker,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  }).catch((e: Error) => {
    throw new Error(`pasta could not start: ${e.message}`);
  });
  let err = '';
  pasta.stderr!.setEncoding('utf8');
  pasta.stderr!.on('data', (s: string) => {
    if (err.length < 2000) err += s;
  });
  let exited: string | undefined;
  pasta.once('exit', (code, signal) => {
    exited = `pasta exited (${code ?? signal}): ${err
      .replace(/Failed to send \d+ bytes to syslog\n?/g, '')
      .trim()
      .slice(0, 500)}`;
  });
  const stop = () => {
    try {
      if (pasta.exitCode === null && pasta.signalCode === null) pasta.kill('SIGKILL');
    } catch {}
  };
  try {
    // Outbound: pasta configures the interface, then the routes fence it, before the program runs.
    // Published only: pasta listens at once, and connections before the server binds its port are
    // refused as they would be anyway.
    const deadline = Date.now() + 10_000;
    while (o.outbound && !hasDefaultRoute(o.pid)) {
      if (exited) throw new Error(exited);
      if (Date.now() > deadline) throw new Error('pasta did not configure the network within 10 s');
      await new Promise((r) => setTimeout(r, 1));
    }
    if (o.outbound) {
      const w = writer!(o.pid);
      await run(tools.nsenter!, w.args, o, w.asRoot, (o.loopback ? 'link set lo up\n' : '') + routeBatch());
    }
    if (exited) throw new Error(exited);
  } catch (e) {
    stop();
    throw e;
  }
  // It lives as long as its sandbox, which the caller ends: it keeps no process alive by itself.
  pasta.unref();
  (pasta.stderr as unknown as { unref?: () => void }).unref?.();
  return { stop };
}
