// Shared set-up for the inference tests: a temporary data directory, an in-memory BlobStore and
// variant specs. Tests run from the repository root.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInferenceEngine, type InferenceEngineOptions, type SlipwayInferenceEngine } from '../create-engine.js';
import type { ContainerSpec, VariantSpec } from '../engine.js';
import { MemoryBlobStore } from './memory-blob-store.js';

export const FIXTURES = resolve(process.cwd(), 'test', 'fixtures');
export const XGB_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.0-1-cpu-py3';
export const ABALONE_ROW = '.345,0.224414,.131102,0.042329,.279923,-0.110329,-0.099358,0.0';
export const ABALONE_PREDICTION = '15.40542221069336';

export function fixture(rel: string): Buffer {
  return readFileSync(join(FIXTURES, rel));
}

export interface Harness {
  readonly engine: SlipwayInferenceEngine;
  readonly blobs: MemoryBlobStore;
  readonly dataDir: string;
  close(): Promise<void>;
}

export function harness(options: Partial<InferenceEngineOptions> = {}): Harness {
  const dataDir = mkdtempSync(join(tmpdir(), 'slipway-inference-'));
  const blobs = new MemoryBlobStore();
  const engine = createInferenceEngine({ blobs, dataDir, ...options });
  return {
    engine,
    blobs,
    dataDir,
    async close() {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let n = 0;
export function variant(
  container: Partial<ContainerSpec> & { image: string },
  serverless: Partial<VariantSpec['serverless']> = {},
  endpointName = `ep-${++n}`,
): VariantSpec {
  return {
    endpointName,
    variantName: 'AllTraffic',
    containers: [{ environment: {}, ...container }],
    serverless: { memorySizeInMB: 1024, maxConcurrency: 10, ...serverless },
  };
}

export const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
export const body = (s: string): Uint8Array => Buffer.from(s);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A metric's value from the Prometheus text. */
export function metric(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
