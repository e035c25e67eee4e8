import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ArchiveError, type ArchiveErrorCode, readTarGz, readTarGzSync } from './index.js';

interface TarItem {
  name: string;
  data?: Uint8Array | string;
  type?: string; // typeflag character
  linkname?: string;
  size?: number; // override the declared size
  sizeBase256?: boolean;
}

function header(name: string, size: number, type: string, linkname = '', base256 = false): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, at: number, n: number): void => {
    const b = Buffer.from(s, 'utf8');
    h.set(b.subarray(0, n), at);
  };
  put(name, 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  if (base256) {
    h[124] = 0x80;
    let v = BigInt(size);
    for (let i = 135; i > 124; i--) {
      h[i] = Number(v & 0xffn);
      v >>= 8n;
    }
  } else put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  put('00000000000\0', 136, 12);
  put(type, 156, 1);
  put(linkname, 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

function tar(items: TarItem[], end = true): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const it of items) {
    const data = typeof it.data === 'string' ? Buffer.from(it.data) : (it.data ?? new Uint8Array(0));
    parts.push(header(it.name, it.size ?? data.length, it.type ?? '0', it.linkname, it.sizeBase256));
    parts.push(data);
    const pad = (512 - (data.length % 512)) % 512;
    parts.push(new Uint8Array(pad));
  }
  if (end) parts.push(new Uint8Array(1024));
  return Buffer.concat(parts);
}

function pax(records: Record<string, string>): string {
  let out = '';
  for (const [k, v] of Object.entries(records)) {
    const body = ` ${k}=${v}\n`;
    const bytes = (s: string): number => Buffer.byteLength(s);
    let len = bytes(body) + 1;
    while (bytes(`${len}${body}`) !== len) len = bytes(`${len}${body}`);
    out += `${len}${body}`;
  }
  return out;
}

function archiveError(fn: () => unknown, code: ArchiveErrorCode, message?: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ArchiveError, String(e));
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

async function archiveErrorAsync(p: Promise<unknown>, code: ArchiveErrorCode): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ArchiveError, String(e));
    assert.equal(e.code, code, e.message);
    return true;
  });
}

