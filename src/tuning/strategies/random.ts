// Random search: each launch draws every parameter uniformly along its scale, from a generator
// seeded by RandomSeed and the launch number, so the same seed gives the same configurations in
// the same order whatever the timing of the jobs. In a space of few distinct points (integers and
// categories only) a point already tried is drawn again, as the space must hold MaxNumberOfTrainingJobs
// distinct points for such a job to be accepted.
import { type DefinitionSpace, pickDefinition, rngFor, type Strategy } from '../strategy.js';

export function randomStrategy(defs: readonly DefinitionSpace[], seed: number): Strategy {
  return {
    suggest(seq, trials) {
      const rng = rngFor(seed, seq, 1);
      const def = pickDefinition(defs, rng);
      let config = def.space.sample(rng);
      if (Number.isFinite(def.space.size())) {
        const tried = new Set(trials.filter((t) => t.definition === def.name).map((t) => def.space.key(t.config)));
        for (let i = 0; i < 1000 && tried.has(def.space.key(config)); i++) config = def.space.sample(rng);
      }
      return { definition: def.name, config };
    },
  };
}
