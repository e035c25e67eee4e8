// The CSV reader's common case in WebAssembly: whole lines of plain decimal cells (a sign, at most
// 15 integer and 15 fraction digits, no exponent, nothing else), as many as the matrix is wide,
// read into float32 labels and cells with dmlc-core's arithmetic (dmlc-float.ts: the integer part
// and the fraction digits as doubles, each rounded to float, added in float: f32.add of two floats
// is what JavaScript's fround of their double sum gives). The first line that is anything else
// (an empty cell, nan, an exponent, blanks, another width, the file's last line without a line
// feed) stops it; csv.ts reads that line and the rest as before. ~4× faster than the JavaScript
// loop on a file of 6-decimal numbers.

import { type Bytes, encodeModule, op } from '../wasm.js';

const PAGE = 65536;
/** where a call leaves the number of rows it read */
const ROWS_AT = 0;
/** the powers of ten 10^0 .. 10^15 (f64) */
const POW10_AT = 64;
/** the block's bytes */
const INPUT_AT = 4096;
/** rows a call may write (cells and labels after the input) */
const OUT_BYTES = 4 << 20;

// parameters (i32): p, end, outC, outL, w, d, maxRows; then locals
const P = 0;
const END = 1;
const OUTC = 2;
const OUTL = 3;
const W = 4;
const D = 5;
const MAXROWS = 6;
const R = 7;
const C = 8;
const COL = 9;
const LS = 10;
const NEG = 11;
const IS = 12;
const ID = 13;
const FD = 14;
const FS = 15;
const V = 16; // f32
const N = 17; // f64
const M = 18; // f64

const inc = (l: number): Bytes => [...op.get(l), ...op.i32(1), ...op.add, ...op.set(l)];
/** digits at p into the f64 local `acc` (acc = acc × 10 + digit), c left at the first non-digit */
const digits = (acc: number): Bytes => [
  ...op.block,
  ...op.loop,
  ...op.get(P),
  ...op.load8(),
  ...op.tee(C),
  ...op.i32(48),
  ...op.sub,
  ...op.i32(9),
  ...op.gtU,
  ...op.brIf(1),
  ...op.get(acc),
  ...op.f64(10),
  ...op.f64mul,
  ...op.get(C),
  ...op.i32(48),
  ...op.sub,
  ...op.f64convertI32U,
  ...op.f64add,
  ...op.set(acc),
  ...inc(P),
  ...op.br(0),
  ...op.end,
  ...op.end,
];

const body: Bytes = [
  ...op.block, // done
  ...op.loop, // line
  ...op.get(R),
  ...op.get(MAXROWS),
  ...op.geS,
  ...op.brIf(1),
  ...op.get(P),
  ...op.get(END),
  ...op.geS,
  ...op.brIf(1),
  ...op.get(P),
  ...op.set(LS),
  ...op.i32(0),
  ...op.set(COL),
  ...op.block, // bail
  ...op.loop, // cell
  // sign
  ...op.i32(0),
  ...op.set(NEG),
  ...op.get(P),
  ...op.load8(),
  ...op.tee(C),
  ...op.i32(45),
  ...op.eq,
  ...op.if,
  ...op.i32(1),
  ...op.set(NEG),
  ...inc(P),
  ...op.else,
  ...op.get(C),
  ...op.i32(43),
  ...op.eq,
  ...op.if,
  ...inc(P),
  ...op.end,
  ...op.end,
  // integer digits
  ...op.f64(0),
  ...op.set(N),
  ...op.get(P),
  ...op.set(IS),
  ...digits(N),
  ...op.get(P),
  ...op.get(IS),
  ...op.sub,
  ...op.set(ID),
  // fraction digits
  ...op.i32(0),
  ...op.set(FD),
  ...op.f64(0),
  ...op.set(M),
  ...op.get(C),
  ...op.i32(46),
  ...op.eq,
  ...op.if,
  ...inc(P),
  ...op.get(P),
  ...op.set(FS),
  ...digits(M),
  ...op.get(P),
  ...op.get(FS),
  ...op.sub,
  ...op.set(FD),
  ...op.end,
  // the usual cell only: at most 15 + 15 digits, at least one
  ...op.get(ID),
  ...op.i32(15),
  ...op.gtU,
  ...op.brIf(1),
  ...op.get(FD),
  ...op.i32(15),
  ...op.gtU,
  ...op.brIf(1),
  ...op.get(ID),
  ...op.get(FD),
  ...op.or,
  ...op.eqz,
  ...op.brIf(1),
  // v = fround(n) [+ fround(m / 10^fd)], negated
  ...op.get(N),
  ...op.f32demote,
  ...op.set(V),
  ...op.get(FD),
  ...op.if,
  ...op.get(V),
  ...op.get(M),
  ...op.get(FD),
  ...op.i32(3),
  ...op.shl,
  ...op.f64load(POW10_AT),
  ...op.f64div,
  ...op.f32demote,
  ...op.f32add,
  ...op.set(V),
  ...op.end,
  ...op.get(NEG),
  ...op.if,
  ...op.get(V),
  ...op.f32neg,
  ...op.set(V),
  ...op.end,
  // the label, or feature col - 1 (no more than the width)
  ...op.get(COL),
  ...op.eqz,
  ...op.if,
  ...op.get(OUTL),
  ...op.get(R),
  ...op.i32(2),
  ...op.shl,
  ...op.add,
  ...op.get(V),
  ...op.f32store(),
  ...op.else,
  ...op.get(COL),
  ...op.get(W),
  ...op.gtU,
  ...op.brIf(2),
  ...op.get(OUTC),
  ...op.get(R),
  ...op.get(W),
  ...op.mul,
  ...op.get(COL),
  ...op.add,
  ...op.i32(1),
  ...op.sub,
  ...op.i32(2),
  ...op.shl,
  ...op.add,
  ...op.get(V),
  ...op.f32store(),
  ...op.end,
  ...inc(COL),
  // what ends the cell: the delimiter, or the line's end (CRLF or LF) after w + 1 cells
  ...op.get(C),
  ...op.get(D),
  ...op.eq,
  ...op.if,
  ...inc(P),
  ...op.br(1),
  ...op.end,
  ...op.get(C),
  ...op.i32(13),
  ...op.eq,
  ...op.if,
  ...inc(P),
  ...op.get(P),
  ...op.load8(),
  ...op.set(C),
  ...op.end,
  ...op.get(C),
  ...op.i32(10),
  ...op.eq,
  ...op.if,
  ...op.get(COL),
  ...op.get(W),
  ...op.i32(1),
  ...op.add,
  ...op.ne,
  ...op.brIf(2),
  ...inc(P),
  ...inc(R),
  ...op.br(3),
  ...op.end,
  ...op.br(1),
  ...op.end, // cell
  ...op.end, // bail
  ...op.get(LS),
  ...op.set(P),
  ...op.br(1),
  ...op.end, // line
  ...op.end, // done
  ...op.i32(ROWS_AT),
  ...op.get(R),
  ...op.store32(),
  ...op.get(P),
];

