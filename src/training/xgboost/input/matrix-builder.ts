// Accumulates parsed rows into the trainer's dense float32 DMatrix without knowing the row count
// or the width in advance, and without copying: every growing array lives in a resizable
// ArrayBuffer (ES2024; V8 reserves the address range and commits pages as it grows, so growing
// never copies and the final matrix is the buffer itself, shrunk to size). Peak memory is the
// matrix plus one growth step for CSV; for libsvm the (column, value) pairs until they are
// scattered into the matrix. A wider CSV row re-lays the rows out in place, from the last one back.
//
// The parsers (csv.ts, libsvm.ts) write straight into these arrays through fixed-length views,
// made again after each growth: V8 (Node 20) reads and writes a length-tracking view of a growable
// SharedArrayBuffer ~20× slower than a fixed-length one. A block parsed on another thread
// (blocks.ts) fills rows of its own, which are appended here in the channel's order.

import type { DMatrix } from '../types.js';
import { TrainingInputError } from './errors.js';

/** V8's limit for a resizable ArrayBuffer's maxByteLength (Node 20): 4 GiB. */
const MAX_BYTES = 2 ** 32;
const MIN_STEP = 1 << 20;

function tooLarge(what: string): never {
  throw new TrainingInputError(
    `the ${what} would exceed 4 GiB, the largest array this trainer holds; split the data or use fewer features`,
  );
}

// ES2024's resizable ArrayBuffer and growable SharedArrayBuffer (in Node 20), typed here because
// the project compiles with ES2023 libs.
interface ResizableArrayBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;
const GrowableShared = SharedArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => SharedArrayBuffer & { grow(byteLength: number): void };

/**
 * A typed array that grows in place, never copied. `shared`: in a SharedArrayBuffer, so the
 * training's threads read it where it is (a growable one cannot shrink: the unused tail of the last
 * growth step stays reserved address space, never touched). `data` is a fixed-length view of the
 * whole capacity, made again when the buffer grows.
 */
class Growable<T extends Float32Array | Uint32Array> {
  readonly buffer: ArrayBufferLike;
  /** grows (or, not shared, shrinks) the buffer to `bytes` */
  private readonly resize: (bytes: number) => void;
  data: T;
  length = 0;
  constructor(
    private readonly make: (b: ArrayBufferLike, n: number) => T,
    shared = false,
  ) {
    if (shared) {
      const sab = new GrowableShared(0, { maxByteLength: MAX_BYTES });
      this.buffer = sab;
      this.resize = (bytes) => {
        if (bytes > sab.byteLength) sab.grow(bytes);
      };
    } else {
      const ab = new Resizable(0, { maxByteLength: MAX_BYTES });
      this.buffer = ab;
      this.resize = (bytes) => ab.resize(bytes);
    }
    this.data = make(this.buffer, 0);
  }
  get capacity(): number {
    return this.data.length;
  }
  /** Make room for `n` elements in total (`data` is then a new view). */
  reserve(n: number, what: string): void {
    if (n <= this.data.length) return;
    const have = this.buffer.byteLength;
    if (n * 4 > MAX_BYTES) tooLarge(what);
    const bytes = Math.min(MAX_BYTES, Math.max(n * 4, have + Math.max(MIN_STEP, have >>> 2)));
    this.resize(bytes);
    this.data = this.make(this.buffer, this.buffer.byteLength >>> 2);
  }
  push(v: number, what: string): void {
    if (this.length === this.data.length) this.reserve(this.length + 1, what);
    this.data[this.length++] = v;
  }
  /** The first `length` elements, the buffer shrunk to them. */
  result(): T {
    this.resize(this.length * 4);
    return this.make(this.buffer, this.length);
  }
}

const f32 = (b: ArrayBufferLike, n: number): Float32Array => new Float32Array(b, 0, n);
const u32 = (b: ArrayBufferLike, n: number): Uint32Array => new Uint32Array(b, 0, n);