describe('readTarGz', () => {
  test('reads files and directories from gzip and plain tar, normalising ./ prefixes', async () => {
    const t = tar([
      { name: './', type: '5' },
      { name: './xgboost-model', data: 'model bytes' },
      { name: 'code/inference.py', data: 'print(1)' },
    ]);
    for (const input of [t, gzipSync(t)]) {
      const entries = readTarGzSync(input);
      assert.deepEqual(
        entries.map((e) => [e.path, e.type, e.size]),
        [
          ['', 'directory', 0],
          ['xgboost-model', 'file', 11],
          ['code/inference.py', 'file', 8],
        ],
      );
      assert.equal(Buffer.from(entries[1].data!).toString(), 'model bytes');
      const again = await readTarGz(input);
      assert.deepEqual(
        again.map((e) => [e.path, e.data && Buffer.from(e.data).toString()]),
        entries.map((e) => [e.path, e.data && Buffer.from(e.data).toString()]),
      );
    }
  });

  test('streams in small chunks and only buffers selected entries', async () => {
    const big = new Uint8Array(200_000).fill(7);
    const gz = gzipSync(
      tar([
        { name: 'skip.bin', data: big },
        { name: 'keep', data: 'yes' },
      ]),
    );
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < gz.length; i += 100) chunks.push(gz.subarray(i, i + 100));
    const entries = await readTarGz(Readable.from(chunks), { select: (e) => e.path === 'keep' });
    assert.equal(entries[0].data, undefined);
    assert.equal(Buffer.from(entries[1].data!).toString(), 'yes');
  });

  test('GNU long names and pax paths/sizes', () => {
    const long = `${'d/'.repeat(80)}xgboost-model`;
    const t = tar([
      { name: '././@LongLink', type: 'L', data: `${long}\0` },
      { name: 'truncated', data: 'one' },
      { name: 'PaxHeaders/x', type: 'x', data: pax({ path: 'ünïcode/model', size: '3' }) },
      { name: 'ignored', data: 'two', size: 3 },
    ]);
    const e = readTarGzSync(t);
    assert.deepEqual(
      e.map((x) => x.path),
      [long, 'ünïcode/model'],
    );
    assert.equal(Buffer.from(e[1].data!).toString(), 'two');
  });

  test('base-256 sizes are read, and absurd ones refused', () => {
    assert.equal(readTarGzSync(tar([{ name: 'a', data: 'xyz', sizeBase256: true }]))[0].size, 3);
    archiveError(
      () => readTarGzSync(tar([{ name: 'a', data: 'xyz', size: 10 * 1024 ** 3, sizeBase256: true }])),
      'limit',
      /declares/,
    );
  });

  test('refuses ../ paths, absolute paths and drive letters', () => {
    archiveError(() => readTarGzSync(tar([{ name: '../evil', data: 'x' }])), 'unsafe-path', /escapes/);
    archiveError(() => readTarGzSync(tar([{ name: 'a/../../evil', data: 'x' }])), 'unsafe-path');
    archiveError(() => readTarGzSync(tar([{ name: '/etc/passwd', data: 'x' }])), 'unsafe-path', /absolute/);
    archiveError(() => readTarGzSync(tar([{ name: 'C:\\x', data: 'x' }])), 'unsafe-path');
    archiveError(
      () =>
        readTarGzSync(
          tar([
            { name: 'PaxHeaders/x', type: 'x', data: pax({ path: '../../x' }) },
            { name: 'ok', data: 'x' },
          ]),
        ),
      'unsafe-path',
    );
  });

  test("takes the root directory written as '/' (the SageMaker Python SDK's repacked model.tar.gz) as the root", () => {
    const entries = readTarGzSync(
      tar([
        { name: '/', type: '5' },
        { name: 'code/', type: '5' },
        { name: 'code/inference.py', data: 'def model_fn(d): pass' },
        { name: 'model.pt', data: 'x' },
      ]),
    );
    assert.deepEqual(
      entries.map((e) => [e.path, e.type]),
      [
        ['', 'directory'],
        ['code', 'directory'],
        ['code/inference.py', 'file'],
        ['model.pt', 'file'],
      ],
    );
    archiveError(
      () =>
        readTarGzSync(
          tar([
            { name: '/', type: '5' },
            { name: '/etc/passwd', data: 'x' },
          ]),
        ),
      'unsafe-path',
    );
  });

  test('reports links inside the archive and refuses links that escape it', () => {
    const ok = readTarGzSync(
      tar([
        { name: 'a/model', data: 'x' },
        { name: 'a/link', type: '2', linkname: 'model' },
        { name: 'hard', type: '1', linkname: 'a/model' },
      ]),
    );
    assert.deepEqual(
      ok.map((e) => [e.path, e.type, e.linkTarget, e.data === undefined]),
      [
        ['a/model', 'file', undefined, false],
        ['a/link', 'symlink', 'model', true],
        ['hard', 'hardlink', 'a/model', true],
      ],
    );
    archiveError(() => readTarGzSync(tar([{ name: 'l', type: '2', linkname: '/etc/passwd' }])), 'unsafe-path');
    archiveError(() => readTarGzSync(tar([{ name: 'a/l', type: '2', linkname: '../../x' }])), 'unsafe-path');
    archiveError(() => readTarGzSync(tar([{ name: 'h', type: '1', linkname: '../x' }])), 'unsafe-path');
  });

  test('decompression bombs stop at the limits, with bounded memory', async () => {
    const zeros = new Uint8Array(64 * 1024 * 1024);
    const bomb = gzipSync(tar([{ name: 'bomb', data: zeros }]), { level: 9 });
    assert.ok(bomb.length < 200_000);
    archiveError(() => readTarGzSync(bomb), 'limit', /ratio|more than/);
    await archiveErrorAsync(readTarGz(bomb), 'limit');
    archiveError(() => readTarGzSync(bomb, { limits: { maxRatio: 1e9, maxTotalBytes: 1024 * 1024 } }), 'limit');
    await archiveErrorAsync(readTarGz(bomb, { limits: { maxRatio: 1e9, maxTotalBytes: 1024 * 1024 } }), 'limit');
    // an entry over the per-entry limit is refused before it is buffered
    archiveError(
      () => readTarGzSync(tar([{ name: 'm', data: 'x'.repeat(5000) }]), { limits: { maxEntryBytes: 4096 } }),
      'limit',
    );
  });

  test('entry count limit', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, data: 'x' }));
    archiveError(() => readTarGzSync(tar(items), { limits: { maxEntries: 10 } }), 'limit', /more than 10 entries/);
  });

  test('truncated, corrupt and non-archive inputs', async () => {
    const t = tar([{ name: 'model', data: 'x'.repeat(2000) }]);
    archiveError(() => readTarGzSync(t.subarray(0, 1000)), 'truncated');
    archiveError(() => readTarGzSync(t.subarray(0, 300)), 'truncated');
    const gz = gzipSync(t);
    archiveError(() => readTarGzSync(gz.subarray(0, gz.length - 30)), 'corrupt');
    await archiveErrorAsync(readTarGz(gz.subarray(0, gz.length - 30)), 'corrupt');
    const bad = new Uint8Array(t);
    bad[10] ^= 0xff; // breaks the header checksum
    archiveError(() => readTarGzSync(bad), 'not-archive');
    archiveError(() => readTarGzSync(Buffer.from('{"learner": {}}'.padEnd(1024, ' '))), 'not-archive');
    archiveError(() => readTarGzSync(new Uint8Array(0)), 'not-archive');
    archiveError(() => readTarGzSync(new Uint8Array(1024)), 'not-archive');
  });
});
