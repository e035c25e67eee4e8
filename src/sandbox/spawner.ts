// The processes a sandbox needs (bwrap and the nsenter/prlimit that exec it, pasta, `ip`, the
// pooled networks' holders) are forked by a small helper process (spawner-main.ts), not by the
// server. fork() copies the calling process's page tables and write-protects its memory, so the
// server's every later write to a page it had faults once more (copy-on-write): a server of
// 110–175 MB held its event loop 10–60 ms per spawn on a 2-vCPU VM, four spawns per job start,
// while a process of ~40 MB forks in a few. The helper is forked once, when the server starts;
// it spawns on request and hands back each pipe of the child (libuv's pipes are Unix sockets,
// passed over Node's IPC channel) and its exit. `spawnChild` falls back to spawning in this
// process when no helper runs (or it died): the same child either way.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { setPriority } from 'node:os';
import type { Readable, Writable } from 'node:stream';

/** A started child: what the sandbox's code uses of a ChildProcess, from either path. */
export interface Child extends EventEmitter {
  readonly pid: number;
  readonly stdio: readonly (Readable | Writable | null | undefined)[];
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
  /** This child no longer keeps the server's event loop alive (its pipes still do until unref'd). */
  unref(): void;
}

type StdioKind = 'pipe' | 'ignore' | 'inherit';

/** What may cross to the helper: plain values (no streams, no functions). */
export interface ChildOptions {
  readonly uid?: number;
  readonly gid?: number;
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly detached?: boolean;
  readonly stdio?: readonly StdioKind[];
  /** Nice value, set as soon as the child exists. */
  readonly nice?: number;
}

/** The helper's messages: a pipe (with its socket), the child started, it could not start, it ended. */
export type FromHelper =
  | { id: number; fd: number }
  | { id: number; pid: number }
  | { id: number; error: { message: string; code?: string } }
  | { id: number; exit: [number | null, NodeJS.Signals | null] };

export interface ToHelper {
  readonly id: number;
  readonly file: string;
  readonly args: readonly string[];
  readonly options: ChildOptions;
}

class RemoteChild extends EventEmitter implements Child {
  pid = 0;
  readonly stdio: (Socket | null)[] = [];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  #exited = false;
  #open = 0;
  #closed = false;
  refd = true;

  constructor(
    readonly id: number,
    private readonly onRefChange: () => void,
  ) {
    super();
  }

  get stdin(): Writable | null {
    return this.stdio[0] ?? null;
  }

  get stdout(): Readable | null {
    return this.stdio[1] ?? null;
  }

  get stderr(): Readable | null {
    return this.stdio[2] ?? null;
  }

  get alive(): boolean {
    return !this.#exited;
  }

  /** A pipe arrived: like a ChildProcess, 'close' waits for every one but stdin to close. */
  attach(fd: number, socket: Socket): void {
    while (this.stdio.length < fd) this.stdio.push(null);
    this.stdio[fd] = socket;
    if (fd === 0) return;
    this.#open++;
    socket.once('close', () => {
      this.#open--;
      this.#maybeClose();
    });
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exited) return;
    this.#exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.onRefChange();
    this.emit('exit', code, signal);
    this.#maybeClose();
  }

  #maybeClose(): void {
    if (this.#closed || !this.#exited || this.#open > 0) return;
    this.#closed = true;
    this.emit('close', this.exitCode, this.signalCode);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.#exited) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  unref(): void {
    this.refd = false;
    this.onRefChange();
  }
}

interface Starting {
  readonly child: RemoteChild;
  resolve(c: Child): void;
  reject(e: Error): void;
}

/** The helper process and the children it started for this one. */
export class Spawner {
  readonly #proc: ChildProcess;
  readonly #starting = new Map<number, Starting>();
  readonly #children = new Map<number, RemoteChild>();
  #next = 1;
  #dead = false;

