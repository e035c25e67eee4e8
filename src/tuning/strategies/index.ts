// The strategy a plan names, seeded.
import type { TuningPlan } from '../plan.js';
import type { DefinitionSpace, Strategy } from '../strategy.js';
import { bayesianStrategy } from './bayesian.js';
import { gridStrategy } from './grid.js';
import { hyperbandStrategy } from './hyperband.js';
import { randomStrategy } from './random.js';

export function strategyFor(plan: TuningPlan, seed: number): Strategy {
  const defs: DefinitionSpace[] = plan.definitions.map((d) => ({ name: d.name, space: d.space, maximize: d.maximize }));
  switch (plan.strategy) {
    case 'Random':
      return randomStrategy(defs, seed);
    case 'Grid':
      return gridStrategy(defs);
    case 'Hyperband':
      return hyperbandStrategy(defs, seed);
    default:
      return bayesianStrategy(defs, seed, { budget: plan.maxJobs });
  }
}
