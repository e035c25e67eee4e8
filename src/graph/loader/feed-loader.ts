// Loads the records of one feed (one CSV file) into the graph store in batches, as the Neptune
// bulk loader does: duplicates merged and counted, set/single cardinality, edges checked against
// their endpoints, every error logged with its code, file and record number.
// https://docs.aws.amazon.com/neptune/latest/userguide/bulk-load-tutorial-format-gremlin.html
// https://docs.aws.amazon.com/neptune/latest/userguide/load-api-reference-status-response.html
import type { CsvField } from '../csv/csv-parser.js';
import type { FilePlan } from '../csv/headers.js';
import type { EdgeRow, NumberedEdge, PropRow } from '../store/graph-store.js';
import type { SqlValue } from '../../storage/db/types.js';
import { type PendingEdge, type PendingProp, type PendingVertex, RecordReader } from './feed-records.js';
import {
  type FeedContext,
  type LoadCounters,
  type LoadErrorCode,
  type LoadErrorLog,
  LoadStopped,
  StagingAbandoned,
} from './feed-types.js';

export {
  type FeedContext,
  type FeedOptions,
  type LoadCounters,
  type LoadErrorCode,
  type LoadErrorLog,
  LoadStopped,
  StagingAbandoned,
  zeroCounters,
} from './feed-types.js';

/** Rows collected before a flush; big enough to amortise statements, small enough for memory. */
export const BATCH_ROWS = 2000;
/** Background writes (see FeedLoader.#background) allowed to wait at a time, a few batches' worth. */
const MAX_BACKGROUND_WRITES = 6;
/** A staged feed with more errors than this falls back to the batch path. */
const MAX_HELD_ERRORS = 10_000;
/** Past this many remembered vertex ids, endpoints are looked up in the store instead. */
const MAX_KNOWN_VERTICES = 5_000_000;
/** Past this many edge ids checked in memory, the id index is built and checks the rest. */
const MAX_CHECKED_EDGE_IDS = 5_000_000;

/**
 * Two ways to load a file, with the same outcome:
 *
 * - the batch path (default): every BATCH_ROWS records are inserted with ON CONFLICT DO NOTHING,
 *   and the rows that were not new are looked up to count duplicates, merge properties and report
 *   conflicts, in file order;
 * - the staged path (edge files on SQLite, `staged`): edges that pass the endpoint check are
 *   appended to staging tables, and at the end of the file moved into the graph sorted by id.
 *   This is only the same as the batch path when every edge id of the file is new, so the
 *   move checks that (rows inserted = rows staged) and otherwise throws StagingAbandoned; so does
 *   the first error under failOnError (an earlier conflict might have come first). Errors are
 *   held back until the move succeeded, then reported in the order the batch path reports them.
 */
export class FeedLoader {
  readonly #reader: RecordReader;
  #vertices: PendingVertex[] = [];
  #vprops: PendingProp[] = [];
  #edges: PendingEdge[] = [];
  readonly #staged: boolean;
  #stagedEdges = 0;
  #insertedEdges = 0;
  #stagedProps = 0;
  readonly #heldErrors: LoadErrorLog[] = [];
  /** Writes sent and not yet answered (#background). */
  readonly #writes: Promise<void>[] = [];
  /** The batch being written while the next one is parsed (flushAhead). */
  #writing: Promise<void> | undefined;
  /** While a batch is written: errors of the records parsed meanwhile, reported after it. */
  #deferred: [LoadErrorCode, string, number, keyof LoadCounters][] | undefined;
  /** Vertex ids this feed added to ctx.knownVertices (forgotten again if the feed is rolled back). */
  readonly remembered: string[] = [];

  constructor(
    plan: FilePlan,
    private readonly fileName: string,
    private readonly ctx: FeedContext,
    staged = false,
  ) {
    this.#reader = new RecordReader(plan, ctx.options.allowEmptyStrings);
    this.#staged = staged && plan.element === 'edge';
  }

  get staged(): boolean {
    return this.#staged;
  }

  get pending(): number {
    return this.#vertices.length + this.#edges.length;
  }

