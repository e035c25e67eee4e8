// What the terminal steps of a query become (the parser turns next(n)/tryNext() into limit(n)):
// hasNext() answers whether anything came, iterate() runs the traversal for its side effects.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#terminal-steps
import { reduce } from './pipes.js';
import type { StepTable } from './step-api.js';

export const TERMINAL_STEPS: StepTable = {
  hasNext: (c) =>
    reduce(
      c.ctx,
      () => false,
      () => true,
      (x) => x,
    ),
  // iterate(): runs the traversal for its side effects and returns nothing.
  none: (c) =>
    async function* (input) {
      for await (const _ of input) await c.ctx.tick();
      yield* [];
    },
};
