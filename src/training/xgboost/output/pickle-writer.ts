// Writes a Python pickle of an `xgboost.core.Booster`, as SageMaker XGBoost containers before 1.3-1
// write `xgboost-model` (`pickle.dump(bst, f, protocol=...)`, algorithm_mode/train.py).
//
// Booster.__getstate__ is its __dict__ with 'handle' replaced by a bytearray of
// XGBoosterSerializeToBuffer(); xgboost 1.0 – 1.4 serialise as "CONFIG-offset:" + int64 length of
// the binary model + the binary model + the learner's JSON configuration (learner.cc LearnerIO::Save),
// and xgboost.training.train() leaves best_iteration / best_ntree_limit (and best_score with early
// stopping) in the __dict__. Before 1.0 the handle held the binary model alone.
//
// Unpickling creates the object with NEWOBJ(Booster) and restores the dict with BUILD; the bytearray
// is reduced to bytearray(bytes), as Python pickles it.

import type { XGBoostJsonModel } from '../types.js';
import { binaryFromDoc } from './binary-writer.js';
import { ModelWriteError } from './errors.js';
import { type DocModel, readDoc } from './json-doc.js';

export interface PickleOptions {
  /** pickle protocol: 3 (Python 3.6's default) or 4 (the container's protocol=4 from 1.2-1) */
  protocol?: 3 | 4;
  /** 'config-offset' (xgboost 1.0 – 1.4) or 'binary' (the raw binary model, xgboost < 1.0) */
  handle?: 'config-offset' | 'binary';
}

const utf8 = new TextEncoder();
const CONFIG_OFFSET = utf8.encode('CONFIG-offset:');

/** A pickled Booster that `pickle.load` in xgboost ≥ 1.0 turns back into the same model. */
export function writePickledBooster(doc: XGBoostJsonModel, options: PickleOptions = {}): Uint8Array {
  const m = readDoc(doc);
  const handle = options.handle === 'binary' ? binaryFromDoc(m, false) : configOffsetHandle(m);
  return pickleBooster(handle, pythonAttributes(m), options.protocol ?? 4);
}

/** XGBoosterSerializeToBuffer() of xgboost 1.0 – 1.4. */
function configOffsetHandle(m: DocModel): Uint8Array {
  const binary = binaryFromDoc(m, false);
  const config = utf8.encode(JSON.stringify(learnerConfig(m)));
  const out = new Uint8Array(CONFIG_OFFSET.length + 8 + binary.length + config.length);
  out.set(CONFIG_OFFSET, 0);
  new DataView(out.buffer).setBigInt64(CONFIG_OFFSET.length, BigInt(binary.length), true);
  out.set(binary, CONFIG_OFFSET.length + 8);
  out.set(config, CONFIG_OFFSET.length + 8 + binary.length);
  return out;
}

/**
 * The learner configuration (Learner::SaveConfig) that goes after the binary model: the model
 * parameters and objective from the document, training parameters at their defaults (they only
 * matter to continued training, which a SageMaker model artifact is not used for).
 */
function learnerConfig(m: DocModel): unknown {
  const s = (x: number): string => String(x);
  return {
    learner: {
      generic_param: {
        gpu_id: '-1',
        n_gpus: '0',
        n_jobs: '0',
        nthread: '0',
        random_state: '0',
        seed: '0',
        seed_per_iteration: '0',
        validate_parameters: '0',
      },
      gradient_booster: {
        name: 'gbtree',
        gbtree_train_param: {
          num_parallel_tree: s(m.numParallelTree),
          predictor: 'auto',
          process_type: 'default',
          tree_method: 'auto',
          updater: 'grow_colmaker,prune',
          updater_seq: 'grow_colmaker,prune',
        },
        specified_updater: false,
        updater: {},
      },
      learner_model_param: {
        base_score: s(m.baseScore),
        num_class: s(m.numClass),
        num_feature: s(m.numFeature),
      },
      learner_train_param: {
        booster: 'gbtree',
        disable_default_eval_metric: '0',
        dsplit: 'auto',
        objective: m.objectiveName,
      },
      metrics: [],
      objective: m.objective,
    },
    version: m.version,
  };
}

type PyValue = number | { float: number };

