// Request bodies as S3 clients send them: plain, or `aws-chunked` (SigV4 streaming, with or without
// chunk signatures and checksum trailers), verified against Content-MD5, x-amz-content-sha256 and
// x-amz-checksum-* while they stream, so nothing unverified is ever committed and nothing is buffered.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
import { createHash, type Hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { algorithmOfHeader, type ChecksumAlgorithm, headerOfAlgorithm, isWellFormedChecksum } from './checksums.js';
import { createDigester, type Digester } from './digests.js';
import { S3Error, s3Error } from './s3-errors.js';
import type { ChunkSignatures } from '../context.js';

export interface PayloadOptions {
  /** Largest body accepted (EntityTooLarge beyond it). */
  readonly maxSize: number;
  /** Also compute this checksum when the client declared none (parts of an upload created with one). */
  readonly alwaysCompute?: ChecksumAlgorithm;
  /** The request was signed for streaming: every chunk (and the trailer) carries a signature to check. */
  readonly chunkSignatures?: ChunkSignatures;
}

export interface PayloadDigest {
  readonly size: number;
  /** Hex MD5 of the decoded bytes: S3's ETag of a single-part object. */
  readonly md5: string;
  /** The additional checksum, verified when the client declared it. */
  readonly checksum?: { readonly algorithm: ChecksumAlgorithm; readonly value: string };
}

const STREAMING =
  /^STREAMING-(AWS4-HMAC-SHA256-PAYLOAD|UNSIGNED-PAYLOAD-TRAILER|AWS4-HMAC-SHA256-PAYLOAD-TRAILER|AWS4-ECDSA-P256-SHA256-PAYLOAD|AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER)$/;
const MAX_LINE = 8 * 1024;
/** x-amz-checksum-* headers that describe checksums rather than carry one. */
const NOT_CHECKSUMS = new Set(['x-amz-checksum-type', 'x-amz-checksum-algorithm', 'x-amz-checksum-mode']);
const CRLF = Buffer.from('\r\n');

const header = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/** True when the request body is aws-chunked framed (the signing mode says so; Content-Encoding may be omitted). */
export function isAwsChunked(headers: IncomingHttpHeaders): boolean {
  const sha = header(headers, 'x-amz-content-sha256') ?? '';
  if (STREAMING.test(sha)) return true;
  return (header(headers, 'content-encoding') ?? '').split(',').some((e) => e.trim().toLowerCase() === 'aws-chunked');
}

/** Content-Encoding to store: aws-chunked is transfer framing, never part of the object. */
export function storedContentEncoding(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const rest = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && e.toLowerCase() !== 'aws-chunked');
  return rest.length ? rest.join(',') : undefined;
}

/** Decoded length the client announced, or undefined when it did not say (chunked without a length). */
export function declaredLength(headers: IncomingHttpHeaders): number | undefined {
  const raw = isAwsChunked(headers)
    ? header(headers, 'x-amz-decoded-content-length')
    : header(headers, 'content-length');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
    throw s3Error('InvalidArgument', { ArgumentName: 'Content-Length' }, 'Invalid Content-Length');
  return n;
}

type State = 'size' | 'data' | 'data-end' | 'trailer' | 'done';

/**
 * Decodes (when aws-chunked) and verifies a request body on its way through. Errors are S3Errors
 * raised by the stream, so whatever consumes it (the blob writer) aborts and discards its output.
 * The source is read only once the consumer first reads, so a handler can still ask for an extra
 * checksum (computeAlso) after its own checks, and an early error leaves the body unread.
 */
export class PayloadStream extends Readable {
  private readonly chunked: boolean;
  private digester: Digester | undefined;
  /** The consumer asked for more and has not pushed back since. */
  private wanted = false;
  private readonly expectedSha256: string | undefined;
  private readonly contentMd5: string | undefined;
  private checksum: { algorithm: ChecksumAlgorithm; declared?: string; trailer?: string } | undefined;
  private readonly expectedLength: number | undefined;
  private readonly maxSize: number;
  private size = 0;
  private state: State = 'size';
  private remaining = 0;
  private line: Buffer[] = [];
  private lineLength = 0;
  private readonly trailers = new Map<string, string>();
  private result: PayloadDigest | undefined;
  private started = false;
  private ended = false;
  private readonly signatures: ChunkSignatures | undefined;
  /** The signature of the chunk being read, and the hash of its data so far. */
  private chunkSignature = '';
  private chunkHash: Hash | undefined;
  private trailerSignature: string | undefined;
  /** STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: the trailer must come signed. */
  private readonly trailerSigned: boolean;
  private trailerLines = '';
  private readonly onData = (chunk: Buffer) => {
    try {
      if (!this.chunked) this.data(chunk);
      else this.decode(chunk);
    } catch (err) {
      this.destroy(err as Error);
    }
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.finish().then(
      () => this.push(null),
      (err: Error) => this.destroy(err),
    );
  };
  private readonly onError = (err: Error) => this.destroy(err);
  private readonly onClose = () => {
    // The client went away mid-body: what arrived is incomplete and must not be kept.
    if (!this.ended) this.destroy(s3Error('IncompleteBody'));
  };

