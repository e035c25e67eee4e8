// What one sandbox may use: memory, CPU, processes, disk and shared memory, from a job's instance
// type and VolumeSizeInGB (or a model server's MemorySizeInMB), capped to what the host has and to
// the operator's own caps (--sandbox-max-memory-mb, --sandbox-max-disk-mb).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ResourceConfig.html
import { availableParallelism, totalmem } from 'node:os';
import { instanceResources } from './instance-types.js';

export interface Limits {
  readonly memoryBytes: number;
  /** CPU time, in cores (a CFS quota; may be fractional). */
  readonly cpus: number;
  /** Tasks (processes and threads) at once. */
  readonly pids: number;
  /** Bytes the job may write under /opt/ml and /tmp (its volume); none for model servers. */
  readonly diskBytes?: number;
  /** Size of the tmpfs at /dev/shm. */
  readonly shmBytes: number;
  /** Size of the tmpfs at /tmp when /tmp is not a directory on disk (model servers). */
  readonly tmpBytes: number;
  /** Where the figures come from, for the job's log: `ml.m5.xlarge (4 vCPU, 16 GiB)`. */
  readonly source: string;
}

export interface HostCaps {
  readonly memoryBytes: number;
  readonly cpus: number;
  /** The operator's cap on any one sandbox's memory. */
  readonly maxMemoryBytes?: number;
  /** The operator's cap on any one job's disk. */
  readonly maxDiskBytes?: number;
}

export function hostCaps(o: { maxMemoryMB?: number; maxDiskMB?: number } = {}): HostCaps {
  return {
    memoryBytes: totalmem(),
    cpus: availableParallelism(),
    maxMemoryBytes: o.maxMemoryMB ? o.maxMemoryMB * MiB : undefined,
    maxDiskBytes: o.maxDiskMB ? o.maxDiskMB * MiB : undefined,
  };
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Processes and threads a sandbox may have: 256 per vCPU, at least 1,024 (thread pools count). */
const pidsFor = (cpus: number) => Math.max(1024, Math.ceil(cpus) * 256);

const fmt = (bytes: number) => (bytes >= GiB ? `${+(bytes / GiB).toFixed(2)} GiB` : `${Math.round(bytes / MiB)} MiB`);

/** A training or processing job's limits from its ResourceConfig / ClusterConfig. */
export function jobLimits(
  instanceType: string | undefined,
  volumeSizeInGB: number | undefined,
  host: HostCaps,
): Limits {
  const r = instanceResources(instanceType);
  const notes: string[] = [];
  let memory = r ? r.memoryMiB * MiB : host.memoryBytes;
  let cpus = r ? r.vcpus : host.cpus;
  if (!r) notes.push(instanceType ? `${instanceType} is not in Slipway's table: the host's size` : 'no instance type');
  if (memory > host.memoryBytes) {
    memory = host.memoryBytes;
    notes.push('memory capped to the host');
  }
  if (host.maxMemoryBytes !== undefined && memory > host.maxMemoryBytes) {
    memory = host.maxMemoryBytes;
    notes.push('memory capped by --sandbox-max-memory-mb');
  }
  if (cpus > host.cpus) {
    cpus = host.cpus;
    notes.push('vCPUs capped to the host');
  }
  let disk = (volumeSizeInGB ?? 30) * GiB;
  if (host.maxDiskBytes !== undefined && disk > host.maxDiskBytes) {
    disk = host.maxDiskBytes;
    notes.push('disk capped by --sandbox-max-disk-mb');
  }
  const what = r ? `${instanceType} (${r.vcpus} vCPU, ${fmt(r.memoryMiB * MiB)})` : 'the host';
  return {
    memoryBytes: memory,
    cpus,
    pids: pidsFor(cpus),
    diskBytes: disk,
    shmBytes: Math.floor(memory / 2),
    tmpBytes: Math.floor(memory / 2),
    source: `${what}: memory ${fmt(memory)}, ${cpus} vCPU, disk ${fmt(disk)}${notes.length ? ` (${notes.join('; ')})` : ''}`,
  };
}

/** A model server's limits from its variant's MemorySizeInMB (CPU: the host's, as serverless shares it). */
export function serverLimits(memoryMB: number, host: HostCaps): Limits {
  let memory = Math.min(memoryMB * MiB, host.memoryBytes);
  if (host.maxMemoryBytes !== undefined) memory = Math.min(memory, host.maxMemoryBytes);
  return {
    memoryBytes: memory,
    cpus: host.cpus,
    pids: pidsFor(host.cpus),
    shmBytes: Math.floor(memory / 4),
    tmpBytes: Math.floor(memory / 4),
    source: `MemorySizeInMB ${memoryMB}: memory ${fmt(memory)}`,
  };
}
