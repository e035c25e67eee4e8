// Grid search: every combination of the categorical values (and, here, of the integers of integer
// ranges), each launched once, in order: the first parameter varies slowest. Launch `seq` is the
// grid's point number seq − 1 across the definitions in order, so a resumed job goes on where it was.
import type { Config, SearchSpace } from '../space.js';
import type { DefinitionSpace, Strategy } from '../strategy.js';

/** The number of points of a definition's grid. */
export function gridSize(space: SearchSpace): number {
  return space.size();
}

/** Point number `i` (0-based) of the space's grid. */
export function gridPoint(space: SearchSpace, i: number): Config {
  const out: Record<string, number | string> = {};
  let rest = i;
  for (let k = space.params.length - 1; k >= 0; k--) {
    const p = space.params[k]!;
    const n = p.kind === 'Categorical' ? p.values.length : p.max - p.min + 1;
    const j = rest % n;
    rest = Math.floor(rest / n);
    out[p.name] = p.kind === 'Categorical' ? p.values[j]! : p.min + j;
  }
  return out;
}

export function gridStrategy(defs: readonly DefinitionSpace[]): Strategy {
  return {
    suggest(seq) {
      let i = seq - 1;
      for (const def of defs) {
        const n = gridSize(def.space);
        if (i < n) return { definition: def.name, config: gridPoint(def.space, i) };
        i -= n;
      }
      return undefined;
    },
  };
}
