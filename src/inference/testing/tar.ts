// Builds small ustar archives (gzipped) for tests, including hostile ones the real tools refuse to write.

import { gzipSync } from 'node:zlib';

export interface TarEntry {
  readonly path: string;
  readonly data?: string | Uint8Array;
  readonly type?: 'file' | 'directory' | 'symlink';
  readonly linkTarget?: string;
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(e.path, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(e.type === 'directory' ? '5' : e.type === 'symlink' ? '2' : '0', 156);
  if (e.linkTarget) h.write(e.linkTarget, 157, 100, 'utf8');
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

export function makeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.data === undefined ? Buffer.alloc(0) : Buffer.from(e.data);
    parts.push(header(e, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function makeTarGz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(makeTar(entries));
}