  /** Checks the headers up front (InvalidDigest, InvalidRequest, EntityTooLarge) before any byte is read. */
  constructor(
    private readonly source: Readable,
    headers: IncomingHttpHeaders,
    options: PayloadOptions,
  ) {
    super({ highWaterMark: 256 * 1024 });
    this.chunked = isAwsChunked(headers);
    this.signatures = this.chunked ? options.chunkSignatures : undefined;
    this.trailerSigned = header(headers, 'x-amz-content-sha256') === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
    this.maxSize = options.maxSize;
    this.expectedLength = declaredLength(headers);
    if (this.chunked && this.expectedLength === undefined) throw s3Error('MissingContentLength');
    if (this.expectedLength !== undefined && this.expectedLength > options.maxSize) {
      throw s3Error('EntityTooLarge', { ProposedSize: this.expectedLength, MaxSizeAllowed: options.maxSize });
    }

    const md5 = header(headers, 'content-md5');
    if (md5 !== undefined) {
      if (!/^[A-Za-z0-9+/]{22}==$/.test(md5.trim())) throw s3Error('InvalidDigest', { 'Content-MD5': md5 });
      this.contentMd5 = Buffer.from(md5.trim(), 'base64').toString('hex');
    }

    const sha = header(headers, 'x-amz-content-sha256');
    if (sha !== undefined && /^[0-9a-fA-F]{64}$/.test(sha) && !this.chunked) {
      this.expectedSha256 = sha.toLowerCase();
    }

    // One additional checksum at most: as a header, or announced in x-amz-trailer.
    const declared: Array<[ChecksumAlgorithm, string]> = [];
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith('x-amz-checksum-') || NOT_CHECKSUMS.has(name)) continue;
      const alg = algorithmOfHeader(name);
      const v = Array.isArray(value) ? value.join(',') : (value ?? '');
      if (!alg) throw s3Error('InvalidRequest', undefined, `Checksum algorithm of ${name} is not supported.`);
      if (!isWellFormedChecksum(alg, v))
        throw s3Error('InvalidRequest', undefined, `Value for ${name} header is invalid.`);
      declared.push([alg, v]);
    }
    const trailerName = header(headers, 'x-amz-trailer')?.trim().toLowerCase();
    let trailerAlg: ChecksumAlgorithm | undefined;
    if (trailerName) {
      if (!this.chunked)
        throw s3Error('InvalidRequest', undefined, 'x-amz-trailer is only allowed with aws-chunked request bodies.');
      trailerAlg = algorithmOfHeader(trailerName);
      if (!trailerAlg)
        throw s3Error('InvalidRequest', undefined, `The value specified in the x-amz-trailer header is not supported`);
    }
    if (declared.length + (trailerAlg ? 1 : 0) > 1) {
      throw s3Error(
        'InvalidRequest',
        undefined,
        'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
      );
    }
    const sdkAlg = header(headers, 'x-amz-sdk-checksum-algorithm')?.toUpperCase();
    if (declared[0]) {
      const [algorithm, value] = declared[0];
      if (sdkAlg && sdkAlg !== algorithm) {
        throw s3Error('InvalidRequest', undefined, `Value for x-amz-sdk-checksum-algorithm header is invalid.`);
      }
      this.checksum = { algorithm, declared: value };
    } else if (trailerAlg) {
      this.checksum = { algorithm: trailerAlg, trailer: trailerName };
    } else if (options.alwaysCompute) {
      this.checksum = { algorithm: options.alwaysCompute };
    }
  }

  /** Also computes `alg` when the client declared no checksum (must be called before reading). */
  computeAlso(alg: ChecksumAlgorithm): void {
    if (this.started) throw new Error('payload already started');
    this.checksum ??= { algorithm: alg };
  }

  /** The algorithm of the checksum this payload computes, if any. */
  get checksumAlgorithm(): ChecksumAlgorithm | undefined {
    return this.checksum?.algorithm;
  }

  override _read(): void {
    this.wanted = true;
    if (!this.started) {
      this.started = true;
      const digester = createDigester(
        { sha256: this.expectedSha256 !== undefined, ...(this.checksum ? { checksum: this.checksum.algorithm } : {}) },
        this.expectedLength,
      );
      // The hashing thread caught up: the source may flow again if the consumer wants more.
      digester.onDrain = () => {
        if (this.wanted && !this.destroyed) this.source.resume();
      };
      this.digester = digester;
      this.source.on('data', this.onData);
      this.source.on('end', this.onEnd);
      this.source.on('error', this.onError);
      this.source.on('close', this.onClose);
    }
    if (!this.digester!.congested) this.source.resume();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.source.off('data', this.onData);
    this.source.off('end', this.onEnd);
    this.source.off('error', this.onError);
    this.source.off('close', this.onClose);
    this.digester?.abort();
    cb(err);
  }

  /** Reads the whole (small) body into memory, verified; for XML request documents. */
  async readAll(limit: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of this) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        this.destroy();
        throw s3Error('MalformedXML', undefined, `The XML you provided was larger than the maximum of ${limit} bytes.`);
      }
      parts.push(chunk as Buffer);
    }
    return Buffer.concat(parts, size);
  }

  /** Digests of the body; available once the stream has ended without error. */
  digest(): PayloadDigest {
    if (!this.result) throw new Error('payload not fully read');
    return this.result;
  }

  private data(buf: Buffer): void {
    this.size += buf.length;
    if (this.size > this.maxSize) throw s3Error('EntityTooLarge', { MaxSizeAllowed: this.maxSize });
    const digester = this.digester!;
    digester.update(buf);
    // Backpressure: stop the socket until the consumer (a file write) and the hashing catch up.
    if (!this.push(buf)) this.wanted = false;
    if (!this.wanted || digester.congested) this.source.pause();
  }

  /** Accumulates one CRLF-terminated line; returns it (without CRLF) and the bytes consumed, or undefined. */
  private takeLine(chunk: Buffer, at: number): { line: string; next: number } | undefined {
    const nl = chunk.indexOf(0x0a, at);
    const end = nl < 0 ? chunk.length : nl + 1;
    this.line.push(chunk.subarray(at, end));
    this.lineLength += end - at;
    if (this.lineLength > MAX_LINE)
      throw s3Error('IncompleteBody', undefined, 'An aws-chunked header line is too long.');
    if (nl < 0) return undefined;
    const whole = Buffer.concat(this.line, this.lineLength);
    this.line = [];
    this.lineLength = 0;
    if (whole.length < 2 || whole[whole.length - 2] !== 0x0d)
      throw s3Error('IncompleteBody', undefined, 'Malformed aws-chunked encoding.');
    return { line: whole.toString('latin1', 0, whole.length - 2), next: end };
  }

  private decode(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      switch (this.state) {
        case 'size': {
          const got = this.takeLine(chunk, i);
          if (!got) return;
          i = got.next;
          const hex = got.line.split(';', 1)[0]!.trim();
          if (!/^[0-9a-fA-F]{1,16}$/.test(hex))
            throw s3Error('IncompleteBody', undefined, 'Malformed aws-chunked chunk size.');
          this.remaining = Number.parseInt(hex, 16);
          if (this.signatures) this.startChunk(got.line);
          if (this.remaining === 0) this.endChunk();
          this.state = this.remaining === 0 ? 'trailer' : 'data';
          break;
        }
        case 'data': {
          const n = Math.min(this.remaining, chunk.length - i);
          const part = chunk.subarray(i, i + n);
          this.chunkHash?.update(part);
          this.data(part);
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) {
            this.endChunk();
            this.state = 'data-end';
            this.remaining = 2;
          }
          break;
        }
        case 'data-end': {
          // The CRLF after a chunk's data may arrive split across two network reads.
          while (this.remaining > 0 && i < chunk.length) {
            if (chunk[i] !== CRLF[2 - this.remaining])
              throw s3Error('IncompleteBody', undefined, 'Malformed aws-chunked encoding.');
            i++;
            this.remaining--;
          }
          if (this.remaining === 0) this.state = 'size';
          break;
        }
        case 'trailer': {
          const got = this.takeLine(chunk, i);
          if (!got) return;
          i = got.next;
          if (got.line === '') {
            this.state = 'done';
            break;
          }
          const colon = got.line.indexOf(':');
          if (colon > 0) {
            const name = got.line.slice(0, colon).trim().toLowerCase();
            const value = got.line.slice(colon + 1).trim();
            if (name === 'x-amz-trailer-signature') this.trailerSignature = value;
            else {
              this.trailers.set(name, value);
              this.trailerLines += `${name}:${value}\n`;
            }
          }
          break;
        }
        case 'done':
          // Some clients end the body with an extra CRLF; anything else after the final chunk is an error.
          if (chunk.subarray(i).toString('latin1').trim() !== '')
            throw s3Error('IncompleteBody', undefined, 'Data after the final aws-chunked chunk.');
          return;
      }
    }
  }

  /** `<hex>;chunk-signature=<sig>`: a signed stream's chunk must carry its signature. */
  private startChunk(line: string): void {
    const m = /;\s*chunk-signature=([0-9a-fA-F]{64})\s*$/.exec(line);
    if (!m) throw s3Error('SignatureDoesNotMatch', undefined, 'An aws-chunked chunk has no chunk-signature.');
    this.chunkSignature = m[1]!;
    this.chunkHash = createHash('sha256');
  }

  /** Each chunk's signature chains from the previous one: a reordered, altered or dropped chunk fails here. */
  private endChunk(): void {
    if (!this.signatures || !this.chunkHash) return;
    const hash = this.chunkHash.digest('hex');
    this.chunkHash = undefined;
    if (!this.signatures.chunk(this.chunkSignature, hash)) throw s3Error('SignatureDoesNotMatch');
  }

  private async finish(): Promise<void> {
    // A missing blank line after the trailers is tolerated: the SDKs differ on it.
    if (this.chunked && this.state !== 'done' && !(this.state === 'trailer' && this.lineLength === 0)) {
      throw s3Error('IncompleteBody');
    }
    // STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER signs the trailing headers too.
    if (this.signatures && this.trailerSigned && this.trailerSignature === undefined && this.trailerLines !== '') {
      throw s3Error('SignatureDoesNotMatch', undefined, 'The trailing headers carry no x-amz-trailer-signature.');
    }
    if (this.signatures && this.trailerSignature !== undefined) {
      const hash = createHash('sha256').update(this.trailerLines).digest('hex');
      if (!this.signatures.trailer(this.trailerSignature, hash)) throw s3Error('SignatureDoesNotMatch');
    }
    if (this.expectedLength !== undefined && this.size !== this.expectedLength) throw s3Error('IncompleteBody');
    const digests = await this.digester!.finish();
    if (this.expectedSha256 !== undefined && digests.sha256 !== this.expectedSha256) {
      throw s3Error('XAmzContentSHA256Mismatch', { ClientComputedContentSHA256: this.expectedSha256 });
    }
    const md5 = digests.md5;
    if (this.contentMd5 !== undefined && md5 !== this.contentMd5) {
      throw s3Error('BadDigest', {
        ExpectedDigest: this.contentMd5,
        CalculatedDigest: Buffer.from(md5, 'hex').toString('base64'),
      });
    }
    let checksum: PayloadDigest['checksum'];
    if (this.checksum) {
      const value = digests.checksum!;
      let expected = this.checksum.declared;
      if (this.checksum.trailer) {
        expected = this.trailers.get(this.checksum.trailer);
        if (expected === undefined) {
          throw s3Error(
            'InvalidRequest',
            undefined,
            `The trailer ${this.checksum.trailer} named in x-amz-trailer was not sent.`,
          );
        }
        if (!isWellFormedChecksum(this.checksum.algorithm, expected)) {
          throw s3Error(
            'InvalidRequest',
            undefined,
            `Value for ${headerOfAlgorithm(this.checksum.algorithm)} trailing header is invalid.`,
          );
        }
      }
      if (expected !== undefined && expected !== value) {
        throw new S3Error(
          'BadDigest',
          `The ${this.checksum.algorithm} you specified did not match the calculated checksum.`,
        );
      }
      checksum = { algorithm: this.checksum.algorithm, value };
    }
    this.result = { size: this.size, md5, ...(checksum ? { checksum } : {}) };
  }
}
