// Outbound networks made ahead of time, for jobs when Slipway is root: pasta takes tens of
// milliseconds to configure an interface, which a job would otherwise wait for before its first
// line. Each network is a network namespace (in a user namespace of the pool's own uid, held by a
// sleeping process) with pasta attached and the fencing routes written (network.ts); a job's bwrap
// starts inside it (`nsenter --net`, then `--share-net`) and it is thrown away with the job. The
// job's own user namespace is not the one that owns the network, so it cannot change the routes.
import { readlinkSync } from 'node:fs';
import { attachNetwork, type Attached, type Tools } from './network.js';
import { spawnChild } from './spawner.js';

export interface PooledNetwork {
  /** The namespace, for `nsenter --net=`. */
  readonly path: string;
  /** Ends its holder and its pasta. */
  release(): void;
}

const ownNet = (() => {
  try {
    return readlinkSync('/proc/self/ns/net');
  } catch {
    return '';
  }
})();

/**
 * The nice value a network is made at: the jobs it is for run at nice 19 (run-container.ts), and
 * making one (pasta configuring its interface) overlaps the start of the job after the one that
 * took the last: at nice 0 it took that job's CPU (measured: the script's first line 10–25 ms
 * later, jobs back to back).
 */
const POOL_NICE = 19;

async function make(
  tools: Tools & { unshare: string },
  uid: number,
  marker: Record<string, string>,
): Promise<PooledNetwork> {
  const holder = await spawnChild(tools.unshare, ['--user', '--map-root-user', '--net', '--', 'sleep', 'infinity'], {
    uid,
    gid: uid,
    env: marker,
    stdio: ['ignore', 'ignore', 'ignore'],
    detached: true,
    nice: POOL_NICE,
  });
  holder.unref();
  const pid = holder.pid!;
  const kill = () => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  };
  let net: Attached | undefined;
  try {
    // Its network namespace exists once `unshare` has made it (before it execs sleep).
    const deadline = Date.now() + 5000;
    for (;;) {
      let ns = '';
      try {
        ns = readlinkSync(`/proc/${pid}/ns/net`);
      } catch {}
      if (ns && ns !== ownNet) break;
      if (holder.exitCode !== null || Date.now() > deadline) throw new Error('the network namespace was not made');
      await new Promise((r) => setTimeout(r, 1));
    }
    net = await attachNetwork(tools, {
      pid,
      uid,
      gid: uid,
      asRoot: true,
      outbound: true,
      marker,
      loopback: true,
      nice: POOL_NICE,
    });
  } catch (e) {
    kill();
    throw e;
  }
  return {
    path: `/proc/${pid}/ns/net`,
    release() {
      net?.stop();
      kill();
    },
  };
}

/** Every pooled network not yet released, ended if the process exits without closing its pools. */
const live = new Set<PooledNetwork>();
let exitHook = false;

function tracked(n: PooledNetwork): PooledNetwork {
  live.add(n);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const x of live) x.release();
    });
  }
  return {
    path: n.path,
    release() {
      live.delete(n);
      n.release();
    },
  };
}

/** Keeps `size` networks ready; `take` hands one over and starts making its replacement. */
export class NetworkPool {
  readonly #ready: Promise<PooledNetwork | undefined>[] = [];
  #closed = false;

  constructor(
    private readonly tools: Tools & { unshare: string },
    /** The uid the networks' user namespaces and pasta run as (not any sandbox's). */
    private readonly uid: number,
    private readonly marker: Record<string, string>,
    size = 1,
  ) {
    for (let i = 0; i < size; i++) this.#refill();
  }

  #refill(): void {
    if (this.#closed) return;
    // A failure is not kept: the job that takes it makes its network itself, and says why.
    this.#ready.push(
      make(this.tools, this.uid, this.marker)
        .then(tracked)
        .catch(() => undefined),
    );
  }

  /** A ready network (or a new one), the caller's to release. */
  async take(): Promise<PooledNetwork> {
    const next = this.#ready.shift();
    // Its replacement is made a moment later, not on the CPU the starting job needs.
    setTimeout(() => this.#refill(), 250).unref();
    const got = next ? await next : undefined;
    return got ?? tracked(await make(this.tools, this.uid, this.marker));
  }

  close(): void {
    this.#closed = true;
    for (const p of this.#ready.splice(0)) void p.then((n) => n?.release());
  }
}
