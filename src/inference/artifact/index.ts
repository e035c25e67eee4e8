// Safe, in-memory readers for model artifacts (model.tar.gz), shared by every inference runtime.
export {
  ArchiveError,
  type ArchiveEntry,
  type ArchiveEntryHeader,
  type ArchiveEntryType,
  type ArchiveErrorCode,
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  isGzip,
  normaliseArchivePath,
  type ReadArchiveOptions,
  readTarGz,
  readTarGzSync,
} from './tar.js';
export { type Extracted, extractEntries } from './extract.js';
