// Writes the entries of an archive read by tar.ts into a directory: files and directories as they
// are, a hard link as a copy of a file already written, nothing else. Shared by the model artifact
// cache (model.tar.gz) and script mode's source directories (sourcedir.tar.gz).

import { mkdirSync, writeFileSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ArchiveEntry } from './tar.js';

export interface Extracted {
  /** The regular files written, in archive order (each once). */
  readonly files: string[];
  readonly totalBytes: number;
  /** Links and special files that were not created. */
  readonly skipped: string[];
}

/**
 * Writes `entries` under `dir` (made if missing). Paths are normalised by the reader (no absolute
 * paths, no '..'); nothing written is a link, so no later entry can be redirected outside `dir`
 * through one. Each file's bytes are let go once on disk.
 */
/** Files up to this size are written synchronously (see extractEntries). */
const SYNC_FILE_BYTES = 64 * 1024;
/** Synchronous writes between two turns of the event loop. */
const SYNC_WRITES_PER_TURN = 64;

export async function extractEntries(entries: ArchiveEntry[], dir: string): Promise<Extracted> {
  const files: string[] = [];
  const written = new Set<string>();
  const skipped: string[] = [];
  let totalBytes = 0;
  // Directories and small files are made with synchronous calls (~20-50 µs each; an asynchronous
  // one is a round trip to libuv's thread pool, ~1 ms on a busy VM: a one-file source directory
  // took 3 ms of a job's start), giving the event loop a turn every SYNC_WRITES_PER_TURN of them;
  // larger files are written asynchronously.
  const made = new Set<string>();
  const ensureDir = (d: string) => {
    if (made.has(d)) return;
    mkdirSync(d, { recursive: true });
    made.add(d);
  };
  let syncWrites = 0;
  const turn = async () => {
    if (++syncWrites % SYNC_WRITES_PER_TURN === 0) await new Promise((r) => setImmediate(r));
  };
  ensureDir(dir);
  for (const e of entries) {
    if (e.path === '') continue;
    const target = join(dir, ...e.path.split('/'));
    if (e.type === 'directory') {
      ensureDir(target);
      await turn();
    } else if (e.type === 'file' && e.data) {
      ensureDir(dirname(target));
      const mode = (e.mode & 0o755) | 0o600;
      if (e.data.length <= SYNC_FILE_BYTES) {
        writeFileSync(target, e.data, { mode });
        await turn();
      } else {
        await writeFile(target, e.data, { mode });
      }
      if (!written.has(e.path)) files.push(e.path);
      written.add(e.path);
      totalBytes += e.data.length;
      e.data = undefined;
    } else if (e.type === 'hardlink' && e.linkTarget !== undefined && written.has(e.linkTarget)) {
      ensureDir(dirname(target));
      await copyFile(join(dir, ...e.linkTarget.split('/')), target);
      if (!written.has(e.path)) files.push(e.path);
      written.add(e.path);
    } else {
      // DEVIATION(aws): symbolic links and special files are not created (a chain of links can
      // escape the directory even when each target looks relative).
      skipped.push(e.path);
    }
  }
  return { files, totalBytes, skipped };
}
