// The abalone-like data set the trainer's fixtures were made from (test/fixtures/xgboost-train/
// abalone.bin: int32 rows, cols; float32 features row-major; float32 labels), as the notebook's CSV:
// the label first, no header.
import { readFileSync } from 'node:fs';

export function abaloneCsv(rows?: number): string {
  const buf = readFileSync(new URL('../../../test/fixtures/xgboost-train/abalone.bin', import.meta.url));
  const n = buf.readInt32LE(0);
  const d = buf.readInt32LE(4);
  const x = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + n * d * 4));
  const y = new Float32Array(buf.buffer.slice(buf.byteOffset + 8 + n * d * 4, buf.byteOffset + 8 + n * d * 4 + n * 4));
  const lines: string[] = [];
  for (let i = 0; i < (rows ?? n); i++) {
    lines.push([y[i], ...Array.from(x.subarray(i * d, (i + 1) * d))].map((v) => Number(v!.toPrecision(6))).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** The seed notebook's training job: its built-in XGBoost image and hyperparameters (reference.md §1). */
export const NOTEBOOK_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
export const NOTEBOOK_HYPERPARAMETERS: Readonly<Record<string, string>> = {
  objective: 'reg:linear',
  num_round: '50',
  max_depth: '5',
  eta: '0.2',
  gamma: '4',
  min_child_weight: '6',
  subsample: '0.7',
};

/**
 * The same rows as AWS's raw abalone-dataset.csv lays them out (the abalone pipeline's input): sex
 * (M, F, I), seven measurements, rings last; no header.
 */
export function rawAbaloneCsv(rows?: number): string {
  return abaloneCsv(rows)
    .trim()
    .split('\n')
    .map((line) => {
      const [rings, sex, ...measures] = line.split(',');
      return [['M', 'F', 'I'][Number(sex)] ?? 'I', ...measures, rings].join(',');
    })
    .join('\n')
    .concat('\n');
}
