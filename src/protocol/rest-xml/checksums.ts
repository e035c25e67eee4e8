// The additional checksums S3 verifies on uploads (x-amz-checksum-*), incrementally computed.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
// CRC32 and the hashes come from Node (zlib, OpenSSL); CRC32C and CRC64NVME are table-driven here.
import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const CHECKSUM_ALGORITHMS = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** Digest length in bytes: a header whose base64 value decodes to another length is malformed. */
export const CHECKSUM_BYTES: Record<ChecksumAlgorithm, number> = {
  CRC32: 4,
  CRC32C: 4,
  CRC64NVME: 8,
  SHA1: 20,
  SHA256: 32,
};

/** `x-amz-checksum-crc32` → 'CRC32'; undefined for names S3 does not define or Slipway does not compute. */
export function algorithmOfHeader(header: string): ChecksumAlgorithm | undefined {
  const m = /^x-amz-checksum-([a-z0-9]+)$/.exec(header.toLowerCase());
  const alg = m?.[1]?.toUpperCase();
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(alg ?? '') ? (alg as ChecksumAlgorithm) : undefined;
}

export const headerOfAlgorithm = (alg: ChecksumAlgorithm): string => `x-amz-checksum-${alg.toLowerCase()}`;

export interface Checksum {
  update(chunk: Uint8Array): void;
  /** Big-endian digest bytes (what S3 base64-encodes into the header). */
  digest(): Buffer;
}

class NodeHash implements Checksum {
  private readonly h: Hash;
  constructor(alg: string) {
    this.h = createHash(alg);
  }
  update(chunk: Uint8Array): void {
    this.h.update(chunk);
  }
  digest(): Buffer {
    return this.h.digest();
  }
}

class Crc32 implements Checksum {
  private crc = 0;
  update(chunk: Uint8Array): void {
    this.crc = crc32(chunk, this.crc);
  }
  digest(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(this.crc >>> 0);
    return b;
  }
}

/** Slicing-by-8 tables for a reflected 32-bit CRC. */
function crc32Tables(poly: number): Uint32Array[] {
  const t = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[0]![i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 8; s++) t[s]![i] = (t[s - 1]![i]! >>> 8) ^ t[0]![t[s - 1]![i]! & 0xff]!;
  }
  return t;
}

let crc32cTables: Uint32Array[] | undefined;
const crc32c = (): Uint32Array[] => {
  crc32cTables ??= crc32Tables(0x82f63b78);
  return crc32cTables;
};

/** CRC-32C (Castagnoli), reflected polynomial 0x82F63B78. */
class Crc32c implements Checksum {
  private crc = 0xffffffff;
  private readonly t = crc32c();
  update(buf: Uint8Array): void {
    const [t0, t1, t2, t3, t4, t5, t6, t7] = this.t as [
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
      Uint32Array,
    ];
    let c = this.crc;
    let i = 0;
    const end8 = buf.length - (buf.length % 8);
    for (; i < end8; i += 8) {
      const a = (c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24))) >>> 0;
      c =
        t7[a & 0xff]! ^
        t6[(a >>> 8) & 0xff]! ^
        t5[(a >>> 16) & 0xff]! ^
        t4[a >>> 24]! ^
        t3[buf[i + 4]!]! ^
        t2[buf[i + 5]!]! ^
        t1[buf[i + 6]!]! ^
        t0[buf[i + 7]!]!;
    }
    for (; i < buf.length; i++) c = (c >>> 8) ^ t0[(c ^ buf[i]!) & 0xff]!;
    this.crc = c >>> 0;
  }
  digest(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE((this.crc ^ 0xffffffff) >>> 0);
    return b;
  }
}

let crc64Tables: { hi: Uint32Array; lo: Uint32Array } | undefined;
const crc64 = () => {
  crc64Tables ??= makeCrc64Tables();
  return crc64Tables;
};

function makeCrc64Tables(): { hi: Uint32Array; lo: Uint32Array } {
  const hi = new Uint32Array(256);
  const lo = new Uint32Array(256);
  const PH = 0x9a6c9329;
  const PL = 0xac4bc9b5;
  for (let i = 0; i < 256; i++) {
    let h = 0;
    let l = i;
    for (let k = 0; k < 8; k++) {
      const bit = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h = h >>> 1;
      if (bit) {
        h = (h ^ PH) >>> 0;
        l = (l ^ PL) >>> 0;
      }
    }
    hi[i] = h;
    lo[i] = l;
  }
  return { hi, lo };
}

/** CRC-64/NVME, reflected polynomial 0x9A6C9329AC4BC9B5, kept as two 32-bit halves (no BigInt per byte). */
class Crc64Nvme implements Checksum {
  private hi = 0xffffffff;
  private lo = 0xffffffff;
  private readonly t = crc64();
  update(buf: Uint8Array): void {
    const { hi: th, lo: tl } = this.t;
    let h = this.hi;
    let l = this.lo;
    for (let i = 0; i < buf.length; i++) {
      const idx = (l ^ buf[i]!) & 0xff;
      l = ((l >>> 8) | (h << 24)) ^ tl[idx]!;
      h = (h >>> 8) ^ th[idx]!;
    }
    this.hi = h >>> 0;
    this.lo = l >>> 0;
  }
  digest(): Buffer {
    const b = Buffer.alloc(8);
    b.writeUInt32BE((this.hi ^ 0xffffffff) >>> 0, 0);
    b.writeUInt32BE((this.lo ^ 0xffffffff) >>> 0, 4);
    return b;
  }
}

export function createChecksum(alg: ChecksumAlgorithm | 'MD5'): Checksum {
  switch (alg) {
    case 'CRC32':
      return new Crc32();
    case 'CRC32C':
      return new Crc32c();
    case 'CRC64NVME':
      return new Crc64Nvme();
    case 'SHA1':
      return new NodeHash('sha1');
    case 'SHA256':
      return new NodeHash('sha256');
    case 'MD5':
      return new NodeHash('md5');
  }
}

/** Checksum of the whole input, base64 as S3 writes it. */
export function checksumOf(alg: ChecksumAlgorithm, data: Uint8Array): string {
  const c = createChecksum(alg);
  c.update(data);
  return c.digest().toString('base64');
}

/**
 * S3's COMPOSITE checksum of a multipart object: the checksum of the concatenated part checksums,
 * suffixed with the part count. https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html#large-object-checksums
 */
export function compositeChecksum(alg: ChecksumAlgorithm, partChecksums: readonly string[]): string {
  const c = createChecksum(alg);
  for (const p of partChecksums) c.update(Buffer.from(p, 'base64'));
  return `${c.digest().toString('base64')}-${partChecksums.length}`;
}

/** True when `value` is base64 of exactly the digest length of `alg`. */
export function isWellFormedChecksum(alg: ChecksumAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  return Buffer.from(value, 'base64').length === CHECKSUM_BYTES[alg];
}
