// The digests of a request body: MD5 (S3's ETag), SHA-256 when the request was signed over its
// payload, and one additional x-amz-checksum-* algorithm. Small bodies are hashed inline; large ones
// on a worker thread, because hashing is most of an upload's CPU time (MD5 alone was half the event
// loop's time at 300 MiB/s of 1 MiB PUTs) and on the event loop it delays every other request.
// The bytes are copied into batches the thread owns, so the caller may reuse or write its buffers.
import { Worker } from 'node:worker_threads';
import { type Checksum, type ChecksumAlgorithm, createChecksum } from './checksums.js';

export interface DigestPlan {
  readonly sha256: boolean;
  readonly checksum?: ChecksumAlgorithm;
}

export interface BodyDigests {
  /** Hex. */
  readonly md5: string;
  /** Hex, when planned. */
  readonly sha256?: string;
  /** Base64 of the big-endian digest, when planned. */
  readonly checksum?: string;
}

export interface Digester {
  update(chunk: Buffer): void;
  /** True while the hashing thread is far enough behind that the body's source should wait. */
  readonly congested: boolean;
  /** Called when a congested digester catches up. */
  onDrain: (() => void) | undefined;
  finish(): Promise<BodyDigests>;
  /** Forgets the body (it failed); finish() must not be called afterwards. */
  abort(): void;
}

/** Bodies at least this large (or of unknown length) are hashed off the event loop. */
export const OFFLOAD_MIN_BYTES = 256 * 1024;
const BATCH_BYTES = 256 * 1024;
/** Bytes handed to the thread and not yet hashed, above which the source is paused. */
const CONGESTED_BYTES = 4 * 1024 * 1024;

export function createDigester(plan: DigestPlan, expectedSize: number | undefined): Digester {
  if (expectedSize !== undefined && expectedSize < OFFLOAD_MIN_BYTES) return new InlineDigester(plan);
  return new OffloadedDigester(plan, sharedThread());
}

/** The hashes a plan asks for, updated together; the same on the event loop and on the hashing thread. */
export class BodyHashes {
  private readonly md5 = createChecksum('MD5');
  private readonly sha256: Checksum | undefined;
  private readonly checksum: Checksum | undefined;

  constructor(plan: DigestPlan) {
    if (plan.sha256) this.sha256 = createChecksum('SHA256');
    if (plan.checksum) this.checksum = createChecksum(plan.checksum);
  }

  update(chunk: Uint8Array): void {
    this.md5.update(chunk);
    this.sha256?.update(chunk);
    this.checksum?.update(chunk);
  }

  digests(): BodyDigests {
    return {
      md5: this.md5.digest().toString('hex'),
      ...(this.sha256 ? { sha256: this.sha256.digest().toString('hex') } : {}),
      ...(this.checksum ? { checksum: this.checksum.digest().toString('base64') } : {}),
    };
  }
}

class InlineDigester implements Digester {
  private readonly hashes: BodyHashes;
  readonly congested = false;
  onDrain: (() => void) | undefined;

  constructor(plan: DigestPlan) {
    this.hashes = new BodyHashes(plan);
  }

  update(chunk: Buffer): void {
    this.hashes.update(chunk);
  }

  finish(): Promise<BodyDigests> {
    return Promise.resolve(this.hashes.digests());
  }

  abort(): void {}
}

// Messages between the event loop and the hashing thread (digest-worker.ts).
export type DigestRequest =
  | { t: 'start'; id: number; plan: DigestPlan }
  | { t: 'update'; id: number; data: ArrayBuffer }
  | { t: 'finish'; id: number }
  | { t: 'abort'; id: number };
export type DigestReply = { t: 'ack'; id: number; bytes: number } | { t: 'done'; id: number; digests: BodyDigests };

interface Body {
  ack(bytes: number): void;
  done(digests: BodyDigests): void;
  fail(err: Error): void;
}

/** One hashing thread shared by all bodies; replaced if it dies (the bodies it held fail). */
class DigestThread {
  private readonly worker: Worker;
  private readonly bodies = new Map<number, Body>();
  private nextId = 1;
  dead = false;

  constructor() {
    this.worker = new Worker(new URL('./digest-worker.js', import.meta.url));
    this.worker.unref();
    this.worker.on('message', (m: DigestReply) => {
      const body = this.bodies.get(m.id);
      if (!body) return;
      if (m.t === 'ack') return body.ack(m.bytes);
      this.forget(m.id);
      body.done(m.digests);
    });
    const die = (err: Error) => {
      if (this.dead) return;
      this.dead = true;
      const bodies = [...this.bodies.values()];
      this.bodies.clear();
      for (const b of bodies) b.fail(err);
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`digest thread exited with code ${code}`)));
  }

  start(plan: DigestPlan, body: Body): number {
    const id = this.nextId++;
    // Referenced while a body is open, so a pending digest keeps the process alive.
    if (this.bodies.size === 0) this.worker.ref();
    this.bodies.set(id, body);
    this.post({ t: 'start', id, plan });
    return id;
  }

  post(m: DigestRequest): void {
    if (m.t === 'update') this.worker.postMessage(m, [m.data]);
    else this.worker.postMessage(m);
  }

  forget(id: number): void {
    if (this.bodies.delete(id) && this.bodies.size === 0) this.worker.unref();
  }
}

let thread: DigestThread | undefined;
function sharedThread(): DigestThread {
  if (!thread || thread.dead) thread = new DigestThread();
  return thread;
}

class OffloadedDigester implements Digester {
  private readonly id: number;
  private batch: Uint8Array | undefined;
  private filled = 0;
  private inFlight = 0;
  private failure: Error | undefined;
  private settle: { resolve(d: BodyDigests): void; reject(e: Error): void } | undefined;
  private result: BodyDigests | undefined;
  onDrain: (() => void) | undefined;

  constructor(
    plan: DigestPlan,
    private readonly thread: DigestThread,
  ) {
    this.id = thread.start(plan, {
      ack: (bytes) => {
        const was = this.congested;
        this.inFlight -= bytes;
        if (was && !this.congested) this.onDrain?.();
      },
      done: (d) => {
        this.result = d;
        this.settle?.resolve(d);
      },
      fail: (err) => {
        this.failure = err;
        this.settle?.reject(err);
        // A paused source must not wait forever for a thread that is gone.
        this.inFlight = 0;
        this.onDrain?.();
      },
    });
  }

  get congested(): boolean {
    return this.inFlight > CONGESTED_BYTES;
  }

  update(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      this.batch ??= new Uint8Array(BATCH_BYTES);
      const n = Math.min(chunk.length - at, BATCH_BYTES - this.filled);
      this.batch.set(chunk.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === BATCH_BYTES) this.flush();
    }
  }

  private flush(): void {
    if (!this.batch || this.filled === 0) return;
    const data = this.filled === this.batch.length ? this.batch.buffer : this.batch.buffer.slice(0, this.filled);
    this.inFlight += this.filled;
    this.batch = undefined;
    this.filled = 0;
    if (!this.failure) this.thread.post({ t: 'update', id: this.id, data: data as ArrayBuffer });
  }

  finish(): Promise<BodyDigests> {
    this.flush();
    if (this.failure) return Promise.reject(this.failure);
    if (this.result) return Promise.resolve(this.result);
    return new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
      this.thread.post({ t: 'finish', id: this.id });
    });
  }

  abort(): void {
    this.batch = undefined;
    if (this.failure || this.result) return;
    this.thread.forget(this.id);
    this.thread.post({ t: 'abort', id: this.id });
  }
}
