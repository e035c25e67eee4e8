// Reading bounded request bodies and writing WireResponses to Node's ServerResponse.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { WireResponse } from '../protocol/wire.js';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body over ${limit} bytes`);
  }
}

const EMPTY = Buffer.alloc(0);

/** Bodies already read (to verify their signature) before the request reached its handler. */
const alreadyRead = new WeakMap<IncomingMessage, Buffer>();

/** Hands a body read ahead of the handler to the handler's own readBody(). */
export function setBodyRead(req: IncomingMessage, body: Buffer): void {
  alreadyRead.set(req, body);
}

/** Reads the whole body, refusing (without buffering further) once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const read = alreadyRead.get(req);
  if (read) return read.length > limit ? Promise.reject(new BodyTooLargeError(limit)) : Promise.resolve(read);
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  if (declared === 0) return Promise.resolve(EMPTY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

export function writeResponse(res: ServerResponse, r: WireResponse, headOnly = false): void {
  const body = r.body;
  if (body instanceof Readable) {
    res.writeHead(r.status, r.headers);
    body.pipe(res);
    return;
  }
  const buf = body === null ? EMPTY : typeof body === 'string' ? Buffer.from(body) : body;
  r.headers['content-length'] = String(buf.length);
  res.writeHead(r.status, r.headers);
  res.end(headOnly ? undefined : buf);
}
