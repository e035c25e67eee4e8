// repeat() with times(), until() and emit() (before or after it), and loops(): the body runs on
// the whole frontier of a batch once per loop. https://tinkerpop.apache.org/docs/3.7.2/reference/#repeat-step
import { MalformedQueryException } from '../../../generated/neptunedata/errors.js';
import { Pred, Traversal } from '../steps.js';
import { Num } from '../values.js';
import { mapBatch } from './pipes.js';
import { int, type StepImpl, type StepTable, travArg } from './step-api.js';
import { once, type Pipe, type Trav } from './traverser.js';

/** An until()/emit() modulator: absent, bare (always true), a traversal or a predicate. */
interface Condition {
  present: boolean;
  pipe?: Pipe;
  pred?: Pred;
}

const repeat: StepImpl = (c, o) => {
  const ctx = c.ctx;
  const body = c.compile(travArg(o.args[0], 'repeat()').steps);
  const timesArg = o.mods.get('times')?.[0]?.[0];
  const times = timesArg !== undefined ? int(timesArg, 'times()') : undefined;
  const cond = (key: string): Condition => {
    const m = o.mods.get(key);
    if (!m) return { present: false };
    const x = m[0]?.[0];
    if (x === undefined) return { present: true };
    if (x instanceof Traversal) return { present: true, pipe: c.compile(x.steps) };
    if (x instanceof Pred) return { present: true, pred: x };
    throw new MalformedQueryException(`${key.replace(':first', '')}() takes a traversal`);
  };
  const until = cond('until');
  const untilFirst = o.mods.has('until:first');
  const emit = cond('emit');
  const emitFirst = o.mods.has('emit:first');
  const check = async (k: Condition, ts: Trav[]): Promise<boolean[]> => {
    if (k.pred) return ts.map((t) => k.pred!.test(t.obj));
    if (!k.pipe) return ts.map(() => true);
    return (await c.runChild(k.pipe, ts)).map((r) => r.length > 0);
  };
  return async function* (input, scope) {
    for await (const b of input) {
      let frontier: Trav[] = b.map((t) => ({ ...t, loops: 0 }));
      const startOut: Trav[] = [];
      if (untilFirst && until.present) {
        const stop = await check(until, frontier);
        startOut.push(...frontier.filter((_, i) => stop[i]));
        frontier = frontier.filter((_, i) => !stop[i]);
      }
      if (emitFirst && emit.present) {
        const em = await check(emit, frontier);
        startOut.push(...frontier.filter((_, i) => em[i]));
      }
      if (startOut.length > 0) yield startOut;
      while (frontier.length > 0) {
        await ctx.tick();
        // DEVIATION(neptune): the body runs once per loop, so a stateful step inside it
        // (dedup(), limit()) applies per loop rather than across all loops.
        const next: Trav[] = [];
        for await (const nb of body(once(frontier), scope)) {
          for (const t of nb) next.push({ ...t, loops: t.loops + 1 });
          ctx.guardBarrier(next.length);
        }
        const out: Trav[] = [];
        const done = times !== undefined ? next.map((t) => t.loops >= times) : next.map(() => false);
        if (until.present) {
          const stop = await check(until, next);
          stop.forEach((s, i) => {
            if (s) done[i] = true;
          });
        }
        const rest = next.filter((_, i) => !done[i]);
        next.forEach((t, i) => {
          if (done[i]) out.push(t);
        });
        if (emit.present && rest.length > 0) {
          const em = await check(emit, rest);
          rest.forEach((t, i) => {
            if (em[i]) out.push(t);
          });
        }
        if (out.length > 0) yield out;
        frontier = rest;
        ctx.guardBarrier(frontier.length);
      }
    }
  };
};

export const REPEAT_STEPS: StepTable = {
  repeat,
  loops: (c) => mapBatch(c.ctx, async (b) => b.map((t) => Num.int(t.loops))),
};
