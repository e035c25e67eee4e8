// Writes the entries of an archive read by tar.ts into a directory: files and directories as they
// are, a hard link as a copy of a file already written, nothing else. Shared by the model artifact
// cache (model.tar.gz) and script mode's source directories (sourcedir.tar.gz).

import { copyFile, mkdir, writeFile } from 'node:fs/promises';
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
export async function extractEntries(entries: ArchiveEntry[], dir: string): Promise<Extracted> {
  const files: string[] = [];
  const written = new Set<string>();
  const skipped: string[] = [];
  let totalBytes = 0;
  await mkdir(dir, { recursive: true });
  for (const e of entries) {
    if (e.path === '') continue;
    const target = join(dir, ...e.path.split('/'));
    if (e.type === 'directory') {
      await mkdir(target, { recursive: true });
    } else if (e.type === 'file' && e.data) {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, e.data, { mode: (e.mode & 0o755) | 0o600 });
      if (!written.has(e.path)) files.push(e.path);
      written.add(e.path);
      totalBytes += e.data.length;
      e.data = undefined;
    } else if (e.type === 'hardlink' && e.linkTarget !== undefined && written.has(e.linkTarget)) {
      await mkdir(dirname(target), { recursive: true });
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
