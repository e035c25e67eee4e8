// Picks the model file out of a SageMaker model.tar.gz the way the XGBoost container does: it
// extracts the archive into the model directory and loads the first regular, non-dot file at the
// top level (os.listdir order). Training jobs write a single `xgboost-model`; we prefer that name,
// then fall back to the first top-level regular file in archive order.

import {
  type ArchiveEntry,
  type ArchiveEntryHeader,
  type ArchiveLimits,
  readTarGz,
  readTarGzSync,
} from '../../artifact/index.js';
import { XGBoostModelError } from './errors.js';

export const XGBOOST_MODEL_FILE = 'xgboost-model';

export interface ExtractedModel {
  /** path of the chosen file inside the archive */
  name: string;
  bytes: Uint8Array;
}

const isCandidate = (e: ArchiveEntryHeader): boolean =>
  e.type === 'file' && !e.path.includes('/') && !e.path.startsWith('.');

function choose(entries: ArchiveEntry[]): ExtractedModel {
  const files = entries.filter((e) => isCandidate(e) && e.data !== undefined);
  const chosen = files.find((e) => e.path === XGBOOST_MODEL_FILE) ?? files[0];
  if (!chosen?.data) {
    throw new XGBoostModelError('model archive has no model file at its top level (expected xgboost-model)');
  }
  return { name: chosen.path, bytes: chosen.data };
}

/** Extract the model file from a model.tar.gz (bytes or stream), enforcing the archive limits. */
export async function extractModelFromTarGz(
  input: Uint8Array | AsyncIterable<Uint8Array> | NodeJS.ReadableStream,
  limits?: ArchiveLimits,
): Promise<ExtractedModel> {
  return choose(await readTarGz(input, { limits, select: isCandidate }));
}

/** Synchronous variant for archives already in memory. */
export function extractModelFromTarGzSync(input: Uint8Array, limits?: ArchiveLimits): ExtractedModel {
  return choose(readTarGzSync(input, { limits, select: isCandidate }));
}
