// Packs a directory into a gzip-compressed tar, streamed, as SageMaker packs /opt/ml/model into
// model.tar.gz at the end of a training job (and a processing job's outputs where asked): regular
// files and directories in name order, paths relative to the directory, POSIX ustar with a pax
// record for names too long for ustar. https://pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip } from 'node:zlib';

const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, mode: number, mtime: number, type: '0' | '5' | 'x'): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(name, 0, 100, 'utf8');
  b.write(octal(mode & 0o7777, 8), 100, 'ascii');
  b.write(octal(0, 8), 108, 'ascii');
  b.write(octal(0, 8), 116, 'ascii');
  b.write(octal(size, 12), 124, 'ascii');
  b.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  b.fill(' ', 148, 156);
  b.write(type, 156, 'ascii');
  b.write('ustar\x0000', 257, 'binary');
  let sum = 0;
  for (const x of b) sum += x;
  b.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return b;
}

/** A pax extended header carrying `path` for a name longer than ustar's 100 bytes. */
function paxPath(path: string, mtime: number): Buffer[] {
  const body = (len: number) => `${len} path=${path}\n`;
  let len = Buffer.byteLength(body(0));
  while (Buffer.byteLength(body(len)) !== len) len = Buffer.byteLength(body(len));
  const data = Buffer.from(body(len));
  return [header('PaxHeader', data.length, 0o644, mtime, 'x'), data, Buffer.alloc(padding(data.length))];
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

async function* entries(
  root: string,
  rel = '',
): AsyncGenerator<{ rel: string; abs: string; dir: boolean; size: number; mode: number; mtime: number }> {
  const names = (await readdir(join(root, rel))).sort();
  for (const name of names) {
    const r = rel ? `${rel}/${name}` : name;
    const abs = join(root, r);
    const st = await lstat(abs);
    // Symlinks, sockets and devices are not packed: a model directory holds files.
    if (st.isDirectory()) {
      yield { rel: r, abs, dir: true, size: 0, mode: st.mode, mtime: st.mtimeMs };
      yield* entries(root, r);
    } else if (st.isFile()) yield { rel: r, abs, dir: false, size: st.size, mode: st.mode, mtime: st.mtimeMs };
  }
}

async function* tarStream(dir: string): AsyncGenerator<Buffer> {
  for await (const e of entries(dir)) {
    const name = e.dir ? `${e.rel}/` : e.rel;
    if (Buffer.byteLength(name) > 100) yield* paxPath(name, e.mtime);
    yield header(Buffer.byteLength(name) > 100 ? name.slice(0, 99) : name, e.size, e.mode, e.mtime, e.dir ? '5' : '0');
    if (e.dir) continue;
    let written = 0;
    for await (const chunk of createReadStream(e.abs)) {
      written += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (written !== e.size) throw new Error(`${e.rel} changed size while it was being packed`);
    yield Buffer.alloc(padding(e.size));
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** The directory's contents as a tar.gz stream. */
export function packDirectory(dir: string): Readable {
  return Readable.from(tarStream(dir)).pipe(createGzip());
}

/** Files held in memory (a training job's model file) as the bytes of a tar.gz, as packDirectory packs them. */
export async function packFiles(
  files: readonly { name: string; bytes: Uint8Array }[],
  mtime = Date.now(),
): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const f of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (Buffer.byteLength(f.name) > 100) parts.push(...paxPath(f.name, mtime));
    parts.push(
      header(Buffer.byteLength(f.name) > 100 ? f.name.slice(0, 99) : f.name, f.bytes.length, 0o644, mtime, '0'),
    );
    parts.push(
      Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength),
      Buffer.alloc(padding(f.bytes.length)),
    );
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return promisify(gzip)(Buffer.concat(parts));
}
