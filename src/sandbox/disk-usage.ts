// How much a job has written under its directories (/opt/ml and /tmp on disk): allocated blocks
// of every file, symbolic links not followed, walked without blocking the event loop. A walk
// stops counting past `maxEntries` (a job making millions of empty files is over its volume too).
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Usage {
  readonly bytes: number;
  readonly entries: number;
}

export async function diskUsage(roots: readonly string[], maxEntries = 1_000_000): Promise<Usage> {
  let bytes = 0;
  let entries = 0;
  const stack = [...roots];
  while (stack.length > 0 && entries <= maxEntries) {
    const dir = stack.pop()!;
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      continue;
    }
    for await (const d of handle) {
      entries++;
      const p = join(dir, d.name);
      try {
        const st = await lstat(p);
        bytes += st.blocks * 512;
        if (d.isDirectory()) stack.push(p);
      } catch {
        // removed meanwhile
      }
      if (entries > maxEntries) break;
    }
  }
  return { bytes, entries };
}
