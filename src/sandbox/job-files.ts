// Reading what a job left in its directory, as the server (root, possibly): never through a
// symbolic link the job planted (`ln -s /etc/shadow /opt/ml/output/failure`), never blocking on a
// FIFO, never more than asked for.
import { constants, createReadStream, openSync, type ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The first `maxBytes` of a regular file the job wrote, or '' when there is none (or it is not a file). */
export async function readJobFile(path: string, maxBytes = 64 * 1024): Promise<string> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(path, FLAGS);
    if (!(await fh.stat()).isFile()) return '';
    const buf = Buffer.alloc(maxBytes);
    const { bytesRead } = await fh.read(buf, 0, maxBytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await fh?.close();
  }
}

/** A stream of a file the job wrote, opened without following a symbolic link. */
export function jobFileStream(path: string): ReadStream {
  return createReadStream(path, { fd: openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW) });
}
