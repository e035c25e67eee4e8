// Model artifacts on local disk: fetched through the BlobStore, checked and unpacked safely, and
// cached by the SHA-256 of the archive so identical artifacts are stored (and unpacked) once.
// https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html#your-algorithms-inference-code-load-artifacts
//
// Layout under <dataDir>/models/:
//   <sha256>/model/...        the archive's regular files (what a container sees as /opt/ml/model)
//   <sha256>/manifest.json    regular files in archive order (the XGBoost container loads the first)
//   refs/<sha256(uri, etag, size)>   the digest last read for that object version: a redeploy of
//                             an unchanged object skips the download
// A new entry is written to a temporary directory and renamed into place, so a directory that
// exists is complete (also when several Slipway processes share the data directory).

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { BlobNotFoundError, type BlobStore, InvalidS3UriError } from '../storage/blobs/blob-store.js';
import {
  ArchiveError,
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  extractEntries,
  readTarGz,
} from './artifact/index.js';
import { DeploymentError } from './engine.js';

export interface CachedArtifact {
  /** sha256 of the archive as stored ('' for the empty model directory). */
  readonly digest: string;
  /** The unpacked model directory. */
  readonly dir: string;
  /** Regular files, '/'-separated paths relative to `dir`, in archive order. */
  readonly files: readonly string[];
  readonly totalBytes: number;
}

interface Manifest {
  files: string[];
  totalBytes: number;
  skipped: string[];
}

/** Default bounds: the archive reader keeps entries in memory while unpacking, so 1 GiB in all. */
export const DEFAULT_ARTIFACT_LIMITS: Required<ArchiveLimits> = {
  ...DEFAULT_ARCHIVE_LIMITS,
  maxTotalBytes: 1024 ** 3,
  maxEntryBytes: 1024 ** 3,
};

export class ArtifactCache {
  private readonly root: string;
  private readonly limits: Required<ArchiveLimits>;
  private readonly inflight = new Map<string, Promise<CachedArtifact>>();
  private readonly byDigest = new Map<string, CachedArtifact>();

  constructor(
    private readonly blobs: BlobStore,
    dataDir: string,
    limits: ArchiveLimits | undefined,
    private readonly log: Logger,
  ) {
    this.root = join(dataDir, 'models');
    this.limits = { ...DEFAULT_ARTIFACT_LIMITS, ...(limits ?? {}) };
  }

  /** An empty model directory, for images that carry their model. */
  async empty(): Promise<CachedArtifact> {
    const dir = join(this.root, 'empty', 'model');
    await mkdir(dir, { recursive: true });
    return { digest: '', dir, files: [], totalBytes: 0 };
  }

  /** Fetches, checks and unpacks `s3://…/model.tar.gz`, or returns the cached copy. */
  fetch(uri: string): Promise<CachedArtifact> {
    let p = this.inflight.get(uri);
    if (!p) {
      p = this.fetchOnce(uri).finally(() => this.inflight.delete(uri));
      this.inflight.set(uri, p);
    }
    return p;
  }

