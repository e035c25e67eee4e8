// Modulators (by, times, until, emit, with, from, to, option) are folded into the step they
// modulate, so a step implementation sees one Op with its by() list and named modulators.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#by-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { type Arg, type Step, Traversal } from '../steps.js';
import { show, Token, type Value } from '../values.js';
import type { ByMod, Op } from './step-api.js';
import type { Pipe } from './traverser.js';

/** The modulators a query may use (option() is folded but refused: choose() does not take it). */
export const MODULATORS: readonly string[] = ['by', 'times', 'until', 'emit', 'with', 'from', 'to'];

/** Steps a by(traversal) ends in that reduce the traversal to one value (group().by(k).by(count())). */
const REDUCERS = new Set(['count', 'sum', 'min', 'max', 'mean', 'fold', 'group', 'groupCount']);

function orderOf(a: Arg | undefined): string | undefined {
  if (a instanceof Token && a.type === 'Order') return a.name;
  return undefined;
}

/** The steps as Ops, each with the modulators that follow it. */
export function foldModulators(steps: readonly Step[], compile: (steps: readonly Step[]) => Pipe): Op[] {
  const ops: Op[] = [];
  let pendingRepeatMods = new Map<string, Arg[][]>();
  for (const s of steps) {
    const last = ops[ops.length - 1];
    switch (s.name) {
      case 'by': {
        if (!last) throw new MalformedQueryException('by() must follow a step it modulates');
        last.by.push(byMod(s.args, compile));
        continue;
      }
      case 'times':
      case 'until':
      case 'emit': {
        // emit()/until() before repeat() apply to it and mean "check before the first loop".
        if (last?.name === 'repeat' && !(s.name !== 'times' && last.mods.has(`${s.name}:first`))) {
          const l = last.mods.get(s.name) ?? [];
          l.push([...s.args]);
          last.mods.set(s.name, l);
        } else {
          const key = s.name === 'times' ? 'times' : `${s.name}:first`;
          pendingRepeatMods.set(key, [[...s.args]]);
        }
        continue;
      }
      case 'with':
      case 'from':
      case 'to':
      case 'option': {
        if (!last) throw new MalformedQueryException(`${s.name}() must follow a step it modulates`);
        const l = last.mods.get(s.name) ?? [];
        l.push([...s.args]);
        last.mods.set(s.name, l);
        continue;
      }
    }
    const op: Op = { name: s.name, args: s.args, by: [], mods: new Map() };
    if (s.name === 'repeat') {
      for (const [k, v] of pendingRepeatMods) {
        op.mods.set(k, v);
        if (k !== 'times') op.mods.set(k.replace(':first', ''), v);
      }
      pendingRepeatMods = new Map();
    }
    ops.push(op);
  }
  if (pendingRepeatMods.size > 0)
    throw new MalformedQueryException(`${[...pendingRepeatMods.keys()][0]!.replace(':first', '')}() needs a repeat()`);
  return ops;
}

function byMod(args: readonly Arg[], compile: (steps: readonly Step[]) => Pipe): ByMod {
  const [a, b] = args;
  const order = orderOf(b) ?? (args.length === 1 ? orderOf(a) : undefined);
  if (a === undefined || (args.length === 1 && orderOf(a))) return { kind: 'identity', order };
  if (typeof a === 'string') return { kind: 'key', key: a, order };
  if (a instanceof Token) return { kind: 'token', token: a, order };
  if (a instanceof Traversal) {
    const lastStep = a.steps[a.steps.length - 1];
    return { kind: 'trav', pipe: compile(a.steps), reducing: !!lastStep && REDUCERS.has(lastStep.name), order };
  }
  throw new MalformedQueryException(`by() does not take ${show(a as Value)}`);
}