/** Labels and optional weights, one per row, shared by both builders. */
class RowMeta {
  readonly labels: Growable<Float32Array>;
  weights: Growable<Float32Array> | undefined;
  constructor(private readonly shared = false) {
    this.labels = new Growable(f32, shared);
  }
  get numRows(): number {
    return this.labels.length;
  }
  add(label: number, weight: number | undefined): void {
    this.labels.push(label, 'label vector');
    if (weight !== undefined) {
      this.weights ??= new Growable(f32, this.shared);
      this.weights.push(weight, 'weight vector');
    }
  }
  append(labels: Float32Array, weights: Float32Array | undefined): void {
    const at = this.labels.length;
    this.labels.reserve(at + labels.length, 'label vector');
    this.labels.data.set(labels, at);
    this.labels.length += labels.length;
    if (weights !== undefined) {
      this.weights ??= new Growable(f32, this.shared);
      const w = this.weights;
      w.reserve(w.length + weights.length, 'weight vector');
      w.data.set(weights, w.length);
      w.length += weights.length;
    }
  }
  /** the arrays as they are (a block's, sent to the thread that reads the channel) */
  snapshot(): { labels: Float32Array; weights: Float32Array | undefined } {
    return { labels: this.labels.result(), weights: this.weights?.result() };
  }
}

/** Where a parsing thread writes a block's rows: a window of the matrix (blocks.ts). */
export interface DenseWindowSpec {
  /** the matrix's buffers (growable SharedArrayBuffers, grown to hold the window before it is sent) */
  readonly cells: SharedArrayBuffer;
  readonly labels: SharedArrayBuffer;
  readonly weights: SharedArrayBuffer | undefined;
  readonly width: number;
  /** the window: rows rowStart .. rowStart + rows - 1 */
  readonly rowStart: number;
  readonly rows: number;
}

/** What the CSV parser writes rows into: the matrix itself, or a window of it on another thread. */
export interface DenseRows {
  readonly width: number;
  readonly numRows: number;
  /** valid until the next beginRow or widen */
  readonly cells: Float32Array;
  /** room for one more row at the current width */
  beginRow(): void;
  /** re-lay the rows (and the one being written) out `to` wide; false where it cannot */
  widen(to: number, partial: boolean): boolean;
  /** ends the row being written: its cells `filled`.. (up to the width) become missing */
  endRow(filled: number, label: number, weight: number | undefined): void;
  /** appends `rows` whole rows at the current width (no weights): their cells and labels */
  appendRows(cells: Float32Array, labels: Float32Array, rows: number): void;
}

/**
 * Dense rows of varying width (CSV): shorter rows are padded with NaN (missing). The parser
 * writes row `numRows` at `cells[numRows × width ..]` after `beginRow`, widens when a row
 * needs it, and ends it with `endRow`. The matrix is in shared memory, where the trainer's threads
 * read it (hist-team.ts) and where parsing threads write blocks of rows into windows of it.
 */
export class DenseBuilder implements DenseRows {
  private readonly meta = new RowMeta(true);
  private readonly store = new Growable(f32, true);
  width = 0;

  get numRows(): number {
    return this.meta.numRows;
  }

  get cells(): Float32Array {
    return this.store.data;
  }

  beginRow(): void {
    this.store.reserve((this.meta.numRows + 1) * this.width, 'feature matrix');
  }

  endRow(filled: number, label: number, weight: number | undefined): void {
    const w = this.width;
    if (filled < w) {
      const at = this.meta.numRows * w;
      this.store.data.fill(Number.NaN, at + filled, at + w);
    }
    this.meta.add(label, weight);
    this.store.length = this.meta.numRows * w;
  }

  appendRows(cells: Float32Array, labels: Float32Array, rows: number): void {
    const at = this.meta.numRows * this.width;
    this.store.reserve(at + rows * this.width, 'feature matrix');
    this.store.data.set(cells.subarray(0, rows * this.width), at);
    this.meta.append(labels.subarray(0, rows), undefined);
    this.store.length = this.meta.numRows * this.width;
  }

