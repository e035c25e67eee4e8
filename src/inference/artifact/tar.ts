// A safe reader for model artifacts (model.tar.gz, or a plain tar). It never touches the file
// system: entries are returned in memory, and only those the caller selects are buffered.
//
// Safety rules, each a clear ArchiveError:
//   * paths: no absolute paths, no `..` segments, no NUL, no drive letters; `./` prefixes are
//     normalised away;
//   * links: symlinks and hard links are reported (never followed) and refused when their target
//     is absolute or escapes the archive root;
//   * limits: number of entries, total uncompressed bytes, bytes of any buffered entry, and the
//     compression ratio (decompression bombs) — checked while decompressing, so memory stays bounded
//     whatever the archive declares.
//
// Formats: ustar, GNU (long names 'L'/'K', base-256 sizes) and POSIX pax ('x'/'g' records for
// path, linkpath and size), which covers GNU tar, Python's tarfile and the SageMaker SDK.

import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gunzipSync } from 'node:zlib';

export type ArchiveErrorCode = 'not-archive' | 'corrupt' | 'truncated' | 'unsafe-path' | 'limit';

export class ArchiveError extends Error {
  override name = 'ArchiveError';
  readonly code: ArchiveErrorCode;
  constructor(code: ArchiveErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export interface ArchiveLimits {
  /** most entries (of any type, metadata headers included); default 10,000 */
  maxEntries?: number;
  /** most uncompressed bytes in the whole tar stream; default 4 GiB */
  maxTotalBytes?: number;
  /** most bytes of one buffered (selected) entry; default 1 GiB */
  maxEntryBytes?: number;
  /** most uncompressed/compressed ratio, enforced once past `ratioGraceBytes`; default 250 */
  maxRatio?: number;
  /** uncompressed bytes allowed before the ratio limit applies; default 8 MiB */
  ratioGraceBytes?: number;
}

export type ArchiveEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface ArchiveEntryHeader {
  /** normalised relative path, '/'-separated, no trailing slash */
  path: string;
  type: ArchiveEntryType;
  size: number;
  mode: number;
  /** link target for symlinks and hard links */
  linkTarget?: string;
}

export interface ArchiveEntry extends ArchiveEntryHeader {
  /** content, for selected regular files only */
  data?: Uint8Array;
}

export interface ReadArchiveOptions {
  limits?: ArchiveLimits;
  /** which regular files to buffer (default: all) */
  select?: (entry: ArchiveEntryHeader) => boolean;
}

interface ResolvedLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxRatio: number;
  ratioGraceBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: Readonly<Required<ArchiveLimits>> = Object.freeze({
  maxEntries: 10_000,
  maxTotalBytes: 4 * 1024 ** 3,
  maxEntryBytes: 1024 ** 3,
  maxRatio: 250,
  ratioGraceBytes: 8 * 1024 ** 2,
});

function resolve(l: ArchiveLimits | undefined): ResolvedLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...(l ?? {}) } as ResolvedLimits;
}

const BLOCK = 512;
const MAX_META_BYTES = 1 << 20; // pax records / GNU long names

/** True when the bytes start with the gzip magic number. */
export function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** Read a tar.gz (or plain tar) held in memory. Synchronous; memory is bounded by the limits. */
export function readTarGzSync(input: Uint8Array, options?: ReadArchiveOptions): ArchiveEntry[] {
  const limits = resolve(options?.limits);
  let tar: Uint8Array;
  if (isGzip(input)) {
    const cap = Math.min(limits.maxTotalBytes, Math.max(limits.ratioGraceBytes, input.length * limits.maxRatio));
    try {
      tar = gunzipSync(input, { maxOutputLength: Math.max(1, Math.min(cap, 2 ** 31 - 1)) });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
        throw new ArchiveError(
          'limit',
          `archive decompresses to more than ${cap} bytes (limit ${limits.maxTotalBytes}, ratio ${limits.maxRatio}:1)`,
        );
      }
      throw new ArchiveError('corrupt', `gzip data is corrupt: ${err.message}`);
    }
  } else {
    tar = input;
    if (tar.length > limits.maxTotalBytes)
      throw new ArchiveError('limit', `archive is larger than ${limits.maxTotalBytes} bytes`);
  }
  const parser = new TarParser(limits, options?.select);
  parser.push(tar);
  return parser.end();
}

/**
 * Read a tar.gz (or plain tar) from memory or a stream, decompressing incrementally so that limits
 * are enforced before memory is spent.
 */
