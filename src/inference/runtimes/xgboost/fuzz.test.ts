// Mutation fuzzing with a fixed seed: thousands of randomly damaged model files, archives and
// request bodies. Every case must end in a clean typed error or a valid result — never a crash, a
// hang, a non-typed exception or an unbounded allocation. Bounded in count and time so it runs
// in a few seconds inside `npm test`.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ArchiveError, readTarGzSync } from '../../artifact/index.js';
import {
  decodeRequest,
  extractModelFromTarGzSync,
  loadXGBoostModel,
  parseContainerVersion,
  type XGBoostModel,
  XGBoostModelError,
  XGBoostServingError,
} from './index.js';
import { parseXGBoostJson } from './loader.js';
import { manifest, prng, readFixture } from './test-fixtures.js';

const SEED = 0x5eed_4242;
const MODEL_CASES = 3000;
const TIME_BUDGET_MS = 6000;

const cases = manifest().cases;
const seeds: { label: string; bytes: Uint8Array }[] = [];
for (const [name, format] of [
  ['abalone', 'bin'],
  ['abalone', 'pkl2-cfgoffset'],
  ['abalone', 'pkl4-native'],
  ['binary-logistic-pickled', 'pkl3-cfgoffset'],
  ['multi-softprob', 'json'],
  ['multi-softprob', 'ubj'],
  ['multi-softmax', 'bin'],
  ['dart-binary', 'bin'],
  ['dart-binary', 'ubj'],
  ['gblinear-multi', 'bin'],
  ['gblinear-reg', 'ubj'],
  ['categorical', 'ubj'],
  ['categorical', 'json'],
  ['parallel-tree-multi', 'bin'],
  ['reg-logistic', 'json'],
  ['survival-cox', 'ubj'],
]) {
  const c = cases.find((x) => x.name === name && x.format === format);
  assert.ok(c, `${name} ${format}`);
  seeds.push({ label: `${name}.${format}`, bytes: extractModelFromTarGzSync(readFixture(c.file)).bytes });
}

type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);
const INTERESTING = [0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 1 << 20, 1 << 30];

function mutateBytes(r: Rand, src: Uint8Array): Uint8Array {
  let b = new Uint8Array(src);
  const rounds = 1 + int(r, 4);
  for (let k = 0; k < rounds; k++) {
    const at = int(r, b.length);
    switch (int(r, 8)) {
      case 0: // bit flip
        b[at] ^= 1 << int(r, 8);
        break;
      case 1: // random byte
        b[at] = int(r, 256);
        break;
      case 2: // interesting 32-bit little-endian value
        if (at + 4 <= b.length)
          new DataView(b.buffer).setUint32(at, INTERESTING[int(r, INTERESTING.length)] >>> 0, true);
        break;
      case 3: // interesting 32-bit big-endian value (UBJSON)
        if (at + 4 <= b.length)
          new DataView(b.buffer).setUint32(at, INTERESTING[int(r, INTERESTING.length)] >>> 0, false);
        break;
      case 4: // truncate
        b = b.slice(0, at);
        break;
      case 5: {
        // delete a run
        const n = 1 + int(r, 16);
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + n))]);
        break;
      }
      case 6: {
        // duplicate a run
        const n = 1 + int(r, 64);
        b = Buffer.concat([b.subarray(0, at + n), b.subarray(at)]);
        break;
      }
      default: // 64-bit huge value
        if (at + 8 <= b.length) new DataView(b.buffer).setBigUint64(at, 1n << BigInt(20 + int(r, 44)), r() < 0.5);
    }
    if (b.length === 0) break;
  }
  return b;
}

/** Structural mutation of a JSON model: change one number in a tree array (children, indices…). */
function mutateJsonModel(r: Rand, src: Uint8Array): Uint8Array {
  // biome-ignore lint/suspicious/noExplicitAny: free-form mutation of a parsed model
  const j = parseXGBoostJson(src) as any;
  const gb = j.learner.gradient_booster;
  const model = gb.model ?? gb.gbtree?.model;
  const values = [-1, 0, 1, 2, 3, -2, 1e9, 2 ** 31, Number.NaN, 0.5, 7, 255];
  if (model?.trees?.length) {
    const tree = model.trees[int(r, model.trees.length)];
    const keys = Object.keys(tree).filter((k) => Array.isArray(tree[k]) && tree[k].length > 0);
    const key = keys[int(r, keys.length)];
    const arr = tree[key];
    const v = values[int(r, values.length)];
    arr[int(r, arr.length)] = r() < 0.8 ? v : int(r, arr.length);
    if (r() < 0.2) tree.tree_param.num_nodes = String(values[int(r, values.length)]);
  } else if (model?.weights) {
    model.weights.length = int(r, model.weights.length + 3);
  }
  if (r() < 0.1) j.learner.learner_model_param.num_feature = String(values[int(r, values.length)]);
  if (r() < 0.1) j.learner.learner_model_param.num_class = String(values[int(r, values.length)]);
  return new TextEncoder().encode(JSON.stringify(j).replace(/null/g, 'NaN'));
}

