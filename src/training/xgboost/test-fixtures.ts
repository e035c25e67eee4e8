// Loads the reference models trained by real xgboost 1.7.4 (scripts/fixtures/xgboost-train/make.py)
// for the trainer's tests.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DMatrix, TrainParams } from './types.js';

/** tests run from the repository root */
export const FIXTURES = `${resolve(process.cwd(), 'test', 'fixtures', 'xgboost-train')}/`;

export interface FixtureCase {
  name: string;
  data: string;
  split: number;
  params: Record<string, unknown>;
  lines: string[];
  margins: number[];
  /** instance weights of all rows, when the case has them */
  weights?: number[] | null;
  attributes: Record<string, string>;
}

export interface Fixtures {
  cases: FixtureCase[];
  sampled: { tree_method: string; params: Record<string, unknown>; split: number; rmse: number }[];
}

export function loadFixtures(): Fixtures {
  return JSON.parse(readFileSync(`${FIXTURES}cases.json`, 'utf8')) as Fixtures;
}

export function loadData(name: string): { X: Float32Array; y: Float32Array; n: number; d: number } {
  const buf = readFileSync(`${FIXTURES}${name}.bin`);
  const head = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + 8));
  const n = head[0];
  const d = head[1];
  const body = new Float32Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + 8 + (n * d + n) * 4));
  return { X: body.slice(0, n * d), y: body.slice(n * d), n, d };
}

/** rows [from, to) of a fixture data set as a DMatrix */
export function slice(
  ds: { X: Float32Array; y: Float32Array; d: number },
  from: number,
  to: number,
  weights?: number[] | null,
): DMatrix {
  return {
    numRows: to - from,
    numCols: ds.d,
    data: ds.X.slice(from * ds.d, to * ds.d),
    labels: ds.y.slice(from, to),
    ...(weights ? { weights: Float32Array.from(weights.slice(from, to)) } : {}),
  };
}

export function trainParams(p: Record<string, unknown>, overrides: Partial<TrainParams> = {}): TrainParams {
  return { ...(p as unknown as TrainParams), ...overrides };
}
