// Limits from instance types: the table against AWS's published figures, capped to the host and to
// the operator's caps, and what a job's log says about them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { model } from '../generated/sagemaker/model.js';
import { instanceResources } from './instance-types.js';
import { jobLimits, serverLimits } from './limits.js';

const GiB = 1024 ** 3;
const host = { memoryBytes: 24 * GiB, cpus: 2 };

test('instance types: vCPUs and memory as AWS publishes them', () => {
  const cases: Array<[string, number, number]> = [
    ['ml.t3.medium', 2, 4],
    ['ml.t3.2xlarge', 8, 32],
    ['ml.m5.large', 2, 8],
    ['ml.m5.xlarge', 4, 16],
    ['ml.m5.24xlarge', 96, 384],
    ['ml.m4.10xlarge', 40, 160],
    ['ml.c5.xlarge', 4, 8],
    ['ml.c5.9xlarge', 36, 72],
    ['ml.c4.8xlarge', 36, 60],
    ['ml.c5n.xlarge', 4, 10.5],
    ['ml.r5.large', 2, 16],
    ['ml.r5d.24xlarge', 96, 768],
    ['ml.g4dn.xlarge', 4, 16],
    ['ml.g5.48xlarge', 192, 768],
    ['ml.g6e.xlarge', 4, 32],
    ['ml.p2.xlarge', 4, 61],
    ['ml.p3.2xlarge', 8, 61],
    ['ml.p3.16xlarge', 64, 488],
    ['ml.p4d.24xlarge', 96, 1152],
    ['ml.m7i.48xlarge', 192, 768],
    ['ml.c7i.large', 2, 4],
  ];
  for (const [type, vcpus, gib] of cases)
    assert.deepEqual(instanceResources(type), { vcpus, memoryMiB: gib * 1024 }, type);
  assert.equal(instanceResources('ml.x99.large'), undefined);
  assert.equal(instanceResources(undefined), undefined);
});

test('the table knows most training and processing instance types', () => {
  const shapes = model.shapes as unknown as Record<string, { enum?: string[] }>;
  for (const shape of ['TrainingInstanceType', 'ProcessingInstanceType']) {
    const types = shapes[shape]?.enum ?? [];
    const known = types.filter((t) => instanceResources(t));
    // New families (g7, p6 ...) fall back to the host's size, and the job's log says so.
    assert.ok(known.length / types.length > 0.8, `${shape}: ${known.length} of ${types.length}`);
  }
});

test('a job gets its instance type, capped to the host and to the operator', () => {
  const t3 = jobLimits('ml.t3.medium', 5, host);
  assert.equal(t3.memoryBytes, 4 * GiB);
  assert.equal(t3.cpus, 2);
  assert.equal(t3.diskBytes, 5 * GiB);
  assert.equal(t3.shmBytes, 2 * GiB);
  assert.ok(t3.pids >= 1024);
  assert.match(t3.source, /^ml\.t3\.medium \(2 vCPU, 4 GiB\): memory 4 GiB, 2 vCPU, disk 5 GiB$/);
  const big = jobLimits('ml.p3.16xlarge', undefined, { ...host, maxMemoryBytes: 256 * 1024 ** 2, maxDiskBytes: GiB });
  assert.equal(big.memoryBytes, 256 * 1024 ** 2);
  assert.equal(big.cpus, 2);
  assert.equal(big.diskBytes, GiB, 'VolumeSizeInGB defaults to 30, capped to 1 GiB');
  assert.match(
    big.source,
    /memory capped to the host; memory capped by --sandbox-max-memory-mb; vCPUs capped to the host; disk capped by --sandbox-max-disk-mb/,
  );
  const unknown = jobLimits('ml.x99.large', 1, host);
  assert.equal(unknown.memoryBytes, host.memoryBytes);
  assert.match(unknown.source, /ml\.x99\.large is not in Slipway's table/);
});

test("a model server gets its MemorySizeInMB and the host's CPUs", () => {
  const s = serverLimits(1024, host);
  assert.equal(s.memoryBytes, 1024 ** 3);
  assert.equal(s.cpus, 2);
  assert.equal(s.diskBytes, undefined);
  assert.equal(s.tmpBytes, 256 * 1024 ** 2);
});
