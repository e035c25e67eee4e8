// Host-side preparation of a job's directories: every entry of a tree handed to a job's uid, or
// made readable for a model, however large the tree; and the uids sandboxes run as, claimed
// host-wide.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chownTree, makeReadable, UidPool } from './host.js';

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

describe('sandbox uids on a host with several servers', () => {
  const range = { first: 1_900_000_100, last: 1_900_000_102 };

  it('two servers never hand out the same uid; a released uid goes to the other', () => {
    const claims = mkdtempSync(join(tmpdir(), 'slipway-uids-'));
    try {
      const a = new UidPool(range, claims);
      const b = new UidPool(range, claims);
      const held = [a.acquire(), a.acquire(), a.acquire()].sort();
      assert.deepEqual(held, [range.first, range.first + 1, range.first + 2]);
      assert.throws(() => b.acquire(), /every sandbox uid is in use/);
      a.release(range.first + 1);
      assert.equal(b.acquire(), range.first + 1);
      assert.throws(() => a.acquire(), /every sandbox uid is in use/, 'the other server holds it now');
    } finally {
      rmSync(claims, { recursive: true, force: true });
    }
  });

  it("takes over the claims of a server that is gone (kill -9), not a live one's", () => {
    const claims = mkdtempSync(join(tmpdir(), 'slipway-uids-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      writeFileSync(join(claims, String(range.first)), String(gone));
      writeFileSync(join(claims, String(range.first + 1)), String(process.ppid));
      writeFileSync(join(claims, String(range.first + 2)), String(process.ppid));
      const pool = new UidPool(range, claims);
      assert.equal(pool.acquire(), range.first);
      assert.equal(readFileSync(join(claims, String(range.first)), 'utf8'), String(process.pid));
      assert.throws(() => pool.acquire(), /every sandbox uid is in use/);
      pool.release(range.first);
      assert.equal(existsSync(join(claims, String(range.first))), false, 'a released uid leaves no claim');
    } finally {
      rmSync(claims, { recursive: true, force: true });
    }
  });
});
