// The demo's data set: abalone-like measurements (sex, length, diameter, height, four weights) and
// the number of rings, drawn from a seeded generator so every run of `slipway demo` trains on the
// same realistic rows (the UCI abalone set's ranges and correlations; rings grow with shell weight).

/** A small deterministic PRNG (mulberry32): the same seed gives the same data everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DemoData {
  /** Label (rings) first, then the 9 features, no header: what the built-in XGBoost algorithm reads. */
  readonly train: string;
  readonly validation: string;
  /** Features only, one row per line: a batch transform's input and InvokeEndpoint bodies. */
  readonly features: readonly string[];
  readonly featureNames: readonly string[];
}

export const FEATURE_NAMES = [
  'sex_M',
  'sex_F',
  'sex_I',
  'length',
  'diameter',
  'height',
  'whole_weight',
  'shucked_weight',
  'viscera_weight',
  'shell_weight',
] as const;

/** `rows` abalone (default 3,000), 80 % for training and 20 % for validation. */
export function demoData(rows = 3000, seed = 42): DemoData {
  const rand = prng(seed);
  const normal = () => {
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  const r4 = (v: number) => Number(v.toFixed(4));
  const lines: string[] = [];
  const features: string[] = [];
  for (let i = 0; i < rows; i++) {
    const sex = Math.floor(rand() * 3); // M, F, infant
    const age = sex === 2 ? 0.25 + 0.35 * rand() : 0.4 + 0.6 * rand();
    const length = Math.min(0.815, Math.max(0.075, 0.1 + 0.6 * age + 0.04 * normal()));
    const diameter = r4(Math.max(0.055, length * (0.79 + 0.03 * normal())));
    const height = r4(Math.max(0.01, diameter * (0.34 + 0.04 * normal())));
    const whole = Math.max(0.002, 0.9 * length ** 3 * 4.2 * (1 + 0.12 * normal()));
    const shucked = whole * (0.43 + 0.04 * normal());
    const viscera = whole * (0.22 + 0.02 * normal());
    const shell = whole * (0.29 + 0.03 * normal());
    const rings = Math.max(1, Math.round(3 + 14 * age + 18 * shell + (sex === 2 ? -1 : 0) + 1.6 * normal()));
    const x = [
      sex === 0 ? 1 : 0,
      sex === 1 ? 1 : 0,
      sex === 2 ? 1 : 0,
      r4(length),
      diameter,
      height,
      r4(whole),
      r4(shucked),
      r4(viscera),
      r4(shell),
    ].join(',');
    lines.push(`${rings},${x}`);
    features.push(x);
  }
  const cut = Math.floor(rows * 0.8);
  return {
    train: `${lines.slice(0, cut).join('\n')}\n`,
    validation: `${lines.slice(cut).join('\n')}\n`,
    features: features.slice(cut),
    featureNames: FEATURE_NAMES,
  };
}
