// An instance reached over SageMaker's container contract: GET /ping answers 200 once the model is
// loaded, POST /invocations answers each request; used for local processes and Docker containers.
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html

import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import type { InvocationRequest, InvocationResult } from '../../engine.js';
import { ContainerFailure } from '../../failure.js';
import { type ContainerHandle, ContainerInstance, MAX_ERROR_TEXT, MAX_RESPONSE_BYTES } from './container-instance.js';

export type { ContainerHandle } from './container-instance.js';

export class HttpContainer extends ContainerInstance {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    readonly host: string,
    readonly port: number,
    handle: ContainerHandle,
  ) {
    super(handle);
  }

  protected closed(): void {
    this.agent.destroy();
  }

  /** Polls GET /ping until it answers 200. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let delay = 10;
    for (;;) {
      if (this.death)
        throw new ContainerFailure(
          'startup',
          500,
          `The container stopped before answering /ping: ${this.death.message}`,
        );
      const status = await this.ping().catch(() => 0);
      if (status === 200) return;
      if (Date.now() >= deadline) {
        this.kill('startup');
        throw new ContainerFailure(
          'startup',
          500,
          `The container did not answer GET /ping with 200 within ${timeoutMs / 1000} s.`,
        );
      }
      await Promise.race([
        new Promise((r) => setTimeout(r, delay)),
        new Promise<void>((r) => this.deathWaiters.push(r)),
      ]);
      delay = Math.min(delay * 2, 200);
    }
  }

  private ping(): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: this.host, port: this.port, path: '/ping', method: 'GET', agent: this.agent, timeout: 2000 },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('ping timed out')));
      req.on('error', reject);
      req.end();
    });
  }

  invoke(req: InvocationRequest): Promise<InvocationResult> {
    if (this.death) return Promise.reject(new ContainerFailure(this.death.kind, 500, this.death.message));
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'Content-Length': req.body.length };
      if (req.contentType) headers['Content-Type'] = req.contentType;
      if (req.accept) headers.Accept = req.accept;
      if (req.customAttributes) headers['X-Amzn-SageMaker-Custom-Attributes'] = req.customAttributes;
      if (req.inferenceId) headers['X-Amzn-SageMaker-Inference-Id'] = req.inferenceId;
      const r = request(
        { host: this.host, port: this.port, path: '/invocations', method: 'POST', agent: this.agent, headers },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) {
              res.destroy();
              reject(
                new ContainerFailure(
                  'response',
                  500,
                  `The container's response is larger than ${MAX_RESPONSE_BYTES} bytes.`,
                ),
              );
              return;
            }
            chunks.push(c);
          });
          res.on('error', (e) => this.failed(e, reject));
          res.on('end', () => {
            const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            const status = res.statusCode ?? 500;
            if (status < 200 || status > 299) {
              reject(new ContainerFailure('response', status, body.subarray(0, MAX_ERROR_TEXT).toString('utf8')));
              return;
            }
            const attrs = res.headers['x-amzn-sagemaker-custom-attributes'];
            resolve({
              body,
              contentType: res.headers['content-type'] ?? 'application/octet-stream',
              ...(typeof attrs === 'string' ? { customAttributes: attrs } : {}),
            });
          });
        },
      );
      r.on('error', (e) => this.failed(e, reject));
      r.end(req.body);
    });
  }
}

/** A TCP port that was free a moment ago (the container binds it next). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}
