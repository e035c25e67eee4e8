// The model file a SageMaker XGBoost training container of a given version leaves in /opt/ml/model
// (aws/sagemaker-xgboost-container, algorithm_mode/train.py, train_job):
//   * 1.3-1 … 1.7-x: `bst.save_model("xgboost-model")`: no .json/.ubj extension, so xgboost
//     (1.3.3, 1.5.2, 1.7.4) writes its legacy binary format;
//   * 1.2-x: `pickle.dump(bst, f, protocol=4)` of the Booster (serialised as "CONFIG-offset:");
//   * 1.0-1: `pickle.dump(bst, f)` with Python 3's default protocol 3;
//   * the first-generation images (`xgboost:1`, `:latest`, 0.72) and 0.90-x pickled the Booster
//     too, whose state held the binary model alone.

import {
  type ContainerVersion,
  parseContainerVersion,
  XGBOOST_MODEL_FILE,
} from '../../../inference/runtimes/xgboost/index.js';
import type { XGBoostJsonModel } from '../types.js';
import { writeBinaryModel } from './binary-writer.js';
import { ModelWriteError } from './errors.js';
import { writePickledBooster } from './pickle-writer.js';

export type ModelFileFormat = 'binary' | 'pickle';

export interface ModelFile {
  /** always 'xgboost-model', the name every container version uses */
  fileName: string;
  bytes: Uint8Array;
  format: ModelFileFormat;
  /** the container version the file was written for */
  version: ContainerVersion;
}

/** Parse an image URI (or accept an already parsed version); throws ModelWriteError for non-XGBoost images. */
export function containerVersionOf(image: string | ContainerVersion): ContainerVersion {
  if (typeof image !== 'string') return image;
  const v = parseContainerVersion(image);
  if (!v) throw new ModelWriteError(`'${image}' is not a SageMaker XGBoost algorithm image`);
  return v;
}

const atLeast = (v: ContainerVersion, major: number, minor: number): boolean =>
  v.major > major || (v.major === major && v.minor >= minor);

/** How the container of that version writes its model. */
export function modelFormatFor(v: ContainerVersion): ModelFileFormat {
  if (atLeast(v, 2, 0)) {
    // DEVIATION(xgboost): 2.x/3.x containers save UBJSON (save_model's default since 2.0) and
    // train with xgboost 2/3; the trainer implements xgboost 1.7, so those images are refused.
    throw new ModelWriteError(
      `image tag ${v.tag} runs xgboost ${v.major}.${v.minor}; training supports the SageMaker XGBoost containers up to 1.7-1`,
    );
  }
  return atLeast(v, 1, 3) ? 'binary' : 'pickle';
}

/** The `xgboost-model` file the container of `image` (URI or version) writes for this model. */
export function modelFileFor(image: string | ContainerVersion, doc: XGBoostJsonModel): ModelFile {
  const version = containerVersionOf(image);
  const format = modelFormatFor(version);
  let bytes: Uint8Array;
  if (format === 'binary') bytes = writeBinaryModel(doc);
  else if (atLeast(version, 1, 2)) bytes = writePickledBooster(doc, { protocol: 4, handle: 'config-offset' });
  else if (atLeast(version, 1, 0)) bytes = writePickledBooster(doc, { protocol: 3, handle: 'config-offset' });
  // DEVIATION(xgboost): 0.72 ran under Python 2 (pickle protocol 2); protocol 3 is what every
  // Python 3 unpickler (and our serving loader) reads, and the state is the same.
  else bytes = writePickledBooster(doc, { protocol: 3, handle: 'binary' });
  return { fileName: XGBOOST_MODEL_FILE, bytes, format, version };
}
