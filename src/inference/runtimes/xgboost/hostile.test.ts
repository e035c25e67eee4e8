// Hostile model files: each gives a clear XGBoostModelError, with bounded memory and no crash.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractModelFromTarGzSync, loadXGBoostModel, XGBoostModelError } from './index.js';
import { manifest, readFixture } from './test-fixtures.js';

const cases = manifest().cases;
function modelBytes(name: string, format: string): Uint8Array {
  const c = cases.find((x) => x.name === name && x.format === format);
  assert.ok(c, `${name} ${format}`);
  return extractModelFromTarGzSync(readFixture(c.file)).bytes;
}

function rejects(bytes: Uint8Array, message?: RegExp): void {
  assert.throws(
    () => loadXGBoostModel(bytes),
    (e: unknown) => {
      assert.ok(e instanceof XGBoostModelError, `expected XGBoostModelError, got ${String(e)}`);
      if (message) assert.match(e.message, message);
      return true;
    },
  );
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  return Buffer.concat(parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p))));
}
function le(n: number, bytes: number): number[] {
  const out: number[] = [];
  let v = BigInt(n);
  for (let i = 0; i < bytes; i++) {
    out.push(Number(v & 0xffn));
    v >>= 8n;
  }
  return out;
}

describe('hostile model files', () => {
  test('truncated files of every format are refused', () => {
    for (const [name, format] of [
      ['abalone', 'json'],
      ['abalone', 'ubj'],
      ['abalone', 'bin'],
      ['abalone', 'pkl2-cfgoffset'],
      ['abalone', 'pkl4-native'],
      ['gblinear-reg', 'bin'],
      ['dart-binary', 'ubj'],
      ['categorical', 'ubj'],
    ]) {
      const b = modelBytes(name, format);
      const step = Math.max(1, Math.floor(b.length / 97));
      for (let cut = 0; cut < b.length - 1; cut += step) rejects(b.subarray(0, cut));
    }
  });

  test('empty and non-model inputs', () => {
    rejects(new Uint8Array(0), /empty/);
    rejects(enc('hello world, this is not a model at all'), /./);
    rejects(enc('{"not": "a model"}'), /learner/);
    rejects(enc('[1,2,3]'), /./);
  });

  test('absurd declared sizes never allocate', () => {
    const bin = modelBytes('abalone', 'bin');
    const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
    // objective string length (after "binf" + 136-byte learner param) → 2^62
    const hugeString = new Uint8Array(bin);
    new DataView(hugeString.buffer).setBigUint64(4 + 136, 1n << 62n, true);
    rejects(hugeString, /declares/);
    // num_trees → 2^31 - 1
    const objLen = Number(view.getBigUint64(140, true));
    const boosterAt = 148 + objLen;
    const gbtreeParamAt = boosterAt + 8 + Number(view.getBigUint64(boosterAt, true));
    const manyTrees = new Uint8Array(bin);
    new DataView(manyTrees.buffer).setInt32(gbtreeParamAt, 0x7fffffff, true);
    rejects(manyTrees, /num_trees/);
    // first tree's num_nodes → 10^9
    const manyNodes = new Uint8Array(bin);
    new DataView(manyNodes.buffer).setInt32(gbtreeParamAt + 160 + 4, 1_000_000_000, true);
    rejects(manyNodes, /tree 0 nodes|truncated/);
    // UBJSON typed float32 array declaring 2.5e9 elements (a 10 GB array) in a few bytes
    rejects(
      concat(
        enc('{L'),
        le(0, 7).reverse(),
        [7],
        enc('learner[$d#L'),
        [0, 0, 0, 0, 0x95, 0x02, 0xf9, 0x00],
        [0, 0, 0, 0],
      ),
      /typed array|truncated/,
    );
    // pickle BINBYTES8 of 10 GB
    rejects(concat([0x80, 4, 0x8e], le(10 * 1024 ** 3, 8), [1, 2, 3]), /exceeds|truncated/);
    // JSON model with num_nodes far beyond its arrays
    const json = JSON.parse(new TextDecoder().decode(modelBytes('reg-squarederror', 'json')));
    json.learner.gradient_booster.model.trees[0].tree_param.num_nodes = '2000000000';
    rejects(enc(JSON.stringify(json)), /entries/);
  });

  test('node indices that loop or point outside the tree', () => {
    const base = new TextDecoder().decode(modelBytes('reg-squarederror', 'json'));
    const mutate = (fn: (tree: Record<string, number[]>) => void): Uint8Array => {
      const j = JSON.parse(base);
      fn(j.learner.gradient_booster.model.trees[3]);
      return enc(JSON.stringify(j));
    };
    rejects(
      mutate((t) => {
        t.left_children[1] = 0; // back to the root
      }),
      /loop or shared child/,
    );
    rejects(
      mutate((t) => {
        t.right_children[0] = 0;
      }),
      /loop or shared child/,
    );
    rejects(
      mutate((t) => {
        t.left_children[2] = t.left_children[1]; // two parents share a child
      }),
      /loop or shared child/,
    );
    rejects(
      mutate((t) => {
        t.left_children[0] = 1_000_000;
      }),
      /outside the tree/,
    );
    rejects(
      mutate((t) => {
        t.right_children[0] = -7;
      }),
      /outside the tree/,
    );
    rejects(
      mutate((t) => {
        t.split_indices[0] = 99;
      }),
      /splits on feature 99/,
    );
    // the same in the binary format: first tree's root left child → itself
    const bin = new Uint8Array(modelBytes('reg-squarederror', 'bin'));
    const view = new DataView(bin.buffer);
    const objLen = Number(view.getBigUint64(140, true));
    const boosterAt = 148 + objLen;
    const firstNodeAt = boosterAt + 8 + Number(view.getBigUint64(boosterAt, true)) + 160 + 148;
    view.setInt32(firstNodeAt + 4, 0, true);
    rejects(bin, /loop or shared child/);
  });

  test('a pickle that calls os.system is refused without executing anything', () => {
    for (const f of ['hostile/os_system.pkl', 'hostile/os_system.p4.pkl']) {
      rejects(readFixture(f), /refusing to load pickle: it references '(posix|os)\.system'/);
    }
    // hand-built: builtins.eval("...") via GLOBAL + REDUCE, protocol 2
    rejects(
      concat([0x80, 2], enc('cbuiltins\neval\n'), [0x58], le(9, 4), enc('1+1; boom'), [0x85, 0x52, 0x2e]),
      /builtins\.eval/,
    );
    // STACK_GLOBAL subprocess.Popen, protocol 4
    rejects(concat([0x80, 4, 0x8c, 10], enc('subprocess'), [0x8c, 5], enc('Popen'), [0x93, 0x2e]), /subprocess\.Popen/);
    // an allowed callable used with unexpected arguments
    rejects(concat([0x80, 2], enc('c_codecs\nencode\n'), [0x4b, 1, 0x85, 0x52, 0x2e]), /_codecs\.encode/);
    // protocol 0 pickles (text opcodes) are not what Python 3 writes for a Booster
    rejects(enc("cos\nsystem\n(S'echo pwned'\ntR."), /./);
  });

  test('any other pickle is refused with a clear error', () => {
    rejects(readFixture('hostile/list_of_ints.pkl'), /does not contain an xgboost\.core\.Booster/);
    // a Booster whose state has no handle
    rejects(concat([0x80, 2], enc('cxgboost.core\nBooster\n'), [0x29, 0x81, 0x7d, 0x62, 0x2e]), /no 'handle'/);
    // xgboost's sklearn wrapper
    rejects(
      concat([0x80, 2], enc('cxgboost.sklearn\nXGBRegressor\n'), [0x29, 0x81, 0x2e]),
      /xgboost\.sklearn\.XGBRegressor/,
    );
    // a Booster whose handle is itself a pickle
    const inner = readFixture('hostile/list_of_ints.pkl');
    rejects(
      concat(
        [0x80, 3],
        enc('cxgboost.core\nBooster\n'),
        [0x29, 0x81, 0x7d, 0x58],
        le(6, 4),
        enc('handle'),
        [0x42],
        le(inner.length, 4),
        inner,
        [0x73, 0x62, 0x2e],
      ),
      /nested/,
    );
  });
});