type RowsFn = (p: number, end: number, outC: number, outL: number, w: number, d: number, maxRows: number) => number;

let compiled: WebAssembly.Module | undefined;

/** This thread's kernel, its memory sized for blocks of `bytes` (grown for longer ones). */
export class CsvKernel {
  private readonly memory: WebAssembly.Memory;
  private readonly fn: RowsFn;
  private inputBytes = 0;

  constructor() {
    compiled ??= new WebAssembly.Module(
      encodeModule(
        [{ name: 'rows', params: 7, result: true, i32Locals: 9, f32Locals: 1, f64Locals: 2, v128Locals: 0, body }],
        65536,
      ),
    );
    this.memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared: true });
    this.fn = (new WebAssembly.Instance(compiled, { e: { m: this.memory } }).exports as { rows: RowsFn }).rows;
    new Float64Array(this.memory.buffer, POW10_AT, 16).set(Array.from({ length: 16 }, (_, i) => 10 ** i));
  }

  private get outAt(): number {
    return INPUT_AT + this.inputBytes;
  }

  /** Copies buf[start, end) in (with a NUL after it, which ends any cell) for the calls that follow. */
  load(buf: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.inputBytes = Math.ceil((n + 1) / 16) * 16;
    const need = INPUT_AT + this.inputBytes + OUT_BYTES;
    const have = this.memory.buffer.byteLength;
    if (need > have) this.memory.grow(Math.ceil((need - have) / PAGE));
    const mem = new Uint8Array(this.memory.buffer);
    mem.set(buf.subarray(start, end), INPUT_AT);
    mem[INPUT_AT + n] = 0;
  }

  /**
   * Reads lines of `width` + 1 cells from offset `from` of the loaded block (to `to`), at most as
   * many as fit; returns where it stopped and how many rows it read, whose labels and cells are
   * then in labels() and cells().
   */
  rows(from: number, to: number, width: number, delimiter: number): { pos: number; rows: number } {
    const maxRows = Math.floor(OUT_BYTES / ((width + 1) * 4));
    const outC = this.outAt;
    const outL = outC + maxRows * width * 4;
    const pos = this.fn(INPUT_AT + from, INPUT_AT + to, outC, outL, width, delimiter, maxRows) - INPUT_AT;
    return { pos, rows: new Int32Array(this.memory.buffer, ROWS_AT, 1)[0]! };
  }

  labels(rows: number, width: number): Float32Array {
    const maxRows = Math.floor(OUT_BYTES / ((width + 1) * 4));
    return new Float32Array(this.memory.buffer, this.outAt + maxRows * width * 4, rows);
  }

  cells(rows: number, width: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.outAt, rows * width);
  }
}

let kernel: CsvKernel | undefined | null;

/** This thread's kernel; null where WebAssembly cannot run it (the JavaScript reader then reads all). */
export function csvKernel(): CsvKernel | null {
  if (kernel === undefined) {
    try {
      kernel = new CsvKernel();
    } catch {
      kernel = null;
    }
  }
  return kernel;
}
