// What a step implementation is given and may ask for: the step with its modulators folded in
// (Op), the compiler's services (child traversals, by() values), and readers of its arguments.
// Step families export a StepTable; registry.ts joins them.
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { type Arg, type Step, Traversal } from '../steps.js';
import { Num, show, type Token, type Value } from '../values.js';
import type { QueryContext } from './context.js';
import type { Pipe, Trav } from './traverser.js';

/** A by() modulator, with its Order (asc/desc/shuffle) when it has one. */
export type ByMod =
  | { kind: 'identity'; order?: string }
  | { kind: 'key'; key: string; order?: string }
  | { kind: 'token'; token: Token; order?: string }
  | { kind: 'trav'; pipe: Pipe; reducing: boolean; order?: string };

/** A step with the modulators that follow it: by() in order, the others (times, with, from, ...) by name. */
export interface Op {
  readonly name: string;
  readonly args: readonly Arg[];
  readonly by: ByMod[];
  readonly mods: Map<string, Arg[][]>;
}

/** The compiler as a step sees it. */
export interface Compiler {
  readonly ctx: QueryContext;
  /** Compiles a child traversal (a step's traversal argument). */
  compile(steps: readonly Step[]): Pipe;
  /** Runs a compiled child traversal once per start (each its own tag); results per start. */
  runChild(pipe: Pipe, starts: readonly Trav[]): Promise<Trav[][]>;
  /** The value a by() modulator gives for each traverser's object (undefined: unproductive). */
  byValues(by: ByMod | undefined, travs: readonly Trav[]): Promise<(Value | undefined)[]>;
}

/** Builds the pipe of one step; `first` says it starts the root traversal. */
export type StepImpl = (c: Compiler, o: Op, first: boolean) => Pipe;
export type StepTable = Readonly<Record<string, StepImpl>>;

export const unsupported = (name: string): never => {
  throw new MalformedQueryException(
    `Unsupported Gremlin step: ${name}(). Slipway's graph store does not implement it.`,
  );
};

export const str = (a: Arg | undefined, what: string): string => {
  if (typeof a !== 'string') throw new MalformedQueryException(`${what} takes a string, not ${show(a as Value)}`);
  return a;
};

export const int = (a: Arg | undefined, what: string): number => {
  if (!(a instanceof Num) || !Number.isInteger(a.v)) throw new MalformedQueryException(`${what} takes an integer`);
  return a.v;
};

/** String arguments, lists flattened (out('a', 'b'), values(['a', 'b'])). */
export const strings = (args: readonly Arg[], what: string): string[] =>
  args.flatMap((a) => (Array.isArray(a) ? a : [a])).map((a) => str(a as Arg, what));

export const travArg = (a: Arg | undefined, what: string): Traversal => {
  if (!(a instanceof Traversal)) throw new MalformedQueryException(`${what} takes a traversal`);
  return a;
};
