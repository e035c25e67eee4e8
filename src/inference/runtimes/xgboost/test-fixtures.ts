// Helpers for the tests: locate and read the committed fixtures (test/fixtures/xgboost), which
// scripts/fixtures/xgboost/generate.py writes. Tests run from the repository root.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const FIXTURES = resolve(process.cwd(), 'test', 'fixtures', 'xgboost');

export interface FixtureCase {
  name: string;
  format: string;
  file: string;
  objective: string;
  booster: string;
  numFeatures: number;
  numClass: number;
  data: string;
  ref: string;
  ntreeLimit?: number;
}

export interface Manifest {
  xgboostVersion: string;
  seedRow: { csv: string; model: string; prediction: number };
  cases: FixtureCase[];
}

export function readFixture(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, rel)));
}

export function manifest(): Manifest {
  return JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Manifest;
}

const dataCache = new Map<string, { rows: Float32Array; nRows: number; nFeatures: number }>();

export function dataset(rel: string): { rows: Float32Array; nRows: number; nFeatures: number } {
  let d = dataCache.get(rel);
  if (!d) {
    const j = JSON.parse(readFileSync(join(FIXTURES, rel), 'utf8')) as { nFeatures: number; rows: (number | null)[][] };
    const rows = new Float32Array(j.rows.length * j.nFeatures);
    j.rows.forEach((r, i) => {
      r.forEach((v, k) => {
        rows[i * j.nFeatures + k] = v === null ? Number.NaN : v;
      });
    });
    d = { rows, nRows: j.rows.length, nFeatures: j.nFeatures };
    dataCache.set(rel, d);
  }
  return d;
}

export function reference(rel: string): { predictions: number[]; margins: number[]; predictionShape: number[] } {
  return JSON.parse(readFileSync(join(FIXTURES, rel), 'utf8'));
}

/** Largest relative difference (absolute below 1e-30 in magnitude). */
export function maxRelativeError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const a = got[i];
    const b = want[i];
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    const d = Math.abs(a - b) / Math.max(Math.abs(b), 1e-30);
    if (!(d <= worst)) worst = d;
  }
  return worst;
}

/** Deterministic PRNG (mulberry32) for fuzzing. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