  private constructor() {
    this.#proc = fork(new URL('./spawner-main.js', import.meta.url), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // A small heap: it holds a few children's bookkeeping, nothing else.
      execArgv: ['--max-old-space-size=32', '--max-semi-space-size=1'],
      serialization: 'json',
    });
    this.#proc.on('message', (m: FromHelper, handle?: Socket) => this.#onMessage(m, handle));
    this.#proc.once('exit', () => this.#onDeath());
    this.#proc.once('error', () => this.#onDeath());
    this.#updateRef();
  }

  /** Forks the helper (call while this process is still small). */
  static start(): Spawner {
    return new Spawner();
  }

  get alive(): boolean {
    return !this.#dead;
  }

  /** The helper's pid (tests: the children's parent). */
  get pid(): number | undefined {
    return this.#proc.pid;
  }

  spawn(file: string, args: readonly string[], options: ChildOptions): Promise<Child> {
    if (this.#dead) return spawnHere(file, args, options);
    const id = this.#next++;
    const child = new RemoteChild(id, () => this.#updateRef());
    return new Promise<Child>((resolve, reject) => {
      this.#starting.set(id, { child, resolve, reject });
      this.#updateRef();
      const msg: ToHelper = { id, file, args, options };
      this.#proc.send(msg, (err) => {
        if (!err) return;
        this.#starting.delete(id);
        this.#updateRef();
        // The helper went away before it took the request: spawn here.
        spawnHere(file, args, options).then(resolve, reject);
      });
    });
  }

  /** Ends the helper, and with it the children it started (as its death would); spawns then happen here. */
  close(): void {
    this.#dead = true;
    this.#proc.disconnect?.();
  }

  #onMessage(m: FromHelper, handle?: Socket): void {
    const starting = this.#starting.get(m.id);
    if ('fd' in m) {
      if (starting && handle) starting.child.attach(m.fd, handle);
      else handle?.destroy();
      return;
    }
    if ('pid' in m) {
      if (!starting) return;
      this.#starting.delete(m.id);
      starting.child.pid = m.pid;
      this.#children.set(m.id, starting.child);
      this.#updateRef();
      starting.resolve(starting.child);
      return;
    }
    if ('error' in m) {
      if (!starting) return;
      this.#starting.delete(m.id);
      this.#updateRef();
      for (const s of starting.child.stdio) s?.destroy();
      const e = new Error(m.error.message) as NodeJS.ErrnoException;
      if (m.error.code) e.code = m.error.code;
      starting.reject(e);
      return;
    }
    const child = this.#children.get(m.id);
    if (!child) return;
    this.#children.delete(m.id);
    // Not before the caller's `await spawn()` has run: a child that ended at once (in the same
    // read of the channel as its start) would otherwise exit before anyone listened.
    setImmediate(() => child.exited(m.exit[0], m.exit[1]));
  }

  /**
   * The helper died (killed, out of memory): its children can no longer be waited for, so they
   * are ended (their process groups when detached) and reported as killed; later spawns happen
   * in this process.
   */
  #onDeath(): void {
    if (this.#dead && this.#children.size === 0 && this.#starting.size === 0) return;
    this.#dead = true;
    for (const s of this.#starting.values()) s.reject(new Error('the process spawner exited'));
    this.#starting.clear();
    for (const c of this.#children.values()) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {}
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {}
      c.exited(null, 'SIGKILL');
    }
    this.#children.clear();
  }

  /** The channel keeps this process alive only while a spawn or a ref'd child waits on it. */
  #updateRef(): void {
    const busy = this.#starting.size > 0 || [...this.#children.values()].some((c) => c.refd && c.alive);
    const channel = this.#proc.channel as unknown as { ref?: () => void; unref?: () => void } | undefined;
    if (busy) {
      this.#proc.ref();
      channel?.ref?.();
    } else {
      this.#proc.unref();
      channel?.unref?.();
    }
  }
}

/** Spawns in this process; resolves once the child runs (rejects as 'error' would be emitted). */
function spawnHere(file: string, args: readonly string[], options: ChildOptions): Promise<Child> {
  return new Promise((resolve, reject) => {
    const c = startChild(file, args, options);
    c.once('error', reject);
    c.once('spawn', () => {
      c.off('error', reject);
      resolve(c as unknown as Child);
    });
  });
}

/**
 * Spawns in this process with our options (the helper's path and the fallback alike): child_process's
 * options, and the nice value set as soon as the child exists (one that may not be changed keeps its own).
 */
export function startChild(file: string, args: readonly string[], o: ChildOptions): ChildProcess {
  const { nice, stdio, ...rest } = o;
  const c = spawn(file, args, { ...rest, stdio: stdio ? [...stdio] : undefined });
  if (nice !== undefined && c.pid !== undefined) {
    try {
      setPriority(c.pid, nice);
    } catch {}
  }
  return c;
}

let shared: Spawner | undefined;

/** Starts this process's helper, once (Sandbox.open does, at the server's start). */
export function startSpawner(): Spawner {
  if (!shared?.alive) shared = Spawner.start();
  return shared;
}

/** Spawns through the helper when it runs, else here. */
export function spawnChild(file: string, args: readonly string[], options: ChildOptions = {}): Promise<Child> {
  return shared?.alive ? shared.spawn(file, args, options) : spawnHere(file, args, options);
}
