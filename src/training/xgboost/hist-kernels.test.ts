// The histogram kernels against each other on one arena: the gathered build (rows copied to a
// scratch in chunks, then added up) and the kernels made for one matrix's layout must give every
// bin the very doubles the plain build and the JavaScript kernel give it, for any feature count,
// bins per feature, feature range, node size and row set.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GATHER_ROWS, gatherScratchBytes, LAYOUT_MAX_COLS } from './hist-build-kernel.js';
import { jsKernels, kernelModule, LayoutCache, layoutKernels, WASM_MAX_PAGES, wasmKernels } from './hist-kernels.js';

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
  it('the gathered and the layout builds add the same doubles as the plain and the JavaScript builds, every bin format', () => {
    const module = kernelModule();
    assert.ok(module, 'WebAssembly is available on Node 20');
    let s = 11;
    const u = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    const formats = [
      { width: 1, sparse: false },
      { width: 2, sparse: false },
      { width: 2, sparse: true },
      { width: 4, sparse: false },
      { width: 4, sparse: true },
    ] as const;
    for (const format of formats)
      for (const numCols of [1, 7, 16, 20, 33]) {
        const { width, sparse } = format;
        const numRows = 3000;
        // each feature its own number of bins (1..256), so the histogram offsets are uneven
        const counts = Array.from({ length: numCols }, () => 1 + Math.floor(u() * 256));
        const ptr = new Int32Array(numCols + 1);
        for (let c = 0; c < numCols; c++) ptr[c + 1] = ptr[c] + counts[c];
        const { memory, alloc } = arena(8 << 20);
        const wasm = wasmKernels(module, memory);
        const js = jsKernels(() => memory.buffer);
        const buf = memory.buffer;
        const binAt = alloc(numRows * numCols * width + 16);
        const offAt = alloc(numCols * 4);
        const rowAt = alloc(numRows * 4);
        const gradAt = alloc(numRows * 8);
        const histBytes = ptr[numCols] * 16;
        const [plainAt, gatherAt, jsAt, ownAt, ownGatherAt] = [0, 0, 0, 0, 0].map(() => alloc(histBytes));
        const scratch = alloc(gatherScratchBytes(numCols, width));
        // byte bins are feature-local (plus the offsets); wider ones global, sparse ones with missing cells
        const binView =
          width === 1
            ? new Uint8Array(buf, binAt, numRows * numCols)
            : width === 2
              ? new Uint16Array(buf, binAt, numRows * numCols)
              : new Uint32Array(buf, binAt, numRows * numCols);
        const missing = width === 2 ? 0xffff : 0xffffffff;
        for (let i = 0; i < binView.length; i++) {
          const local = Math.floor(u() * counts[i % numCols]);
          binView[i] = width === 1 ? local : sparse && u() < 0.2 ? missing : ptr[i % numCols] + local;
        }
        new Int32Array(buf, offAt, numCols).set(ptr.subarray(0, numCols));
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
            const views = [plainAt, gatherAt, jsAt, ownAt, ownGatherAt].map(
              (at) => new Float64Array(buf, at, histBytes / 8),
            );
            for (const v of views) v.fill(0);
            const args = [binAt, offAt, numCols, c0, c1, rowAt, begin, end, gradAt, gradAt + 4, 8] as const;
            wasm.build(format)(...args, plainAt);
            wasm.gather!(format)(...args, gatherAt, scratch);
            js.build(format)(...args, jsAt);
            const [plain, gathered, inJs, layout, layoutGathered] = views.map((v) =>
              Buffer.from(v.buffer, v.byteOffset, v.byteLength),
            );
            const what = `${width}-byte${sparse ? ' sparse' : ''} bins, ${numCols} features, ${size} rows, features ${c0}..${c1}`;
            assert.ok(plain.some((b) => b !== 0));
            assert.ok(gathered.equals(plain), what);
            assert.ok(inJs.equals(plain), what);
            // the layout's kernels (byte bins) build every feature, whatever c0 and c1 say
            if (width === 1 && c0 === 0 && c1 === numCols) {
              const own = layoutKernels(memory, { numCols, ptr });
              own.build(...args, ownAt);
              own.gather(...args, ownGatherAt, scratch);
              assert.ok(layout.equals(plain), what);
              assert.ok(layoutGathered.equals(plain), what);
            }
          }
        }
      }
  });

  it("compiles a matrix's own kernels only once the same layout has served `after` builds", () => {
    const { memory } = arena(PAGE);
    const cache = new LayoutCache(memory, 4);
    const ptr = Int32Array.from([0, 10, 30]);
    for (let i = 1; i < 4; i++) assert.equal(cache.of(2, ptr), undefined, `build ${i}`);
    const kernels = cache.of(2, ptr);
    assert.ok(kernels);
    assert.equal(cache.of(2, Int32Array.from(ptr)), kernels, 'the same layout in another array');
    // a matrix binned anew each tree (approx): a layout that changes before `after` builds never compiles
    for (let i = 0; i < 12; i++) assert.equal(cache.of(2, Int32Array.from([0, 10, 31 + (i % 2)])), undefined);
    const wide = new Int32Array(LAYOUT_MAX_COLS + 2);
    for (let i = 0; i < 8; i++) assert.equal(cache.of(LAYOUT_MAX_COLS + 1, wide), undefined);
  });
});