function exercise(model: XGBoostModel, r: Rand): void {
  if (model.numFeatures > 100_000) return; // a valid but huge model: do not build huge test rows
  const nRows = 3;
  const rows = new Float32Array(nRows * model.numFeatures);
  for (let i = 0; i < rows.length; i++) rows[i] = r() < 0.2 ? Number.NaN : (r() - 0.5) * 20;
  for (const outputMargin of [false, true]) {
    const p = model.predict(rows, nRows, { outputMargin });
    assert.equal(p.length, nRows * model.outputsPerRow({ outputMargin }));
  }
}

describe('fuzz', () => {
  test(`mutated model files load cleanly or fail with XGBoostModelError (seed ${SEED})`, () => {
    const r = prng(SEED);
    const started = Date.now();
    let loaded = 0;
    let refused = 0;
    let n = 0;
    for (; n < MODEL_CASES && Date.now() - started < TIME_BUDGET_MS; n++) {
      const s = seeds[n % seeds.length];
      const isJson = s.bytes[0] === 0x7b && s.bytes[1] === 0x22;
      const bytes = isJson && r() < 0.5 ? mutateJsonModel(r, s.bytes) : mutateBytes(r, s.bytes);
      let model: XGBoostModel;
      try {
        model = loadXGBoostModel(bytes);
      } catch (e) {
        if (!(e instanceof XGBoostModelError)) {
          assert.fail(`case ${n} (${s.label}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
        }
        assert.ok(e.message.length > 0);
        refused++;
        continue;
      }
      exercise(model, r);
      loaded++;
    }
    assert.ok(n >= 1000, `only ${n} cases ran within the time budget`);
    assert.ok(refused > 0 && loaded > 0, `loaded ${loaded}, refused ${refused}`);
  });

  test('mutated model.tar.gz archives read cleanly or fail with ArchiveError', () => {
    const r = prng(SEED + 1);
    const tarGz = readFixture(cases.find((c) => c.name === 'reg-logistic' && c.format === 'bin')!.file);
    const plain = readTarGzSync(tarGz)[0];
    assert.ok(plain.data);
    const started = Date.now();
    for (let n = 0; n < 1500 && Date.now() - started < 3000; n++) {
      // mutate either the compressed stream or the tar inside it
      const input =
        r() < 0.5
          ? mutateBytes(r, tarGz)
          : gzipSync(mutateBytes(r, Buffer.concat([header512(plain.data.length), plain.data, new Uint8Array(1536)])));
      try {
        const entries = readTarGzSync(input, { limits: { maxTotalBytes: 1 << 24 } });
        for (const e of entries) assert.ok(!e.path.split('/').includes('..'));
      } catch (e) {
        if (!(e instanceof ArchiveError)) assert.fail(`case ${n}: ${String(e)}`);
      }
    }
  });

  test('random request bodies decode cleanly or fail with XGBoostServingError', () => {
    const r = prng(SEED + 2);
    const v = parseContainerVersion('sagemaker-xgboost:1.7-1')!;
    const alphabet = ['1', '2', '.', ',', '-', 'e', ':', ' ', '\n', '\r', 'nan', 'inf', '0', '9', 'x', '\t', '"', '_'];
    for (let n = 0; n < 2000; n++) {
      let s = '';
      const len = int(r, 40);
      for (let i = 0; i < len; i++) s += alphabet[int(r, alphabet.length)];
      const ct = ['text/csv', 'text/libsvm', 'text/csv;label_size=1', undefined, 'application/json'][int(r, 5)];
      try {
        const d = decodeRequest(new TextEncoder().encode(s), ct, v, 1 + int(r, 5));
        assert.ok(d.rows.length >= 0);
      } catch (e) {
        if (!(e instanceof XGBoostServingError)) assert.fail(`case ${n} ${JSON.stringify(s)}: ${String(e)}`);
        assert.ok([400, 415].includes(e.httpStatus));
      }
    }
  });
});

/** A ustar header for a single `xgboost-model` file. */
function header512(size: number): Uint8Array {
  const h = Buffer.alloc(512);
  h.write('xgboost-model', 0);
  h.write('0000644\0', 100);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}