export async function readTarGz(
  input: Uint8Array | AsyncIterable<Uint8Array> | NodeJS.ReadableStream,
  options?: ReadArchiveOptions,
): Promise<ArchiveEntry[]> {
  const limits = resolve(options?.limits);
  const parser = new TarParser(limits, options?.select);
  let compressed = 0;
  let decompressed = 0;
  let mode: 'unknown' | 'gzip' | 'tar' = 'unknown';
  const source: AsyncIterable<Uint8Array> =
    input instanceof Uint8Array ? Readable.from([input]) : (input as AsyncIterable<Uint8Array>);

  // Peek the first bytes to choose gzip or plain tar, then feed everything through.
  const iterator = source[Symbol.asyncIterator]();
  const first: Uint8Array[] = [];
  let firstLen = 0;
  let done = false;
  while (firstLen < 2) {
    const r = await iterator.next();
    if (r.done) {
      done = true;
      break;
    }
    const c = toU8(r.value);
    first.push(c);
    firstLen += c.length;
  }
  const head = concat(first);
  mode = isGzip(head) ? 'gzip' : 'tar';
  async function* all(): AsyncGenerator<Uint8Array> {
    if (head.length > 0) yield head;
    if (done) return;
    for (;;) {
      const r = await iterator.next();
      if (r.done) return;
      yield toU8(r.value);
    }
  }
  let limitError: ArchiveError | undefined;
  const consume = (chunk: Uint8Array): void => {
    try {
      consumeChunk(chunk);
    } catch (e) {
      if (e instanceof ArchiveError) limitError = e;
      throw e;
    }
  };
  const consumeChunk = (chunk: Uint8Array): void => {
    decompressed += chunk.length;
    if (decompressed > limits.maxTotalBytes) {
      throw new ArchiveError('limit', `archive decompresses to more than ${limits.maxTotalBytes} bytes`);
    }
    if (mode === 'gzip' && decompressed > limits.ratioGraceBytes && decompressed > compressed * limits.maxRatio) {
      throw new ArchiveError(
        'limit',
        `archive compression ratio exceeds ${limits.maxRatio}:1 (decompression bomb?) after ${decompressed} bytes`,
      );
    }
    parser.push(chunk);
  };
  if (mode === 'tar') {
    for await (const chunk of all()) consume(chunk);
    return parser.end();
  }
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      compressed += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.from(all()), counter, createGunzip(), async (src: AsyncIterable<Buffer>) => {
      for await (const chunk of src) consume(chunk);
    });
  } catch (e) {
    if (limitError) throw limitError;
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError('corrupt', `gzip data is corrupt: ${(e as Error).message}`);
  }
  return parser.end();
}

function toU8(c: unknown): Uint8Array {
  if (c instanceof Uint8Array) return c;
  if (typeof c === 'string') return Buffer.from(c);
  throw new ArchiveError('not-archive', 'archive stream yielded something other than bytes');
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  return Buffer.concat(parts);
}

/** Normalise an archive path; throws for absolute, `..`, NUL or drive-letter paths. */
export function normaliseArchivePath(raw: string): string {
  if (raw.includes('\0')) throw new ArchiveError('unsafe-path', `archive path contains NUL: ${JSON.stringify(raw)}`);
  // The archive's own root written as "/" names nothing outside it: Python's tarfile writes it so for
  // t.add(dir, arcname="/"), which is how the SageMaker Python SDK's repack_model builds model.tar.gz.
  if (/^\/+$/.test(raw)) return '';
  if (raw.startsWith('/') || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw)) {
    throw new ArchiveError('unsafe-path', `archive contains an absolute path: ${JSON.stringify(raw)}`);
  }
  const parts: string[] = [];
  for (const seg of raw.split(/[/\\]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new ArchiveError('unsafe-path', `archive path escapes the root: ${JSON.stringify(raw)}`);
    parts.push(seg);
  }
  return parts.join('/');
}

function checkLinkTarget(entryPath: string, target: string, hard: boolean): void {
  if (target.startsWith('/') || /^[A-Za-z]:/.test(target) || target.includes('\0')) {
    throw new ArchiveError('unsafe-path', `link ${JSON.stringify(entryPath)} points to an absolute path`);
  }
  // hard link targets are archive paths; symlink targets are relative to the link's directory
  const stack = hard ? [] : entryPath.split('/').slice(0, -1);
  for (const seg of target.split(/[/\\]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (stack.length === 0) {
        throw new ArchiveError('unsafe-path', `link ${JSON.stringify(entryPath)} escapes the archive root`);
      }
      stack.pop();
    } else stack.push(seg);
  }
}

class TarParser {
  private readonly entries: ArchiveEntry[] = [];
  private readonly header = new Uint8Array(BLOCK);
  private headerFill = 0;
  private state: 'header' | 'data' | 'padding' | 'end' = 'header';
  private remaining = 0; // data bytes left in the current entry
  private padding = 0;
  private headers = 0;
  private current: { entry: ArchiveEntry | null; meta: 'pax' | 'gpax' | 'longname' | 'longlink' | null } | null = null;
  private chunks: Uint8Array[] = [];
  private collected = 0;
  private pax: Record<string, string> = {};
  private globalPax: Record<string, string> = {};
  private longName: string | null = null;
  private longLink: string | null = null;
  private sawAnyHeader = false;

