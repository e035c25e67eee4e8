import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { test } from 'node:test';
import { readTarGz } from './tar.js';
import { packDirectory, packFiles } from './tar-writer.js';

test('a packed model directory reads back with our reader and with GNU tar', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-pack-'));
  try {
    writeFileSync(join(dir, 'xgboost-model'), Buffer.from([0, 1, 2, 255]));
    mkdirSync(join(dir, 'code/deep'), { recursive: true });
    const long = `${'n'.repeat(120)}.json`;
    writeFileSync(join(dir, 'code/deep', long), '{"a":1}');
    writeFileSync(join(dir, 'empty'), '');
    const gz = await buffer(packDirectory(dir));
    const files = (await readTarGz(gz)).filter((e) => e.type === 'file');
    assert.deepEqual(
      files.map((e) => [e.path, e.size]),
      [
        [`code/deep/${long}`, 7],
        ['empty', 0],
        ['xgboost-model', 4],
      ],
    );
    assert.deepEqual([...files[2]!.data!], [0, 1, 2, 255]);
    const listed = execFileSync('tar', ['-tzf', '-'], { input: gz }).toString().trim().split('\n');
    assert.ok(listed.includes(`code/deep/${long}`));
    assert.ok(listed.includes('xgboost-model'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files packed from memory read back as a packed directory of them does', async () => {
  const bytes = Uint8Array.from([9, 8, 7, 0, 255]);
  const long = `${'m'.repeat(110)}.bin`;
  const gz = await packFiles([
    { name: 'xgboost-model', bytes },
    { name: long, bytes: new Uint8Array(0) },
  ]);
  const files = (await readTarGz(gz)).filter((e) => e.type === 'file');
  assert.deepEqual(
    files.map((e) => [e.path, e.size]),
    [
      [long, 0],
      ['xgboost-model', 5],
    ],
  );
  assert.deepEqual([...files[1]!.data!], [...bytes]);
  const listed = execFileSync('tar', ['-tzf', '-'], { input: gz }).toString().trim().split('\n');
  assert.deepEqual(listed, [long, 'xgboost-model']);
});