/** What xgboost.training.train() leaves in the Booster's __dict__ besides the handle. */
function pythonAttributes(m: DocModel): [string, PyValue][] {
  const groups = Math.max(m.numClass, 1) * Math.max(m.numParallelTree, 1);
  const rounds = Math.floor(m.trees.length / groups);
  const out: [string, PyValue][] = [];
  const bestScore = m.attributes.best_score;
  if (bestScore !== undefined && Number.isFinite(Number(bestScore)))
    out.push(['best_score', { float: Number(bestScore) }]);
  const attrIteration = Number(m.attributes.best_iteration);
  const bestIteration = Number.isInteger(attrIteration) ? attrIteration : rounds - 1;
  out.push(['best_iteration', bestIteration]);
  out.push(['best_ntree_limit', (bestIteration + 1) * Math.max(m.numParallelTree, 1)]);
  return out;
}

class PickleOut {
  private chunks: Uint8Array[] = [];
  private memo = 0;
  constructor(private readonly protocol: 3 | 4) {}
  bytes(...b: number[]): void {
    this.chunks.push(Uint8Array.from(b));
  }
  u32(v: number): Uint8Array {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    return b;
  }
  put(): void {
    // MEMOIZE (protocol 4) or BINPUT n; unpicklers only need them for back-references, which the
    // pickle module emits anyway.
    if (this.protocol >= 4) this.bytes(0x94);
    else if (this.memo < 256) this.bytes(0x71, this.memo);
    else this.chunks.push(Uint8Array.of(0x72), this.u32(this.memo));
    this.memo++;
  }
  str(s: string): void {
    const b = utf8.encode(s);
    if (this.protocol >= 4 && b.length < 256) this.bytes(0x8c, b.length);
    else this.chunks.push(Uint8Array.of(0x58), this.u32(b.length));
    this.chunks.push(b);
    this.put();
  }
  global(module: string, name: string): void {
    if (this.protocol >= 4) {
      this.str(module);
      this.str(name);
      this.bytes(0x93); // STACK_GLOBAL
    } else {
      this.chunks.push(Uint8Array.of(0x63), utf8.encode(`${module}\n${name}\n`)); // GLOBAL
    }
    this.put();
  }
  int(v: number): void {
    if (v >= 0 && v < 256) this.bytes(0x4b, v);
    else if (v >= 0 && v < 65536) this.bytes(0x4d, v & 0xff, v >>> 8);
    else {
      const b = new Uint8Array(5);
      b[0] = 0x4a;
      new DataView(b.buffer).setInt32(1, v, true);
      this.chunks.push(b);
    }
  }
  float(v: number): void {
    const b = new Uint8Array(9);
    b[0] = 0x47; // BINFLOAT, big-endian double
    new DataView(b.buffer).setFloat64(1, v, false);
    this.chunks.push(b);
  }
  binbytes(data: Uint8Array): void {
    if (data.length < 2 ** 32) this.chunks.push(Uint8Array.of(0x42), this.u32(data.length));
    else if (this.protocol >= 4) {
      const h = new Uint8Array(9);
      h[0] = 0x8e; // BINBYTES8
      new DataView(h.buffer).setBigUint64(1, BigInt(data.length), true);
      this.chunks.push(h);
    } else throw new ModelWriteError('a model of 4 GiB or more needs pickle protocol 4');
    this.chunks.push(data);
  }
  result(): Uint8Array {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

function pickleBooster(handle: Uint8Array, attrs: [string, PyValue][], protocol: 3 | 4): Uint8Array {
  if (protocol !== 3 && protocol !== 4) throw new ModelWriteError(`unsupported pickle protocol ${protocol}`);
  const p = new PickleOut(protocol);
  p.bytes(0x80, protocol); // PROTO
  p.global('xgboost.core', 'Booster');
  p.bytes(0x29, 0x81); // EMPTY_TUPLE, NEWOBJ: Booster.__new__(Booster)
  p.put();
  p.bytes(0x7d); // EMPTY_DICT: the state
  p.put();
  p.bytes(0x28); // MARK
  p.str('handle');
  p.global('builtins', 'bytearray');
  p.binbytes(handle);
  p.bytes(0x85, 0x52); // TUPLE1, REDUCE: bytearray(b'...')
  p.put();
  for (const [k, v] of attrs) {
    p.str(k);
    if (typeof v === 'number') p.int(v);
    else p.float(v.float);
  }
  p.bytes(0x75, 0x62, 0x2e); // SETITEMS, BUILD (__setstate__), STOP
  return p.result();
}