  /** Append one row: `width` values from values[0..width), NaN = missing. */
  addRow(values: Float32Array, width: number, label: number, weight: number | undefined): void {
    if (width > this.width) this.widen(width, false);
    this.beginRow();
    this.store.data.set(values.subarray(0, width), this.meta.numRows * this.width);
    this.endRow(width, label, weight);
  }

  /** Re-lays the rows out `to` wide, in place: the last row moves first, so nothing is overwritten. */
  widen(to: number, partial: boolean): boolean {
    const from = this.width;
    const rows = this.meta.numRows + (partial ? 1 : 0);
    this.store.reserve(rows * to, 'feature matrix');
    const data = this.store.data;
    for (let r = rows - 1; r >= 0; r--) {
      if (from > 0) data.copyWithin(r * to, r * from, r * from + from);
      data.fill(Number.NaN, r * to + from, (r + 1) * to);
    }
    this.store.length = this.meta.numRows * to;
    this.width = to;
    return true;
  }

  /**
   * A window of `rows` rows after the rows reserved so far (`rowStart`, at the current width) for
   * a parsing thread to write a block into; commitWindow takes the rows it wrote.
   */
  window(rowStart: number, rows: number, weights: boolean): DenseWindowSpec {
    const end = rowStart + rows;
    this.store.reserve(end * this.width, 'feature matrix');
    this.meta.labels.reserve(end, 'label vector');
    if (weights) {
      this.meta.weights ??= new Growable(f32, true);
      this.meta.weights.reserve(end, 'weight vector');
    }
    return {
      cells: this.store.buffer as SharedArrayBuffer,
      labels: this.meta.labels.buffer as SharedArrayBuffer,
      weights: this.meta.weights?.buffer as SharedArrayBuffer | undefined,
      width: this.width,
      rowStart,
      rows,
    };
  }

  /**
   * The `rows` rows a thread wrote from `rowStart` are the next rows of the matrix (moved down
   * when the blocks before them had fewer rows than lines: blank lines).
   */
  commitWindow(rowStart: number, rows: number): void {
    const at = this.meta.numRows;
    const w = this.width;
    const meta = this.meta;
    if (rowStart !== at) {
      this.store.data.copyWithin(at * w, rowStart * w, (rowStart + rows) * w);
      meta.labels.data.copyWithin(at, rowStart, rowStart + rows);
      meta.weights?.data.copyWithin(at, rowStart, rowStart + rows);
    }
    meta.labels.length = at + rows;
    if (meta.weights) meta.weights.length = at + rows;
    this.store.length = (at + rows) * w;
  }

  /** The matrix, `minWidth` columns at least (a validation matrix takes the train width). */
  build(minWidth = 0): DMatrix {
    if (minWidth > this.width) this.widen(minWidth, false);
    return finish(this.meta.numRows, this.width, this.store.result(), this.meta);
  }
}

/** A window of the matrix on a parsing thread: rows at the window's width, no wider. */
export class DenseWindow implements DenseRows {
  readonly width: number;
  numRows = 0;
  readonly cells: Float32Array;
  private readonly labels: Float32Array;
  private readonly weights: Float32Array | undefined;
  constructor(w: DenseWindowSpec) {
    this.width = w.width;
    this.cells = new Float32Array(w.cells, w.rowStart * w.width * 4, w.rows * w.width);
    this.labels = new Float32Array(w.labels, w.rowStart * 4, w.rows);
    this.weights = w.weights && new Float32Array(w.weights, w.rowStart * 4, w.rows);
  }
  beginRow(): void {}
  widen(): boolean {
    return false;
  }
  appendRows(cells: Float32Array, labels: Float32Array, rows: number): void {
    this.cells.set(cells.subarray(0, rows * this.width), this.numRows * this.width);
    this.labels.set(labels.subarray(0, rows), this.numRows);
    this.numRows += rows;
  }
  endRow(filled: number, label: number, weight: number | undefined): void {
    const w = this.width;
    const r = this.numRows++;
    if (filled < w) this.cells.fill(Number.NaN, r * w + filled, (r + 1) * w);
    this.labels[r] = label;
    if (this.weights !== undefined) this.weights[r] = weight as number;
  }
}

