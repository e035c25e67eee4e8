// The search space of a tuning job: its Integer, Continuous and Categorical parameter ranges with
// their scaling (Linear, Logarithmic, ReverseLogarithmic; Auto chooses), and the unit-cube encoding
// the strategies search in. https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-define-ranges.html
import type { Rng } from '../training/xgboost/sampler.js';

export type Scale = 'Linear' | 'Logarithmic' | 'ReverseLogarithmic';

export interface NumericParam {
  readonly name: string;
  readonly kind: 'Integer' | 'Continuous';
  readonly min: number;
  readonly max: number;
  readonly scale: Scale;
}

export interface CategoricalParam {
  readonly name: string;
  readonly kind: 'Categorical';
  readonly values: readonly string[];
}

export type Param = NumericParam | CategoricalParam;

/** One point of the space: a number for numeric parameters, one of the values for categorical ones. */
export type Config = Readonly<Record<string, number | string>>;

/**
 * What `ScalingType: Auto` becomes. SageMaker says only that it "chooses the best scale"; ours: a
 * range of positive values spanning at least two orders of magnitude is searched on a log scale
 * (learning rates, regularisation weights, round counts), anything else linearly.
 */
export function autoScale(kind: NumericParam['kind'], min: number, max: number): Scale {
  return min > 0 && max / min >= 100 && !(kind === 'Integer' && max - min < 10) ? 'Logarithmic' : 'Linear';
}

/** The interval a numeric parameter is scaled over: integers widened by half a step so every value has equal room. */
function bounds(p: NumericParam): [number, number] {
  return p.kind === 'Integer' ? [p.min - 0.5, p.max + 0.5] : [p.min, p.max];
}

const reverse = (v: number) => -Math.log1p(-v);

/** value → [0, 1] along the parameter's scale. */
export function toUnit(p: NumericParam, v: number): number {
  const [lo, hi] = bounds(p);
  if (hi === lo) return 0.5;
  let u: number;
  switch (p.scale) {
    case 'Linear':
      u = (v - lo) / (hi - lo);
      break;
    case 'Logarithmic': {
      // Integers widened below 1 stay positive: the range starts at 1 or more (checked at creation).
      const a = Math.log(Math.max(lo, Number.MIN_VALUE));
      u = (Math.log(v) - a) / (Math.log(hi) - a);
      break;
    }
    case 'ReverseLogarithmic':
      u = (reverse(v) - reverse(lo)) / (reverse(hi) - reverse(lo));
      break;
  }
  return Math.min(1, Math.max(0, u));
}

/** [0, 1] → the parameter's value (integers rounded, both clamped to the range). */
export function fromUnit(p: NumericParam, u: number): number {
  const [lo, hi] = bounds(p);
  const t = Math.min(1, Math.max(0, u));
  // The ends are the range's own values, not exp(log(x)) approximations of them.
  if (p.kind === 'Continuous' && (t === 0 || t === 1)) return t === 0 ? p.min : p.max;
  let v: number;
  switch (p.scale) {
    case 'Linear':
      v = lo + t * (hi - lo);
      break;
    case 'Logarithmic': {
      const a = Math.log(Math.max(lo, Number.MIN_VALUE));
      v = Math.exp(a + t * (Math.log(hi) - a));
      break;
    }
    case 'ReverseLogarithmic':
      v = -Math.expm1(-(reverse(lo) + t * (reverse(hi) - reverse(lo))));
      break;
  }
  if (p.kind === 'Integer') v = Math.round(v);
  return Math.min(p.max, Math.max(p.min, v));
}

/**
 * A space of parameters with an encoding into the unit cube for surrogate models: one coordinate
 * per numeric parameter, one per value (one-hot) for a categorical parameter.
 */
export class SearchSpace {
  readonly params: readonly Param[];
  /** Number of coordinates of an encoded point. */
  readonly dims: number;
  /** Where each parameter's coordinates start. */
  readonly offsets: readonly number[];

  constructor(params: readonly Param[]) {
    this.params = params;
    const offsets: number[] = [];
    let d = 0;
    for (const p of params) {
      offsets.push(d);
      d += p.kind === 'Categorical' ? p.values.length : 1;
    }
    this.offsets = offsets;
    this.dims = d;
  }

  /** A point drawn uniformly along each parameter's scale (log-uniform on a log scale). */
  sample(rng: Rng): Config {
    const out: Record<string, number | string> = {};
    for (const p of this.params) {
      out[p.name] =
        p.kind === 'Categorical' ? p.values[Math.floor(rng.next() * p.values.length)]! : fromUnit(p, rng.next());
    }
    return out;
  }

  encode(c: Config): Float64Array {
    const x = new Float64Array(this.dims);
    this.params.forEach((p, i) => {
      const o = this.offsets[i]!;
      if (p.kind === 'Categorical') x[o + Math.max(0, p.values.indexOf(String(c[p.name])))] = 1;
      else x[o] = toUnit(p, Number(c[p.name]));
    });
    return x;
  }

  /** The point a unit-cube vector stands for: numeric coordinates scaled back, each categorical its largest coordinate. */
  decode(x: ArrayLike<number>): Config {
    const out: Record<string, number | string> = {};
    this.params.forEach((p, i) => {
      const o = this.offsets[i]!;
      if (p.kind === 'Categorical') {
        let best = 0;
        for (let k = 1; k < p.values.length; k++) if (x[o + k]! > x[o + best]!) best = k;
        out[p.name] = p.values[best]!;
      } else {
        out[p.name] = fromUnit(p, x[o]!);
      }
    });
    return out;
  }

  /** The hyperparameter strings a training job gets, as SageMaker writes them (`"0.27165945"`, `"6"`). */
  format(c: Config): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of this.params) out[p.name] = String(c[p.name]);
    return out;
  }

  /** Reads a training job's tuned hyperparameters back; undefined when one is missing or outside the range. */
  parse(values: Readonly<Record<string, string>>): Config | undefined {
    const out: Record<string, number | string> = {};
    for (const p of this.params) {
      const raw = values[p.name];
      if (raw === undefined) return undefined;
      if (p.kind === 'Categorical') {
        if (!p.values.includes(raw)) return undefined;
        out[p.name] = raw;
      } else {
        const v = Number(raw);
        if (!Number.isFinite(v) || v < p.min || v > p.max || (p.kind === 'Integer' && !Number.isInteger(v)))
          return undefined;
        out[p.name] = v;
      }
    }
    return out;
  }

  /** Identity of a point, for telling configurations already tried. */
  key(c: Config): string {
    return this.params.map((p) => `${p.name}=${c[p.name]}`).join('\u0000');
  }

  /** How many distinct points there are (Infinity with a continuous parameter). */
  size(): number {
    let n = 1;
    for (const p of this.params) {
      if (p.kind === 'Categorical') n *= p.values.length;
      else if (p.kind === 'Integer') n *= p.max - p.min + 1;
      else return p.min === p.max ? n : Number.POSITIVE_INFINITY;
    }
    return n;
  }
}