  constructor(
    private readonly limits: ResolvedLimits,
    private readonly select: ((e: ArchiveEntryHeader) => boolean) | undefined,
  ) {}

  push(buf: Uint8Array): void {
    let i = 0;
    while (i < buf.length && this.state !== 'end') {
      if (this.state === 'header') {
        const n = Math.min(BLOCK - this.headerFill, buf.length - i);
        this.header.set(buf.subarray(i, i + n), this.headerFill);
        this.headerFill += n;
        i += n;
        if (this.headerFill === BLOCK) {
          this.headerFill = 0;
          this.onHeader();
        }
      } else if (this.state === 'data') {
        const n = Math.min(this.remaining, buf.length - i);
        if (this.current && (this.current.entry?.data !== undefined || this.current.meta)) {
          this.chunks.push(buf.slice(i, i + n));
          this.collected += n;
        }
        this.remaining -= n;
        i += n;
        if (this.remaining === 0) this.onDataEnd();
      } else {
        const n = Math.min(this.padding, buf.length - i);
        this.padding -= n;
        i += n;
        if (this.padding === 0) this.state = 'header';
      }
    }
  }

  end(): ArchiveEntry[] {
    if (this.state === 'data' || this.state === 'padding' || this.headerFill !== 0) {
      throw new ArchiveError('truncated', 'archive is truncated (ended inside an entry)');
    }
    if (!this.sawAnyHeader) throw new ArchiveError('not-archive', 'archive is empty or not a tar archive');
    return this.entries;
  }

  private onHeader(): void {
    const h = this.header;
    let zero = true;
    for (let k = 0; k < BLOCK; k++) {
      if (h[k] !== 0) {
        zero = false;
        break;
      }
    }
    if (zero) {
      if (!this.sawAnyHeader)
        throw new ArchiveError('not-archive', 'archive starts with an empty block: not a tar archive');
      this.state = 'end';
      return;
    }
    this.verifyChecksum();
    this.sawAnyHeader = true;
    if (++this.headers > this.limits.maxEntries) {
      throw new ArchiveError('limit', `archive has more than ${this.limits.maxEntries} entries`);
    }
    const typeflag = h[156];
    const ustar = ascii(h, 257, 5) === 'ustar';
    let name = cstr(h, 0, 100);
    if (ustar) {
      const prefix = cstr(h, 345, 155);
      if (prefix && h[263] === 0x30 /* POSIX ustar "00" */) name = `${prefix}/${name}`;
    }
    let size = parseNumeric(h, 124, 12, 'size');
    const mode = parseNumeric(h, 100, 8, 'mode') & 0o7777;
    let linkname = cstr(h, 157, 100);

    if (
      typeflag === 0x78 /* x */ ||
      typeflag === 0x67 /* g */ ||
      typeflag === 0x4c /* L */ ||
      typeflag === 0x4b /* K */
    ) {
      if (size > MAX_META_BYTES)
        throw new ArchiveError('limit', `archive metadata record of ${size} bytes is too large`);
      const meta = typeflag === 0x78 ? 'pax' : typeflag === 0x67 ? 'gpax' : typeflag === 0x4c ? 'longname' : 'longlink';
      this.beginData(size, { entry: null, meta });
      return;
    }

    const pax = { ...this.globalPax, ...this.pax };
    this.pax = {};
    if (pax.path !== undefined) name = pax.path;
    if (this.longName !== null) name = this.longName;
    if (pax.linkpath !== undefined) linkname = pax.linkpath;
    if (this.longLink !== null) linkname = this.longLink;
    this.longName = null;
    this.longLink = null;
    if (pax.size !== undefined) {
      if (!/^\d+$/.test(pax.size)) throw new ArchiveError('corrupt', 'pax size record is not a number');
      size = Number(pax.size);
    }

    let type: ArchiveEntryType;
    switch (typeflag) {
      case 0:
      case 0x30:
      case 0x37:
        type = 'file';
        break;
      case 0x35:
        type = 'directory';
        break;
      case 0x32:
        type = 'symlink';
        break;
      case 0x31:
        type = 'hardlink';
        break;
      default:
        type = 'other';
    }
    if (type === 'file' && name.endsWith('/') && typeflag === 0) type = 'directory'; // old V7 directories
    const path = normaliseArchivePath(name);
    if (type === 'symlink' || type === 'hardlink') {
      checkLinkTarget(path, linkname, type === 'hardlink');
      if (type === 'hardlink') normaliseArchivePath(linkname);
    }
    if (type === 'directory' || type === 'symlink' || type === 'hardlink') size = type === 'hardlink' ? 0 : size;
    if (size > this.limits.maxTotalBytes) {
      throw new ArchiveError('limit', `archive entry ${JSON.stringify(path)} declares ${size} bytes, over the limit`);
    }
    const entry: ArchiveEntry = { path, type, size, mode };
    if (type === 'symlink' || type === 'hardlink') entry.linkTarget = linkname;
    const wanted = type === 'file' && (this.select ? this.select({ ...entry }) : true);
    if (wanted) {
      if (size > this.limits.maxEntryBytes) {
        throw new ArchiveError(
          'limit',
          `archive entry ${JSON.stringify(path)} is ${size} bytes, over the ${this.limits.maxEntryBytes} limit`,
        );
      }
      entry.data = new Uint8Array(0); // marks "collect"; replaced at the end of the data
    }
    this.entries.push(entry);
    this.beginData(size, { entry, meta: null });
  }

