// The histogram kernels against each other on one arena: the gathered build (rows copied to a
// scratch in chunks, then added up) must give every bin the very doubles the plain build and the
// JavaScript kernel give it, for any feature count, feature range, node size and row set.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GATHER_ROWS,
  gatherScratchBytes,
  jsKernels,
  kernelModule,
  WASM_MAX_PAGES,
  wasmKernels,
} from './hist-kernels.js';

const PAGE = 65536;

function arena(bytes: number) {
  const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE), maximum: WASM_MAX_PAGES, shared: true });
  let top = 0;
  const alloc = (n: number) => {
    const at = top;
    top += Math.ceil(n / 16) * 16;
    assert.ok(top <= bytes);
    return at;
  };
  return { memory, alloc };
}

describe('xgboost trainer: histogram kernels', () => {
  it('the gathered build adds the same doubles as the plain and the JavaScript builds', () => {
    const module = kernelModule();
    assert.ok(module, 'WebAssembly is available on Node 20');
    let s = 11;
    const u = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    for (const numCols of [1, 7, 16, 20, 33]) {
      const numRows = 3000;
      const bins = 1 + Math.floor(u() * 255);
      const { memory, alloc } = arena(8 << 20);
      const wasm = wasmKernels(module, memory);
      const js = jsKernels(() => memory.buffer);
      const buf = memory.buffer;
      const binAt = alloc(numRows * numCols + 16);
      const offAt = alloc(numCols * 4);
      const rowAt = alloc(numRows * 4);
      const gradAt = alloc(numRows * 8);
      const histBytes = numCols * bins * 16;
      const [plainAt, gatherAt, jsAt] = [alloc(histBytes), alloc(histBytes), alloc(histBytes)];
      const scratch = alloc(gatherScratchBytes(numCols));
      const binView = new Uint8Array(buf, binAt, numRows * numCols);
      for (let i = 0; i < binView.length; i++) binView[i] = Math.floor(u() * bins);
      new Int32Array(buf, offAt, numCols).set(Array.from({ length: numCols }, (_, c) => c * bins));
      // gradient and hessian of row r at r × 8 and r × 8 + 4 (stride 8): values of both signs
      const pairs = new Float32Array(buf, gradAt, numRows * 2);
      for (let i = 0; i < pairs.length; i++) pairs[i] = (u() - 0.3) * 10;
      // a node's rows: ascending, scattered; sizes around the chunk and the four-row groups
      const all = Array.from({ length: numRows }, (_, r) => r).filter(() => u() < 0.6);
      const rows = new Int32Array(buf, rowAt, all.length);
      rows.set(all);
      for (const size of [GATHER_ROWS, GATHER_ROWS + 1, 3 * GATHER_ROWS - 3, all.length - 5]) {
        const begin = 5;
        const end = begin + size;
        for (const [c0, c1] of [
          [0, numCols],
          [Math.floor(numCols / 3), numCols],
        ]) {
          const views = [plainAt, gatherAt, jsAt].map((at) => new Float64Array(buf, at, histBytes / 8));
          for (const v of views) v.fill(0);
          const args = [binAt, offAt, numCols, c0, c1, rowAt, begin, end, gradAt, gradAt + 4, 8] as const;
          wasm.build({ width: 1, sparse: false })(...args, plainAt);
          wasm.gather!(...args, gatherAt, scratch);
          js.build({ width: 1, sparse: false })(...args, jsAt);
          const [plain, gathered, inJs] = views.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength));
          assert.ok(plain.some((b) => b !== 0));
          assert.ok(gathered.equals(plain), `${numCols} features, ${size} rows, features ${c0}..${c1}`);
          assert.ok(inJs.equals(plain));
        }
      }
    }
  });
});