  #count(field: keyof LoadCounters, n = 1): void {
    for (const c of this.ctx.counters) c[field] += n;
  }

  /** Logs an error and counts it; under failOnError this ends the load. */
  fail(errorCode: LoadErrorCode, errorMessage: string, recordNum: number, counter: keyof LoadCounters): void {
    if (this.#staged) {
      if (this.ctx.options.failOnError) throw new StagingAbandoned('an error under failOnError');
      // Held errors are memory the batch path would not use (it keeps the last 10,000).
      if (this.#heldErrors.length >= MAX_HELD_ERRORS) throw new StagingAbandoned('too many errors to hold back');
      this.#count(counter);
      this.#heldErrors.push({ errorCode, errorMessage, fileName: this.fileName, recordNum });
      return;
    }
    this.#count(counter);
    this.ctx.error({ errorCode, errorMessage, fileName: this.fileName, recordNum });
    if (this.ctx.options.failOnError) throw new LoadStopped('error');
  }

  /** A record the CSV grammar rejected (e.g. unbalanced quotes). */
  syntaxError(message: string, line: number): void {
    this.#recordFail('PARSING_ERROR', message, line, 'parsingErrors');
  }

  /** An error of a record being parsed: held back while the previous batch is being written. */
  #recordFail(errorCode: LoadErrorCode, errorMessage: string, recordNum: number, counter: keyof LoadCounters): void {
    if (this.#deferred) this.#deferred.push([errorCode, errorMessage, recordNum, counter]);
    else this.fail(errorCode, errorMessage, recordNum, counter);
  }

  /**
   * Starts writing the queued records and returns once the previous batch is written (its errors
   * reported), so the caller parses the next batch while this one is written: with the load's
   * transaction on a thread of its own (Database.threadTransaction), SQLite and the parsing run at
   * the same time. Errors of the records parsed meanwhile are held back and reported once the
   * batch before them is written, so errors come in the order of a load that parses after each
   * write, and under failOnError the same error ends it.
   */
  async flushAhead(): Promise<void> {
    await this.#settle();
    await this.#settleWrites(MAX_BACKGROUND_WRITES);
    this.#deferred = [];
    const writing = this.flush();
    // Its failure is thrown by the next #settle (or dropped by drain).
    writing.catch(() => {});
    this.#writing = writing;
  }

  /** Waits for the batch being written, then reports the errors held back meanwhile. */
  async #settle(): Promise<void> {
    const writing = this.#writing;
    this.#writing = undefined;
    try {
      await writing;
    } catch (err) {
      this.#deferred = undefined;
      throw err;
    }
    const held = this.#deferred ?? [];
    this.#deferred = undefined;
    for (const [code, message, line, counter] of held) this.fail(code, message, line, counter);
  }

  /** After a failure: waits for the batch being written to end, whatever its outcome. */
  async drain(): Promise<void> {
    const writing = this.#writing;
    this.#writing = undefined;
    this.#deferred = undefined;
    await writing?.catch(() => {});
    for (const w of this.#writes.splice(0)) await w.catch(() => {});
  }

  /** Parses one data record and queues it for the next flush. */
  record(fields: CsvField[], line: number): void {
    const r = this.#reader.read(fields, line);
    if ('errorCode' in r) {
      this.#recordFail(r.errorCode, r.errorMessage, line, r.counter);
      return;
    }
    if ('from' in r) {
      this.#edges.push(r);
      this.#count('totalRecords', 1 + r.props.length);
      return;
    }
    this.#vertices.push(r);
    for (const p of r.props) this.#vprops.push(p);
    this.#count('totalRecords', Math.max(r.labels.length, 1) + r.props.length);
  }

  /** Writes the queued records. */
  async flush(): Promise<void> {
    this.ctx.checkCancelled();
    if (this.#vertices.length > 0) await this.#flushVertices();
    if (this.#edges.length > 0) {
      if (this.#staged) await this.#stageEdges();
      else await this.#flushEdges();
    }
  }

  /**
   * Writes whose answer only counts (rows inserted) are not waited for: the next batch is prepared
   * and sent while SQLite works on them; a read sent later is answered after them (a connection
   * runs its statements in order). At most MAX_BACKGROUND_WRITES wait at a time.
   */
  #background<T>(writing: Promise<T>, done: (result: T) => void): void {
    const counted = writing.then(done);
    counted.catch(() => {});
    this.#writes.push(counted);
  }

  /** Waits until at most `max` background writes are pending; throws the first one's failure. */
  async #settleWrites(max: number): Promise<void> {
    while (this.#writes.length > max) await this.#writes.shift();
  }

  /** Ends the file: flushes, and on the staged path moves the staged rows into the graph. */
  async finish(): Promise<void> {
    await this.#settle();
    await this.flush();
    await this.#settleWrites(0);
    if (!this.#staged) return;
    const w = this.ctx.writer;
    if (this.#insertedEdges !== this.#stagedEdges) throw new StagingAbandoned('an edge id that is not new');
    if (this.#stagedProps > 0) {
      const props = await w.commitStagedEdgeProps();
      this.#count('totalDuplicates', this.#stagedProps - props);
    }
    for (const e of this.#heldErrors) this.ctx.error(e);
  }

  #remember(id: string, vnum: number): void {
    const known = this.ctx.knownVertices;
    if (known.size < MAX_KNOWN_VERTICES && !known.has(id)) {
      known.set(id, vnum);
      if (this.#staged) this.remembered.push(id);
    }
  }

  /**
   * Endpoint check as in #flushEdges, then the edges are appended to graph_edges and their
   * properties to staging. Edge ids are checked by the id index (ON CONFLICT: rows inserted fall
   * short of rows staged) or, while that index is deferred, against the ids this load inserted.
   */
  async #stageEdges(): Promise<void> {
    const edges = this.#edges;
    this.#edges = [];
    const w = this.ctx.writer;
    const known = this.ctx.knownVertices;
    // Edges whose endpoints are both known need no second look.
    const unknown = new Set<string>();
    const check: boolean[] = new Array(edges.length).fill(false);
    // Files tend to list a vertex's edges together: its id is looked up once per run.
    // Endpoints by vertex number (undefined: not known yet).
    const fromV: (number | undefined)[] = new Array(edges.length);
    const toV: (number | undefined)[] = new Array(edges.length);
    let lastFrom: string | undefined;
    let lastFromV: number | undefined;
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i]!;
      if (e.from !== lastFrom) {
        lastFrom = e.from;
        lastFromV = known.get(e.from);
      }
      const f = lastFromV;
      const t = known.get(e.to);
      fromV[i] = f;
      toV[i] = t;
      if (f !== undefined && t !== undefined) continue;
      check[i] = true;
      if (f === undefined) unknown.add(e.from);
      if (t === undefined) unknown.add(e.to);
    }
    const found = unknown.size > 0 ? await w.existingVertices([...unknown]) : new Map<string, number>();
    for (const [id, vnum] of found) this.#remember(id, vnum);
    // Sized once (pushing into an empty array copies it over and over as it grows).
    const rows = new Array<SqlValue>(4 * edges.length);
    let r = 0;
    const props: SqlValue[] = [];
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i]!;
      const f = check[i] ? (fromV[i] ?? found.get(e.from)) : fromV[i];
      const t = check[i] ? (toV[i] ?? found.get(e.to)) : toV[i];
      if (f === undefined || t === undefined) {
        this.fail(
          'FROM_OR_TO_VERTEX_ARE_MISSING',
          `Either from vertex, '${e.from}', or to vertex, '${e.to}', is not present.`,
          e.line,
          'insertErrors',
        );
        continue;
      }
      rows[r++] = e.id;
      rows[r++] = e.label;
      rows[r++] = f;
      rows[r++] = t;
      for (const p of e.props) props.push(p.owner, p.name, p.type, p.value, p.num);
    }
    rows.length = r;
    // "Maybe seen" (a repeat, or a fingerprint collision) takes the exact batch path.
    if (this.ctx.edgeIds.ids?.addAllNew(rows, 0, 4) === false) {
      throw new StagingAbandoned('an edge id that may not be new');
    }
    this.#stagedEdges += rows.length / 4;
    this.#stagedProps += props.length / 5;
    if (rows.length > 0) {
      this.#background(w.appendEdges(rows), (n) => {
        this.#insertedEdges += n;
      });
    }
    if (props.length > 0) this.#background(w.stageProps(props), () => {});
    if ((this.ctx.edgeIds.ids?.size ?? 0) > MAX_CHECKED_EDGE_IDS) {
      // Every id so far is unique, so the index builds; from here on ON CONFLICT checks.
      await w.ensureEdgeIdIndex();
      this.ctx.edgeIds.ids = undefined;
    }
  }

  async #flushVertices(): Promise<void> {
    const vertices = this.#vertices;
    const vprops = this.#vprops;
    this.#vertices = [];
    this.#vprops = [];
    const w = this.ctx.writer;
    const ids = [...new Set(vertices.map((v) => v.id))];
    const created = new Set<string>();
    // Every vertex of the batch by number, for the rows that refer to it.
    const vnums = new Map<string, number>();
    const known = this.ctx.knownVertices;
    if (this.ctx.newGraph && known.size + ids.length <= MAX_KNOWN_VERTICES) {
      // Every vertex in the store was written by this load and is remembered: the new ones are
      // those not known; the load numbers them itself, so the insert needs no answer before the
      // next batch.
      const rows: SqlValue[] = [];
      for (const id of ids) {
        let vnum = known.get(id);
        if (vnum === undefined) {
          vnum = this.ctx.vertexNumbers.next++;
          created.add(id);
          rows.push(vnum, id);
          // Remembered here (the check above allows it): one lookup in a map of every vertex is a
          // cache miss or more, and #remember would look again.
          known.set(id, vnum);
        }
        vnums.set(id, vnum);
      }
      const expected = created.size;
      if (expected > 0) {
        this.#background(w.insertNumberedVertices(rows), (n) => {
          if (n !== expected) throw new Error(`graph loader: ${n} vertices were new where ${expected} were expected`);
        });
      }
    } else {
      const made = await w.insertVertices(ids);
      const unknown: string[] = [];
      for (const id of ids) {
        const vnum = made.get(id) ?? known.get(id);
        if (made.has(id)) created.add(id);
        if (vnum === undefined) unknown.push(id);
        else vnums.set(id, vnum);
      }
      if (unknown.length > 0) for (const [id, vnum] of await w.existingVertices(unknown)) vnums.set(id, vnum);
      for (const id of ids) this.#remember(id, vnums.get(id)!);
    }

    // Labels: a vertex without ~label gets Neptune's default `vertex`, but only when it is new.
    const explicit = new Set<string>();
    const pairs: [number, string][] = [];
    for (const v of vertices) {
      if (v.labels.length > 0) {
        explicit.add(v.id);
        for (const l of v.labels) pairs.push([vnums.get(v.id)!, l]);
      }
    }
    let defaultDuplicates = 0;
    for (const v of vertices) {
      if (v.labels.length > 0) continue;
      if (created.has(v.id) && !explicit.has(v.id)) {
        pairs.push([vnums.get(v.id)!, 'vertex']);
        explicit.add(v.id);
      } else {
        defaultDuplicates++;
      }
    }
    // Sent with the properties, answered after them (one round trip to a thread connection).
    const labelsWritten = w.insertLabels(pairs);
    labelsWritten.catch(() => {});

    // No id twice in the batch: each owner's values come from one record, whose column names are unique.
    await this.#writeProps(vprops, created, vnums, ids.length === vertices.length);
    const newLabels = await labelsWritten;
    this.#count('totalDuplicates', pairs.length - newLabels + defaultDuplicates);
  }

  /**
   * Set values are inserted, identical ones counted as duplicates. A single-cardinality value
   * replaces nothing unless updateSingleCardinalityProperties; a different existing value is a
   * SINGLE_CARDINALITY_VIOLATION.
   */
  async #writeProps(
    props: readonly PendingProp[],
    created: ReadonlySet<string>,
    /** Vertex properties: their owners' numbers; edge properties: undefined. */
    vnums: ReadonlyMap<string, number> | undefined,
    ownersOnce = false,
  ): Promise<void> {
    const element = vnums ? 'vertex' : 'edge';
    if (props.length === 0) return;
    const w = this.ctx.writer;
    const direct: PendingProp[] = [];
    const checked: PendingProp[] = [];
    const seenSingle = new Set<string>();
    for (const p of props) {
      if (!p.single) {
        direct.push(p);
        continue;
      }
      if (ownersOnce) {
        if (created.has(p.owner)) direct.push(p);
        else checked.push(p);
        continue;
      }
      const key = `${p.owner}\u0000${p.name}`;
      // Fast path: a new element's first value for this name cannot conflict with anything.
      if (created.has(p.owner) && !seenSingle.has(key)) direct.push(p);
      else checked.push(p);
      seenSingle.add(key);
    }
    if (direct.length > 0) {
      const inserting = vnums ? w.insertVertexProps(direct, vnums) : w.insertEdgeProps(direct);
      // The count, not the rows: a callback holding them keeps them alive until the write is done.
      const count = direct.length;
      this.#background(inserting, (inserted) => this.#count('totalDuplicates', count - inserted));
    }
    if (checked.length === 0) return;
    const existing = vnums
      ? await w.vertexPropsOf(
          checked.map((p) => p.owner),
          checked.map((p) => p.name),
          vnums,
        )
      : await w.edgePropsOf(
          checked.map((p) => p.owner),
          checked.map((p) => p.name),
        );
    const current = new Map<string, PropRow[]>();
    for (const r of existing) {
      const key = `${r.owner}\u0000${r.name}`;
      const list = current.get(key);
      if (list) list.push(r);
      else current.set(key, [r]);
    }
    const toWrite = new Map<string, PendingProp>();
    for (const p of checked) {
      const key = `${p.owner}\u0000${p.name}`;
      const now = toWrite.get(key) ? [toWrite.get(key)!] : (current.get(key) ?? []);
      if (now.length === 1 && now[0]!.type === p.type && now[0]!.value === p.value) {
        this.#count('totalDuplicates');
        continue;
      }
      if (now.length === 0 || this.ctx.options.updateSingleCardinalityProperties) {
        if (now.length > 0 && !toWrite.has(key)) {
          if (vnums) await w.deleteVertexProp(vnums.get(p.owner)!, p.name);
          else await w.deleteEdgeProp(p.owner, p.name);
        }
        toWrite.set(key, p);
        continue;
      }
      this.fail(
        'SINGLE_CARDINALITY_VIOLATION',
        `${element === 'vertex' ? 'Vertex' : 'Edge'} '${p.owner}' already has a different value for single-cardinality property '${p.name}'`,
        p.line,
        'insertErrors',
      );
    }
    const rows = [...toWrite.values()];
    if (rows.length > 0) {
      if (vnums) await w.insertVertexProps(rows, vnums);
      else await w.insertEdgeProps(rows);
    }
  }

  async #flushEdges(): Promise<void> {
    const edges = this.#edges;
    this.#edges = [];
    const w = this.ctx.writer;
    const known = this.ctx.knownVertices;
    const unknown = new Set<string>();
    for (const e of edges) {
      if (!known.has(e.from)) unknown.add(e.from);
      if (!known.has(e.to)) unknown.add(e.to);
    }
    const found = unknown.size > 0 ? await w.existingVertices([...unknown]) : new Map<string, number>();
    for (const [id, vnum] of found) this.#remember(id, vnum);
    const vnumOf = (id: string) => known.get(id) ?? found.get(id);

    const first = new Map<string, PendingEdge>();
    const valid: PendingEdge[] = [];
    const numbered: NumberedEdge[] = [];
    const repeats: PendingEdge[] = [];
    for (const e of edges) {
      const fromV = vnumOf(e.from);
      const toV = vnumOf(e.to);
      if (fromV === undefined || toV === undefined) {
        this.fail(
          'FROM_OR_TO_VERTEX_ARE_MISSING',
          `Either from vertex, '${e.from}', or to vertex, '${e.to}', is not present.`,
          e.line,
          'insertErrors',
        );
        continue;
      }
      if (first.has(e.id)) repeats.push(e);
      else {
        first.set(e.id, e);
        valid.push(e);
        numbered.push({ id: e.id, label: e.label, fromV, toV });
      }
    }
    const created = await w.insertEdges(numbered);
    const notCreated = [...valid.filter((e) => !created.has(e.id)), ...repeats];
    const stored =
      notCreated.length > 0
        ? await w.edgesById(notCreated.filter((e) => !created.has(e.id)).map((e) => e.id))
        : new Map<string, EdgeRow>();
    const props: PendingProp[] = [];
    for (const e of valid) if (created.has(e.id)) props.push(...e.props);
    for (const e of notCreated) {
      const s = stored.get(e.id) ?? first.get(e.id)!;
      if (s.label !== e.label || s.from !== e.from || s.to !== e.to) {
        this.fail(
          'ID_ASSIGNED_TO_MULTIPLE_EDGES',
          `Edge id '${e.id}' is already assigned to a different edge`,
          e.line,
          'insertErrors',
        );
        continue;
      }
      this.#count('totalDuplicates');
      // Same edge again: its properties merge under the single-cardinality rules.
      props.push(...e.props.map((p) => ({ ...p, single: true })));
    }
    // Properties of an edge created in this batch go straight in unless it repeats in the batch.
    const repeated = new Set(repeats.map((e) => e.id));
    const createdOnce = new Set([...created].filter((id) => !repeated.has(id)));
    await this.#writeProps(props, createdOnce, undefined);
  }
}
