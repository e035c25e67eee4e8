// How large a Gremlin query may be, whatever it arrives as (Groovy text, GraphSON or GraphBinary
// bytecode): steps in all (nested traversals included) and nesting depth. A query over a limit is
// refused before anything runs with Neptune's QueryLimitException (400: "the size of a query
// exceeds the system limit"); nothing about it can overflow the server's stack.
// https://docs.aws.amazon.com/neptune/latest/apiref/API_ExecuteGremlinQuery.html (Errors)
import { QueryLimitException } from '../../generated/neptunedata/errors.js';
import { type Arg, type Step, Traversal } from './steps.js';

/**
 * Steps one query may hold, nested traversals included. DEVIATION(neptune): Neptune documents no
 * number; 2,000 is far beyond any traversal written by hand or by a driver, and bounds the work
 * of compiling one.
 */
export const MAX_STEPS = 2000;

/** Levels of nesting (anonymous traversals, lists, predicates) one query may have. */
export const MAX_NESTING = 64;

export function nestingError(): QueryLimitException {
  return new QueryLimitException(`The query nests deeper than ${MAX_NESTING} levels, the most a query may have.`);
}

/** Throws QueryLimitException when the statements hold more than MAX_STEPS steps in all. */
export function checkQuerySize(statements: readonly (readonly Step[])[]): void {
  let n = 0;
  // Nesting is already bounded (parsers refuse deeper input), so this recursion is too.
  const count = (steps: readonly Step[]): void => {
    n += steps.length;
    if (n > MAX_STEPS) throw stepsError();
    for (const s of steps) for (const a of s.args) countArg(a);
  };
  const countArg = (a: Arg): void => {
    if (a instanceof Traversal) count(a.steps);
    else if (Array.isArray(a)) for (const x of a) countArg(x);
  };
  for (const s of statements) count(s);
}

function stepsError(): QueryLimitException {
  return new QueryLimitException(
    `The query has more than ${MAX_STEPS} steps, the most a query may have; split it into several queries.`,
  );
}
