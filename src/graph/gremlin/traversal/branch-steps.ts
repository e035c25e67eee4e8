// Steps that run child traversals per traverser: not, optional, local, coalesce, union, map,
// flatMap, filter, sideEffect, choose. Each child runs once per batch, with one tag per parent
// traverser, and its results go back to their parent's tag.
// https://tinkerpop.apache.org/docs/3.7.2/reference/#branch-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { Pred } from '../steps.js';
import { perBatch } from './pipes.js';
import { type Compiler, type Op, type StepImpl, type StepTable, travArg } from './step-api.js';
import { type Batch, extend, type Pipe, type Trav } from './traverser.js';

/** The step's traversal arguments, compiled (choose's leading predicate left out). */
function branches(c: Compiler, o: Op, skipFirst = false): Pipe[] {
  const pipes = o.args.filter((_, i) => !(skipFirst && i === 0)).map((x) => c.compile(travArg(x, `${o.name}()`).steps));
  if (pipes.length === 0) throw new MalformedQueryException(`${o.name}() needs a traversal`);
  return pipes;
}

/** A child's result, back in its parent's tag. */
const restore = (parent: Trav, r: Trav): Trav => ({ ...r, tag: parent.tag });

/** A step over one child traversal: f makes the output from each parent and its child results. */
function withChild(c: Compiler, o: Op, f: (t: Trav, res: Trav[], out: Batch) => void): Pipe {
  const [pipe] = branches(c, o);
  return perBatch(c.ctx, async (b) => {
    const res = await c.runChild(pipe!, b);
    const out: Batch = [];
    for (let i = 0; i < b.length; i++) f(b[i]!, res[i]!, out);
    return out;
  });
}

const not: StepImpl = (c, o) =>
  withChild(c, o, (t, res, out) => {
    if (res.length === 0) out.push(t);
  });

const optionalOrLocal: StepImpl = (c, o) =>
  withChild(c, o, (t, res, out) => {
    if (res.length > 0) for (const r of res) out.push(restore(t, r));
    else if (o.name === 'optional') out.push(t);
  });

/** map/flatMap append the child's result to the path, not the child's own steps. */
const mapOrFlatMap: StepImpl = (c, o) =>
  withChild(c, o, (t, res, out) => {
    for (const r of o.name === 'map' ? res.slice(0, 1) : res) out.push(extend(t, r.obj));
  });

const filterOrSideEffect: StepImpl = (c, o) =>
  withChild(c, o, (t, res, out) => {
    if (o.name === 'sideEffect' || res.length > 0) out.push(t);
  });

/** Each traverser takes the first branch that yields anything. */
const coalesce: StepImpl = (c, o) => {
  const pipes = branches(c, o);
  return perBatch(c.ctx, async (b) => {
    const answers: Trav[][] = b.map(() => []);
    let pending = b.map((_, i) => i);
    for (const pipe of pipes) {
      if (pending.length === 0) break;
      const res = await c.runChild(
        pipe,
        pending.map((i) => b[i]!),
      );
      const still: number[] = [];
      pending.forEach((i, k) => {
        if (res[k]!.length > 0) answers[i] = res[k]!;
        else still.push(i);
      });
      pending = still;
    }
    const out: Batch = [];
    b.forEach((t, i) => {
      for (const r of answers[i]!) out.push(restore(t, r));
    });
    return out;
  });
};

/**
 * choose(condition, whenTrue[, whenFalse]): a predicate on the object, or a traversal that
 * yields something; without whenFalse the traverser passes unchanged.
 */
const choose: StepImpl = (c, o) => {
  const cond = o.args[0] instanceof Pred ? o.args[0] : undefined;
  const pipes = branches(c, o, cond !== undefined);
  if (o.args.length < 2)
    throw new MalformedQueryException(
      'choose() takes a condition and one or two traversals (option() is not supported)',
    );
  const [test, yes, no] = cond ? [undefined, pipes[0]!, pipes[1]] : [pipes[0]!, pipes[1]!, pipes[2]];
  return perBatch(c.ctx, async (b) => {
    const truth = test ? (await c.runChild(test, b)).map((r) => r.length > 0) : b.map((t) => cond!.test(t.obj));
    const ti = b.flatMap((_, i) => (truth[i] ? [i] : []));
    const fi = b.flatMap((_, i) => (truth[i] ? [] : [i]));
    const tr = await c.runChild(
      yes,
      ti.map((i) => b[i]!),
    );
    const fr = no
      ? await c.runChild(
          no,
          fi.map((i) => b[i]!),
        )
      : fi.map((i) => [b[i]!]);
    const per: Trav[][] = b.map(() => []);
    ti.forEach((i, k) => {
      per[i] = tr[k]!;
    });
    fi.forEach((i, k) => {
      per[i] = fr[k]!;
    });
    const out: Batch = [];
    b.forEach((t, i) => {
      for (const r of per[i]!) out.push(restore(t, r));
    });
    return out;
  });
};

/**
 * DEVIATION(neptune): branches run per traverser (each traverser's results, branch by branch, in
 * order), so a reducing step inside a branch (union(count(), ...)) reduces that traverser's
 * results, where TinkerPop's global branches would reduce them all.
 */
const union: StepImpl = (c, o) => {
  const pipes = branches(c, o);
  return perBatch(c.ctx, async (b) => {
    const res = await Promise.all(pipes.map((p) => c.runChild(p, b)));
    const out: Batch = [];
    b.forEach((t, i) => {
      for (const branch of res) for (const r of branch[i]!) out.push(restore(t, r));
    });
    return out;
  });
};

export const BRANCH_STEPS: StepTable = {
  not,
  optional: optionalOrLocal,
  local: optionalOrLocal,
  coalesce,
  union,
  map: mapOrFlatMap,
  flatMap: mapOrFlatMap,
  filter: filterOrSideEffect,
  sideEffect: filterOrSideEffect,
  choose,
};
