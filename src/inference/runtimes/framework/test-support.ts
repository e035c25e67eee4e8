// Shared by the framework runtime's tests, its e2e test and bench/frameworks.ts: the fixture
// models (scripts/fixtures/framework-models.py, made with the Debian python3) and user scripts.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { TarEntry } from '../../testing/tar.js';

export const SKLEARN_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-scikit-learn:1.2-1-cpu-py3';
export const XGBOOST_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1';
export const PYTORCH_IMAGE =
  '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0.1-cpu-py310-ubuntu20.04-sagemaker';

export const SYSTEM_PYTHON = process.env.SLIPWAY_PYTHON ?? '/usr/bin/python3';

/**
 * Why the framework tests cannot run here (undefined when they can): without the module, a skip
 * with what to install on a developer's machine, a failure in CI.
 */
export function frameworkMissing(module: string, debianPackage: string): string | undefined {
  const r = spawnSync(SYSTEM_PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' });
  if (r.status === 0) return undefined;
  const msg = `${SYSTEM_PYTHON} cannot import ${module}: apt-get install -y ${debianPackage}`;
  if (process.env.CI && module !== 'torch') throw new Error(msg);
  return msg;
}

/** Writes a fixture model (sklearn → model.joblib, xgboost → xgboost-model, pytorch → model.pt) into a new directory. */
export function makeModel(kind: 'sklearn' | 'xgboost' | 'pytorch'): string {
  const dir = mkdtempSync(join(tmpdir(), `slipway-fw-${kind}-`));
  const script = resolve(process.cwd(), 'scripts', 'fixtures', 'framework-models.py');
  const r = spawnSync(SYSTEM_PYTHON, [script, kind, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`making the ${kind} model failed: ${r.stderr}`);
  return dir;
}

/** The files of a directory as tar entries under `prefix`. */
export function dirEntries(dir: string, prefix = ''): TarEntry[] {
  const out: TarEntry[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: prefix + relative(dir, p), data: readFileSync(p) });
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** The user's inference.py as the SDK's examples write it: model_fn only, the toolkit's defaults otherwise. */
export const SKLEARN_INFERENCE = `import os
import joblib

print("inference.py imported")


def model_fn(model_dir):
    print("loading", os.path.join(model_dir, "model.joblib"))
    return joblib.load(os.path.join(model_dir, "model.joblib"))
`;
