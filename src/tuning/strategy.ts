// What every search strategy sees and answers (https://docs.aws.amazon.com/sagemaker/latest/dg/automatic-model-tuning-how-it-works.html):
// the training job definitions with their search spaces, the trials launched so far, and the next
// configuration to launch. Strategies are pure functions of that history and the seed, so a tuning
// job resumed on another replica goes on as it would have.
import { Rng } from '../training/xgboost/sampler.js';
import type { Config, SearchSpace } from './space.js';

/** A training job definition as the strategies see it: its name, space and objective direction. */
export interface DefinitionSpace {
  /** DefinitionName ('' for a single TrainingJobDefinition). */
  readonly name: string;
  readonly space: SearchSpace;
  readonly maximize: boolean;
}

/** A training job the tuning job launched (or, for a warm start, a parent's). */
export interface Trial {
  /** Launch order within its tuning job, from 1 (0 for a warm start's prior observations). */
  readonly seq: number;
  readonly definition: string;
  readonly config: Config;
  /** Still training (its objective is not known yet). */
  readonly pending: boolean;
  /** The final objective value, when the job reported one. */
  readonly objective?: number;
}

export interface Suggestion {
  readonly definition: string;
  readonly config: Config;
}

export interface Strategy {
  /**
   * The configuration to launch as job number `seq` (1-based), given every trial so far (pending
   * ones included), or undefined when there is nothing left to try (a grid run through).
   */
  suggest(seq: number, trials: readonly Trial[]): Suggestion | undefined;
}

/** A generator for launch `seq` of a tuning job seeded with `seed`; `salt` separates independent streams. */
export function rngFor(seed: number, seq: number, salt = 0): Rng {
  let h = Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(seq + 1, 0x85ebca77) ^ Math.imul(salt + 1, 0xc2b2ae3d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return new Rng((h ^ (h >>> 13)) >>> 0);
}

/** Picks a definition uniformly (one definition: always it). */
export function pickDefinition(defs: readonly DefinitionSpace[], rng: Rng): DefinitionSpace {
  return defs.length === 1 ? defs[0]! : defs[Math.floor(rng.next() * defs.length)]!;
}