  private async fetchOnce(uri: string): Promise<CachedArtifact> {
    let info: Awaited<ReturnType<BlobStore['stat']>>;
    try {
      info = await this.blobs.stat(uri);
    } catch (e) {
      throw fetchError(uri, e);
    }
    if (!info) throw fetchError(uri, new BlobNotFoundError(uri, 'NoSuchKey'));
    const refFile = join(this.root, 'refs', sha256(`${uri}\n${info.etag}\n${info.size}`));
    const known = await readFile(refFile, 'utf8').catch(() => undefined);
    if (known && /^[0-9a-f]{64}$/.test(known)) {
      const cached = await this.lookup(known);
      if (cached) return cached;
    }
    if (info.size > this.limits.maxTotalBytes) {
      throw new DeploymentError(
        `Model data at "${uri}" is ${info.size} bytes, more than the ${this.limits.maxTotalBytes} bytes allowed.`,
      );
    }

    // Download to a temporary file while hashing: the digest decides whether to unpack at all,
    // and the compressed bytes never sit in memory.
    await mkdir(join(this.root, 'tmp'), { recursive: true });
    const tmpFile = join(this.root, 'tmp', `${randomBytes(8).toString('hex')}.download`);
    const hash = createHash('sha256');
    let downloaded = 0;
    const max = this.limits.maxTotalBytes;
    try {
      const body = await this.blobs.get(uri);
      await pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            downloaded += chunk.length;
            if (downloaded > max) {
              cb(new ArchiveError('limit', `model data is larger than ${max} bytes`));
              return;
            }
            hash.update(chunk);
            cb(null, chunk);
          },
        }),
        createWriteStream(tmpFile),
      );
      const digest = hash.digest('hex');
      const artifact = (await this.lookup(digest)) ?? (await this.unpack(uri, digest, tmpFile));
      await writeAtomically(refFile, digest);
      return artifact;
    } catch (e) {
      if (e instanceof DeploymentError) throw e;
      throw fetchError(uri, e);
    } finally {
      await rm(tmpFile, { force: true });
    }
  }

  private async lookup(digest: string): Promise<CachedArtifact | undefined> {
    const hit = this.byDigest.get(digest);
    if (hit) return hit;
    const dir = join(this.root, digest);
    try {
      const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
      const a: CachedArtifact = { digest, dir: join(dir, 'model'), files: m.files, totalBytes: m.totalBytes };
      this.byDigest.set(digest, a);
      return a;
    } catch {
      return undefined;
    }
  }

  private async unpack(uri: string, digest: string, archive: string): Promise<CachedArtifact> {
    let entries: Awaited<ReturnType<typeof readTarGz>>;
    try {
      entries = await readTarGz(createReadStream(archive), { limits: this.limits });
    } catch (e) {
      if (e instanceof ArchiveError) {
        throw new DeploymentError(
          `Failed to extract model data archive from URL "${uri}". Please ensure that the object located at the URL is a valid tar.gz archive: ${e.message}`,
        );
      }
      throw e;
    }
    const tmp = join(this.root, 'tmp', `${digest}.${randomBytes(6).toString('hex')}`);
    const modelDir = join(tmp, 'model');
    let skipped: string[] = [];
    try {
      const extracted = await extractEntries(entries, modelDir);
      skipped = extracted.skipped;
      const manifest: Manifest = extracted;
      await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest));
      try {
        await rename(tmp, join(this.root, digest));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw e;
        // another deployment (or process) unpacked the same artifact first
      }
    } catch (e) {
      throw new DeploymentError(
        `Failed to extract model data archive from URL "${uri}": ${(e as Error).message}`.slice(0, 1024),
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    if (skipped.length > 0) this.log.warn({ uri, skipped }, 'model archive links and special files were not unpacked');
    const a = await this.lookup(digest);
    if (!a) throw new DeploymentError(`Failed to extract model data archive from URL "${uri}".`);
    return a;
  }
}

function fetchError(uri: string, e: unknown): DeploymentError {
  if (e instanceof DeploymentError) return e;
  if (e instanceof ArchiveError) {
    return new DeploymentError(`Failed to download model data from URL "${uri}": ${e.message}`);
  }
  if (e instanceof BlobNotFoundError || e instanceof InvalidS3UriError) {
    return new DeploymentError(
      `Failed to download model data for container "primary" from URL "${uri}". Please ensure that there is an object located at the URL and that the role passed to CreateModel has permissions to download the object.`,
    );
  }
  return new DeploymentError(`Failed to download model data from URL "${uri}": ${(e as Error).message}`.slice(0, 1024));
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

async function writeAtomically(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}

/** Size of a file in the artifact, or undefined when absent. */
export async function fileSize(a: CachedArtifact, rel: string): Promise<number | undefined> {
  try {
    return (await stat(join(a.dir, ...rel.split('/')))).size;
  } catch {
    return undefined;
  }
}