  private beginData(size: number, current: NonNullable<TarParser['current']>): void {
    this.current = current;
    this.chunks = [];
    this.collected = 0;
    this.remaining = size;
    this.padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (size === 0) this.onDataEnd();
    else this.state = 'data';
  }

  private onDataEnd(): void {
    const cur = this.current!;
    this.current = null;
    this.state = this.padding > 0 ? 'padding' : 'header';
    const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.collected);
    this.chunks = [];
    if (cur.meta === 'longname' || cur.meta === 'longlink') {
      const s = new TextDecoder().decode(data);
      const z = s.indexOf('\0');
      const v = z >= 0 ? s.slice(0, z) : s;
      if (cur.meta === 'longname') this.longName = v;
      else this.longLink = v;
    } else if (cur.meta === 'pax' || cur.meta === 'gpax') {
      const rec = parsePax(data);
      if (cur.meta === 'pax') this.pax = rec;
      else this.globalPax = { ...this.globalPax, ...rec };
    } else if (cur.entry && cur.entry.data !== undefined) {
      cur.entry.data = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    }
  }

  private verifyChecksum(): void {
    const h = this.header;
    const stored = parseNumeric(h, 148, 8, 'checksum');
    let sum = 0;
    for (let k = 0; k < BLOCK; k++) sum += k >= 148 && k < 156 ? 0x20 : h[k];
    if (sum !== stored) {
      // historic tars summed signed bytes
      let signed = 0;
      for (let k = 0; k < BLOCK; k++) signed += k >= 148 && k < 156 ? 0x20 : (h[k] << 24) >> 24;
      if (signed !== stored) {
        throw new ArchiveError(
          this.sawAnyHeader ? 'corrupt' : 'not-archive',
          'tar header checksum mismatch: not a tar archive or corrupt',
        );
      }
    }
  }
}

function ascii(b: Uint8Array, at: number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[at + i]);
  return s;
}

function cstr(b: Uint8Array, at: number, n: number): string {
  let end = at;
  while (end < at + n && b[end] !== 0) end++;
  return new TextDecoder().decode(b.subarray(at, end));
}

function parseNumeric(b: Uint8Array, at: number, n: number, what: string): number {
  if (b[at] & 0x80) {
    // GNU base-256: big-endian two's complement in the remaining bytes
    if (b[at] & 0x40) throw new ArchiveError('corrupt', `tar header has a negative ${what}`);
    let v = b[at] & 0x3f;
    for (let i = 1; i < n; i++) {
      v = v * 256 + b[at + i];
      if (v > Number.MAX_SAFE_INTEGER) throw new ArchiveError('limit', `tar header ${what} is absurdly large`);
    }
    return v;
  }
  let s = '';
  for (let i = 0; i < n; i++) {
    const c = b[at + i];
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  s = s.trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError('corrupt', `tar header ${what} is not an octal number`);
  return Number.parseInt(s, 8);
}

function parsePax(data: Uint8Array): Record<string, string> {
  // records are "<decimal byte length> <key>=<value>\n"; the length counts bytes
  const out: Record<string, string> = {};
  const dec = new TextDecoder();
  let i = 0;
  while (i < data.length) {
    let sp = i;
    while (sp < data.length && data[sp] !== 0x20) sp++;
    if (sp >= data.length) break;
    const len = Number(dec.decode(data.subarray(i, sp)));
    if (!Number.isInteger(len) || len <= sp - i || i + len > data.length) {
      if (data[i] === 0) break; // zero padding
      throw new ArchiveError('corrupt', 'pax header record is malformed');
    }
    const rec = dec.decode(data.subarray(sp + 1, i + len));
    const eq = rec.indexOf('=');
    if (eq > 0) {
      const key = rec.slice(0, eq);
      const value = rec.endsWith('\n') ? rec.slice(eq + 1, -1) : rec.slice(eq + 1);
      if (key === 'path' || key === 'linkpath' || key === 'size') out[key] = value;
    }
    i += len;
  }
  return out;
}
