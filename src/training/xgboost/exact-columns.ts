// tree_method=exact's input: the training matrix by column, each column sorted by value
// (xgboost's SortedCSCPage), made once per training by a radix sort on the floats' bits.

import { sortedOrder } from './sketch.js';

const f = Math.fround;

/** The training matrix by column, present values only, each column sorted by value (SortedCSCPage). */
export interface SortedColumns {
  numRows: number;
  numCols: number;
  /** numCols + 1 offsets into rows/values */
  ptr: Int32Array;
  rows: Int32Array;
  values: Float32Array;
  /** 1 - missing/numRows per column, as float (LazyGetColumnDensity) */
  density: Float32Array;
}

export function sortColumns(data: Float32Array, numRows: number, numCols: number): SortedColumns {
  if (numRows > ROW_SPAN || !LITTLE_ENDIAN) return radixSortColumns(data, numRows, numCols);
  // Each step is its own small function with one loop: V8 compiles a hot loop on the stack, and
  // code after that loop in the same function would have no type feedback yet (a deopt, a recompile).
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
  const keys = new Float64Array(numRows);
  const words = new Uint32Array(keys.buffer);
  let rows = new Int32Array(numRows * numCols);
  let values = new Float32Array(numRows * numCols);
  const ptr = new Int32Array(numCols + 1);
  const density = new Float32Array(numCols);
  for (let c = 0; c < numCols; c++) {
    const m = columnKeys(bits, numRows, numCols, c, words);
    keys.subarray(0, m).sort();
    decodeKeys(words, m, data, numCols, c, rows, values, ptr[c]);
    ptr[c + 1] = ptr[c] + m;
    density[c] = f(1 - f(numRows - m) / numRows);
  }
  if (ptr[numCols] < rows.length) {
    rows = rows.slice(0, ptr[numCols]);
    values = values.slice(0, ptr[numCols]);
  }
  return { numRows, numCols, ptr, rows, values, density };
}

/** Rows up to 2^21: a float32's order-preserving 32 bits and the row fit the low 53 bits of a key. */
const ROW_SPAN = 2 ** 21;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Column c's sort keys into keys (as 32-bit words, low word first), present values only, returning
 * their count. A key's 64 bits are the value's bits made order-preserving (sign flipped, negatives
 * inverted; -0 before +0), then 21 bits of row: below 2^53, so the key read as a double is a
 * non-negative number whose order is the bits' order, and one native sort of the doubles orders by
 * value, ties by row. Integer work only.
 */
function columnKeys(bits: Uint32Array, numRows: number, numCols: number, c: number, keys: Uint32Array): number {
  let m = 0;
  for (let r = 0; r < numRows; r++) {
    const u = bits[r * numCols + c];
    if ((u & 0x7fffffff) > 0x7f800000) continue; // NaN: missing
    const neg = u >>> 31 === 1;
    // the order-preserving bits' top 21 and low 11 bits
    const hi = neg ? ~u >>> 11 : (u >>> 11) + 0x100000;
    const lo11 = neg ? ~u & 0x7ff : u & 0x7ff;
    keys[2 * m] = (lo11 << 21) | r;
    keys[2 * m + 1] = hi;
    m++;
  }
  return m;
}

/** The sorted keys back to rows and their values, at offset `at` of the column arrays. */
function decodeKeys(
  keys: Uint32Array,
  m: number,
  data: Float32Array,
  numCols: number,
  c: number,
  rows: Int32Array,
  values: Float32Array,
  at: number,
): void {
  for (let i = 0; i < m; i++) {
    const r = keys[2 * i] & (ROW_SPAN - 1);
    rows[at + i] = r;
    values[at + i] = data[r * numCols + c];
  }
}

/** sortColumns for more than 2^21 rows: a stable radix sort per column. */
function radixSortColumns(data: Float32Array, numRows: number, numCols: number): SortedColumns {
  const counts = new Int32Array(numCols);
  for (let r = 0; r < numRows; r++) {
    const b = r * numCols;
    for (let c = 0; c < numCols; c++) if (!Number.isNaN(data[b + c])) counts[c]++;
  }
  const ptr = new Int32Array(numCols + 1);
  for (let c = 0; c < numCols; c++) ptr[c + 1] = ptr[c] + counts[c];
  const rows = new Int32Array(ptr[numCols]);
  const values = new Float32Array(ptr[numCols]);
  const density = new Float32Array(numCols);
  for (let c = 0; c < numCols; c++) {
    radixSort(data, numRows, numCols, c, rows.subarray(ptr[c], ptr[c + 1]));
    for (let i = ptr[c]; i < ptr[c + 1]; i++) values[i] = data[rows[i] * numCols + c];
    density[c] = f(1 - f(numRows - counts[c]) / numRows);
  }
  return { numRows, numCols, ptr, rows, values, density };
}

/** Column c's rows with a present value in ascending value order, ties by row: a stable radix sort. */
function radixSort(data: Float32Array, numRows: number, numCols: number, c: number, out: Int32Array): void {
  const vals = new Float32Array(out.length);
  const rows = new Int32Array(out.length);
  let m = 0;
  for (let r = 0; r < numRows; r++) {
    const v = data[r * numCols + c];
    if (!Number.isNaN(v)) {
      rows[m] = r;
      vals[m++] = v;
    }
  }
  const order = sortedOrder(vals, m);
  for (let i = 0; i < m; i++) out[i] = rows[order[i]];
}
