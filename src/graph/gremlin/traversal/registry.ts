// Where a step name finds its implementation: each step family exports a table of the steps it
// implements, and this joins them (a name in two tables is an error at load).
import { AGGREGATE_STEPS } from './aggregate-steps.js';
import { BRANCH_STEPS } from './branch-steps.js';
import { FILTER_STEPS } from './filter-steps.js';
import { MAP_STEPS } from './map-steps.js';
import { MODULATORS } from './modulators.js';
import { MUTATION_STEPS } from './mutation-steps.js';
import { NAVIGATION_STEPS } from './navigation-steps.js';
import { PATH_STEPS } from './path-steps.js';
import { REPEAT_STEPS } from './repeat-steps.js';
import { SOURCE_STEPS } from './source-steps.js';
import { type StepImpl, type StepTable, unsupported } from './step-api.js';
import { TERMINAL_STEPS } from './terminal-steps.js';

const FAMILIES: readonly StepTable[] = [
  SOURCE_STEPS,
  NAVIGATION_STEPS,
  MAP_STEPS,
  FILTER_STEPS,
  PATH_STEPS,
  AGGREGATE_STEPS,
  BRANCH_STEPS,
  REPEAT_STEPS,
  MUTATION_STEPS,
  TERMINAL_STEPS,
];

const STEPS = new Map<string, StepImpl>();
for (const family of FAMILIES)
  for (const [name, impl] of Object.entries(family)) {
    if (STEPS.has(name)) throw new Error(`Gremlin step ${name}() is implemented twice`);
    STEPS.set(name, impl);
  }

/** The implementation of a step; an unknown step is a MalformedQueryException naming it. */
export function stepImpl(name: string): StepImpl {
  return STEPS.get(name) ?? unsupported(name);
}

/** Whether a query may use this step or modulator. */
export function isKnownStep(name: string): boolean {
  return STEPS.has(name) || MODULATORS.includes(name);
}

/** Steps that write to the graph (a query using one runs in a transaction). */
export const MUTATING: ReadonlySet<string> = new Set(Object.keys(MUTATION_STEPS));
