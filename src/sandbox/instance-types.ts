// vCPUs and memory of SageMaker's ML instance types, from which a job's sandbox limits come.
// https://aws.amazon.com/sagemaker/pricing/ (instance details) and the EC2 instance-type pages:
// most families scale regularly (large = 2 vCPUs, xlarge = 4, Nxlarge = 4N) at a fixed memory per
// vCPU; the irregular ones (t3, c4, c5n, p2, p3, p4, p5, trn) are listed whole.

export interface InstanceResources {
  readonly vcpus: number;
  readonly memoryMiB: number;
}

const GiB = 1024;

/** Memory per vCPU, in GiB, of the families that scale regularly. */
const PER_VCPU: Readonly<Record<string, number>> = {
  m4: 4,
  m5: 4,
  m5d: 4,
  m6i: 4,
  m7i: 4,
  c5: 2,
  c6i: 2,
  c7i: 2,
  r5: 8,
  r5d: 8,
  r7i: 8,
  g4dn: 4,
  g5: 4,
  g6: 4,
  g6e: 8,
};

/** Types whose vCPUs or memory do not follow their family's rule: [vCPUs, GiB]. */
const LISTED: Readonly<Record<string, readonly [number, number]>> = {
  'ml.t3.medium': [2, 4],
  'ml.t3.large': [2, 8],
  'ml.t3.xlarge': [4, 16],
  'ml.t3.2xlarge': [8, 32],
  'ml.c4.xlarge': [4, 7.5],
  'ml.c4.2xlarge': [8, 15],
  'ml.c4.4xlarge': [16, 30],
  'ml.c4.8xlarge': [36, 60],
  'ml.c5.9xlarge': [36, 72],
  'ml.c5.18xlarge': [72, 144],
  'ml.c5n.xlarge': [4, 10.5],
  'ml.c5n.2xlarge': [8, 21],
  'ml.c5n.4xlarge': [16, 42],
  'ml.c5n.9xlarge': [36, 96],
  'ml.c5n.18xlarge': [72, 192],
  'ml.m4.10xlarge': [40, 160],
  'ml.p2.xlarge': [4, 61],
  'ml.p2.8xlarge': [32, 488],
  'ml.p2.16xlarge': [64, 732],
  'ml.p3.2xlarge': [8, 61],
  'ml.p3.8xlarge': [32, 244],
  'ml.p3.16xlarge': [64, 488],
  'ml.p3dn.24xlarge': [96, 768],
  'ml.p4d.24xlarge': [96, 1152],
  'ml.p4de.24xlarge': [96, 1152],
  'ml.p5.4xlarge': [16, 256],
  'ml.p5.48xlarge': [192, 2048],
  'ml.p5e.48xlarge': [192, 2048],
  'ml.p5en.48xlarge': [192, 2048],
  'ml.trn1.2xlarge': [8, 32],
  'ml.trn1.32xlarge': [128, 512],
  'ml.trn1n.32xlarge': [128, 512],
  'ml.trn2.48xlarge': [192, 2048],
};

/** vCPUs of a size suffix: large 2, xlarge 4, Nxlarge 4N; medium 2 (t3). */
function vcpusOf(size: string): number | undefined {
  if (size === 'medium' || size === 'large') return 2;
  if (size === 'xlarge') return 4;
  const m = /^(\d+)xlarge$/.exec(size);
  return m ? 4 * Number(m[1]) : undefined;
}

/**
 * The type's vCPUs and memory, or undefined for a type this table does not know (a new family):
 * the caller then uses the host's own resources and says so in the job's log.
 */
export function instanceResources(type: string | undefined): InstanceResources | undefined {
  if (!type) return undefined;
  const listed = LISTED[type];
  if (listed) return { vcpus: listed[0], memoryMiB: listed[1] * GiB };
  const m = /^ml\.([a-z0-9-]+)\.([a-z0-9]+)$/.exec(type);
  if (!m) return undefined;
  const perVcpu = PER_VCPU[m[1]!];
  const vcpus = vcpusOf(m[2]!);
  if (perVcpu === undefined || vcpus === undefined) return undefined;
  return { vcpus, memoryMiB: vcpus * perVcpu * GiB };
}
