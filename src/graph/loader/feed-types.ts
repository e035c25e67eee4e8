// What a feed's loading shares with its load (load-jobs.ts): Neptune's error codes and counters,
// the options of a load, and the two ways a load stops.
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-status-response.html
import type { GraphWriter } from '../store/graph-store.js';
import type { IdFingerprints } from './id-fingerprints.js';

export type LoadErrorCode =
  | 'PARSING_ERROR'
  | 'FROM_OR_TO_VERTEX_ARE_MISSING'
  | 'ID_ASSIGNED_TO_MULTIPLE_EDGES'
  | 'SINGLE_CARDINALITY_VIOLATION'
  | 'S3_ACCESS_DENIED_ERROR'
  | 'FILE_MODIFICATION_OR_DELETION_ERROR'
  | 'INTERNAL_ERROR';

export interface LoadErrorLog {
  readonly errorCode: LoadErrorCode;
  readonly errorMessage: string;
  readonly fileName: string;
  /** Line of the record in its file (1 is the header); 0 when not about one record. */
  readonly recordNum: number;
}

/** Neptune's per-feed and overall counters; records are elements, labels and property values. */
export interface LoadCounters {
  totalRecords: number;
  totalDuplicates: number;
  parsingErrors: number;
  datatypeMismatchErrors: number;
  insertErrors: number;
}

export const zeroCounters = (): LoadCounters => ({
  totalRecords: 0,
  totalDuplicates: 0,
  parsingErrors: 0,
  datatypeMismatchErrors: 0,
  insertErrors: 0,
});

export interface FeedOptions {
  readonly failOnError: boolean;
  readonly updateSingleCardinalityProperties: boolean;
  /** parserConfiguration.allowEmptyStrings: load `""` as an empty string instead of no value. */
  readonly allowEmptyStrings: boolean;
}

/**
 * Thrown by a staged feed (see FeedLoader.staged) when its result could differ from the batch
 * path's: the caller rolls the file back and loads it again through the batch path.
 */
export class StagingAbandoned extends Error {
  /** The feed that gave up (set by the caller), to forget the vertex ids it remembered. */
  loader: { readonly remembered: readonly string[] } | undefined;
  constructor(readonly why: string) {
    super(`staged load abandoned: ${why}`);
  }
}

/** Thrown to stop a load: the first error under failOnError, or a cancellation. */
export class LoadStopped extends Error {
  constructor(readonly reason: 'error' | 'cancelled') {
    super(reason === 'error' ? 'load stopped on error' : 'load cancelled');
  }
}

export interface FeedContext {
  readonly writer: GraphWriter;
  readonly options: FeedOptions;
  /**
   * Vertices known to exist (written by this load or found in the store), id → vertex number:
   * spares lookups.
   */
  readonly knownVertices: Map<string, number>;
  /**
   * The staged path's check of edge ids while graph_edges_by_id is deferred (SQLite, a load into
   * an empty edge table): the ids this load inserted so far. Undefined when the index exists and
   * ON CONFLICT does the check.
   */
  readonly edgeIds: { ids: IdFingerprints | undefined };
  /**
   * The graph was empty when the load began (so every vertex in the store is one this load wrote,
   * remembered in knownVertices up to its limit).
   */
  readonly newGraph: boolean;
  /** In a new graph: the number the next vertex gets (the load numbers its vertices itself). */
  readonly vertexNumbers: { next: number };
  /** Counters of the feed and of the whole load, both updated. */
  readonly counters: readonly LoadCounters[];
  error(log: LoadErrorLog): void;
  /** Throws LoadStopped('cancelled') when the load was cancelled. */
  checkCancelled(): void;
}