/** A block of sparse rows parsed on its own (blocks.ts), as sent between threads. */
export interface SparseRowsBlock {
  readonly rows: number;
  readonly maxCol: number;
  readonly cols: Uint32Array;
  readonly vals: Float32Array;
  /** each row's end in cols / vals, from the block's start */
  readonly rowEnds: Uint32Array;
  readonly labels: Float32Array;
  readonly weights: Float32Array | undefined;
}

/** Sparse rows (libsvm): (column, value) pairs, densified once the width is known. */
export class SparseBuilder {
  private readonly meta = new RowMeta();
  private readonly cols = new Growable(u32);
  private readonly vals = new Growable(f32);
  private readonly rowEnds = new Growable(u32);
  private maxCol = -1;

  get numRows(): number {
    return this.meta.numRows;
  }

  addEntry(col: number, value: number): void {
    this.cols.push(col, 'libsvm entries');
    this.vals.push(value, 'libsvm entries');
    if (col > this.maxCol) this.maxCol = col;
  }

  endRow(label: number, weight: number | undefined): void {
    this.rowEnds.push(this.cols.length, 'row index');
    this.meta.add(label, weight);
  }

  /** Appends a block of rows parsed elsewhere (blocks.ts). */
  append(b: SparseRowsBlock): void {
    const base = this.cols.length;
    const n = b.cols.length;
    this.cols.reserve(base + n, 'libsvm entries');
    this.vals.reserve(base + n, 'libsvm entries');
    this.cols.data.set(b.cols, base);
    this.vals.data.set(b.vals, base);
    this.cols.length += n;
    this.vals.length += n;
    const ends = this.rowEnds;
    ends.reserve(ends.length + b.rows, 'row index');
    for (let r = 0; r < b.rows; r++) ends.data[ends.length + r] = base + b.rowEnds[r];
    ends.length += b.rows;
    this.meta.append(b.labels, b.weights);
    if (b.maxCol > this.maxCol) this.maxCol = b.maxCol;
  }

  /** This builder's rows as a block (a builder of one block, on a parsing thread). */
  block(): SparseRowsBlock {
    return {
      rows: this.numRows,
      maxCol: this.maxCol,
      cols: this.cols.result(),
      vals: this.vals.result(),
      rowEnds: this.rowEnds.result(),
      ...this.meta.snapshot(),
    };
  }

  build(minWidth = 0): DMatrix {
    const width = Math.max(this.maxCol + 1, minWidth);
    const numRows = this.meta.numRows;
    if (numRows * width * 4 > MAX_BYTES) tooLarge('feature matrix');
    // in shared memory, where the trainer's threads read it (hist-team.ts)
    const data = new Float32Array(new SharedArrayBuffer(numRows * width * 4)).fill(Number.NaN);
    const cols = this.cols.data;
    const vals = this.vals.data;
    const ends = this.rowEnds.data;
    let k = 0;
    for (let r = 0; r < numRows; r++) {
      const base = r * width;
      for (const end = ends[r]; k < end; k++) data[base + cols[k]] = vals[k];
    }
    this.cols.result();
    this.vals.result();
    return finish(numRows, width, data, this.meta);
  }
}

function finish(numRows: number, numCols: number, data: Float32Array, meta: RowMeta): DMatrix {
  const labels = meta.labels.result();
  const weights = meta.weights?.result();
  return weights ? { numRows, numCols, data, labels, weights } : { numRows, numCols, data, labels };
}
