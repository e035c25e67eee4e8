// Host-side preparation of a job's directories: every entry of a tree handed to a job's uid, or
// made readable for a model, however large the tree.
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chownTree, makeReadable } from './host.js';

/** A tree of `dirs` nested directories with `files` files each, plus a symbolic link out of it. */
function tree(dirs: number, files: number): { root: string; paths: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'slipway-host-'));
  const paths: string[] = [];
  let d = root;
  for (let i = 0; i < dirs; i++) {
    d = join(d, `d${i}`);
    mkdirSync(d);
    paths.push(d);
    for (let f = 0; f < files; f++) {
      const p = join(d, `f${f}`);
      writeFileSync(p, 'x');
      chmodSync(p, 0o600);
      paths.push(p);
    }
  }
  symlinkSync('/etc/hostname', join(root, 'link'));
  return { root, paths };
}

const isRoot = process.getuid?.() === 0;

describe('sandbox host preparation', () => {
  // 3 entries, then 3 × 41 + 1 = 124 and 6 × 101 + 1 = 607 (past the synchronous part of the walk).
  for (const [dirs, files] of [
    [1, 2],
    [3, 40],
    [6, 100],
  ] as const) {
    it(`chownTree gives every entry of a ${dirs}-level tree of ${dirs * (files + 1) + 1} entries to the uid`, {
      skip: isRoot ? false : 'changing owners needs root',
    }, async () => {
      const { root, paths } = tree(dirs, files);
      try {
        await chownTree(root, 1_900_000_123, 1_900_000_124);
        for (const p of [root, ...paths, join(root, 'link')]) {
          const st = lstatSync(p);
          assert.equal(st.uid, 1_900_000_123, p);
          assert.equal(st.gid, 1_900_000_124, p);
        }
        // The link itself changed owner, not what it points at.
        assert.equal(lstatSync('/etc/hostname').uid, 0);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }

  it('makeReadable opens every file and directory of a large tree to other uids', async () => {
    const { root, paths } = tree(6, 100);
    try {
      await makeReadable(root);
      for (const p of paths) {
        const st = lstatSync(p);
        assert.equal(st.mode & 0o444, 0o444, p);
        if (st.isDirectory()) assert.equal(st.mode & 0o555, 0o555, p);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
