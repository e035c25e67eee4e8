// An instance reached through its standard input and output in Slipway's own framed protocol (the
// framework model worker, python/slipway_serving/worker.py): no port, no HTTP, no user-mode
// network between Slipway and the process. One request at a time, as every instance.
//
//   request  >IHHH  body length, content-type length, accept length, custom-attributes length;
//                   those strings (latin-1); the body
//   answer   >IHHH  body length, status, content-type length, custom-attributes length;
//                   those strings; the body. The first answer (status 0, empty) says "loaded".

import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import type { InvocationRequest, InvocationResult } from '../../engine.js';
import { ContainerFailure } from '../../failure.js';
import type { AnswerPoller } from './answer-poller.js';
import { type ContainerHandle, ContainerInstance, MAX_ERROR_TEXT, MAX_RESPONSE_BYTES } from './container-instance.js';

const HEAD = 10;

interface Pending {
  resolve(r: InvocationResult): void;
  reject(f: ContainerFailure): void;
  readonly sent: number;
  /** The server's loop polls for this answer (see answer-poller.ts). */
  readonly polled: boolean;
}

export class ChannelContainer extends ContainerInstance {
  private buf: Buffer = Buffer.alloc(0);
  private ready = false;
  private readyWaiter: (() => void) | undefined;
  private pending: Pending | undefined;
  /** How long the last answer took (ms): whether the next is worth polling for. */
  private lastMs = 0;

  constructor(
    private readonly input: Writable,
    private readonly output: Readable,
    handle: ContainerHandle,
    private readonly poller?: AnswerPoller,
  ) {
    super(handle);
    input.on('error', () => {}); // its death is reported by the exit
    output.on('data', (d: Buffer) => this.onData(d));
  }

  protected closed(): void {
    this.output.removeAllListeners('data');
    this.output.resume();
    const p = this.take();
    if (p && this.death) p.reject(new ContainerFailure(this.death.kind, 500, this.death.message));
  }

  async waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      const dead = () =>
        reject(
          new ContainerFailure(
            'startup',
            500,
            `The model server stopped before it was ready: ${this.death?.message ?? ''}`,
          ),
        );
      if (this.death) return dead();
      this.deathWaiters.push(() => {
        if (!this.ready) dead();
      });
      this.readyWaiter = resolve;
      timer = setTimeout(() => {
        this.kill('startup');
        reject(
          new ContainerFailure('startup', 500, `The model server did not load the model within ${timeoutMs / 1000} s.`),
        );
      }, timeoutMs);
    }).finally(() => clearTimeout(timer));
  }

  invoke(req: InvocationRequest): Promise<InvocationResult> {
    if (this.death) return Promise.reject(new ContainerFailure(this.death.kind, 500, this.death.message));
    if (this.pending) return Promise.reject(new ContainerFailure('crash', 500, 'The model server is busy.'));
    const ct = req.contentType ?? '';
    const accept = req.accept ?? '';
    const attrs = req.customAttributes ?? '';
    // latin1: a byte per character, so a string's length is its length on the wire.
    const meta = HEAD + ct.length + accept.length + attrs.length;
    const small = req.body.length < 16384;
    const frame = Buffer.allocUnsafe(small ? meta + req.body.length : meta);
    frame.writeUInt32BE(req.body.length, 0);
    frame.writeUInt16BE(ct.length, 4);
    frame.writeUInt16BE(accept.length, 6);
    frame.writeUInt16BE(attrs.length, 8);
    frame.write(ct, HEAD, 'latin1');
    frame.write(accept, HEAD + ct.length, 'latin1');
    frame.write(attrs, HEAD + ct.length + accept.length, 'latin1');
    if (small) frame.set(req.body, meta);
    return new Promise((resolve, reject) => {
      const polled = this.poller?.worth(this.lastMs) ?? false;
      this.pending = { resolve, reject, sent: performance.now(), polled };
      if (polled) this.poller!.expect();
      this.input.write(frame);
      if (!small) this.input.write(req.body);
    });
  }

  /** The request in flight, no longer pending: every way it ends goes through here. */
  private take(): Pending | undefined {
    const p = this.pending;
    this.pending = undefined;
    if (p) {
      this.lastMs = performance.now() - p.sent;
      if (p.polled) this.poller!.settled();
    }
    return p;
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    for (;;) {
      if (this.buf.length < HEAD) return;
      const n = this.buf.readUInt32BE(0);
      const status = this.buf.readUInt16BE(4);
      const lct = this.buf.readUInt16BE(6);
      const lattr = this.buf.readUInt16BE(8);
      if (n > MAX_RESPONSE_BYTES) {
        const p = this.take();
        this.kill('crash');
        p?.reject(
          new ContainerFailure('response', 500, `The container's response is larger than ${MAX_RESPONSE_BYTES} bytes.`),
        );
        return;
      }
      const total = HEAD + lct + lattr + n;
      if (this.buf.length < total) return;
      const contentType = this.buf.toString('latin1', HEAD, HEAD + lct);
      const attrs = this.buf.toString('latin1', HEAD + lct, HEAD + lct + lattr);
      const body = this.buf.subarray(HEAD + lct + lattr, total);
      this.buf = this.buf.length === total ? Buffer.alloc(0) : this.buf.subarray(total);
      if (status === 0 && !this.ready) {
        this.ready = true;
        this.readyWaiter?.();
        continue;
      }
      const p = this.take();
      if (!p) continue;
      if (status < 200 || status > 299) {
        p.reject(new ContainerFailure('response', status, body.subarray(0, MAX_ERROR_TEXT).toString('utf8')));
        continue;
      }
      p.resolve({
        body,
        contentType: contentType || 'application/octet-stream',
        ...(attrs ? { customAttributes: attrs } : {}),
      });
    }
  }
}
