// One entry point for Gremlin queries on the graph port, shared by HTTP (/gremlin) and the
// WebSocket driver endpoint: parse (Groovy text or bytecode), check, apply the query's timeout,
// and stream result batches from the engine.
// https://docs.aws.amazon.com/neptune/latest/userguide/gremlin-query-hints-evaluationTimeout.html
import type { IncomingMessage } from 'node:http';
import { MalformedQueryException } from '../../generated/neptunedata/errors.js';
import type { Database } from '../../storage/db/types.js';
import { type Bytecode, readBytecode } from './bytecode.js';
import { BinaryBytecode } from './graphbinary.js';
import { checkSteps, DEFAULT_LIMITS, type EngineLimits, GremlinEngine, queryEffects } from './engine.js';
import { checkQuerySize } from './limits.js';
import { parseGremlin } from './parser.js';
import type { Step } from './steps.js';
import { GMap, Num, type Value } from './values.js';

export interface GremlinLimits extends EngineLimits {
  /** Largest serialized answer one HTTP request may get. */
  readonly maxResponseBytes: number;
}

export const DEFAULT_GREMLIN_LIMITS: GremlinLimits = { ...DEFAULT_LIMITS, maxResponseBytes: 64 * 1024 * 1024 };

export type GremlinRequest =
  | { readonly kind: 'groovy'; readonly text: string; readonly timeoutMs?: number }
  /** GraphSON bytecode (JSON) or bytecode already read from GraphBinary. */
  | { readonly kind: 'bytecode'; readonly bytecode: unknown; readonly timeoutMs?: number };

const TIMEOUT_KEYS = new Set(['evaluationTimeout', 'scriptEvaluationTimeout']);

function timeoutOf(v: unknown): number | undefined {
  if (v instanceof Num) return v.v;
  if (typeof v === 'number') return v;
  return undefined;
}

/** `g.with('evaluationTimeout', 500).V()...`: source options before the first step. */
function sourceOptions(steps: readonly Step[]): { steps: Step[]; timeoutMs?: number } {
  let timeoutMs: number | undefined;
  let i = 0;
  for (; i < steps.length; i++) {
    const [k, v] = steps[i]!.args;
    const name = steps[i]!.name;
    // Neptune's query hints (g.withSideEffect('Neptune#repeatMode', 'BFS'), ...) tune Neptune's
    // own engine; they are accepted and have no effect here.
    const hint = (name === 'withSideEffect' || name === 'with') && typeof k === 'string' && k.startsWith('Neptune#');
    if (name !== 'with' && !hint) break;
    if (typeof k === 'string' && TIMEOUT_KEYS.has(k)) timeoutMs = timeoutOf(v);
  }
  return { steps: steps.slice(i), timeoutMs };
}

/** withStrategies(OptionsStrategy{evaluationTimeout}) from drivers' g.with_(...) */
function bytecodeTimeout(b: Bytecode): number | undefined {
  for (const s of b.sources) {
    if (s.name === 'with' && typeof s.args[0] === 'string' && TIMEOUT_KEYS.has(s.args[0])) return timeoutOf(s.args[1]);
    if (s.name === 'withStrategies')
      for (const a of s.args) {
        if (a instanceof GMap)
          for (const k of TIMEOUT_KEYS) {
            const t = timeoutOf(a.get(k));
            if (t !== undefined) return t;
          }
      }
  }
  return undefined;
}

/** Authorization of one query by what it does (Neptune's ReadDataViaQuery, WriteDataViaQuery, DeleteDataViaQuery). */
export type QueryCheck = (effects: { write: boolean; drop: boolean }) => void;

/** The caller of a request or a WebSocket connection, asked about each of its queries. */
export type QueryAccess = (req: IncomingMessage, effects: { write: boolean; drop: boolean }) => void;

export class GremlinService {
  readonly engine: GremlinEngine;
  constructor(
    db: Database,
    readonly limits: GremlinLimits = DEFAULT_GREMLIN_LIMITS,
  ) {
    this.engine = new GremlinEngine(db, limits);
  }

  /** Parses and checks a request; errors here are MalformedQueryException before anything runs. */
  prepare(r: GremlinRequest): { statements: Step[][]; timeoutMs: number } {
    let statements: Step[][];
    let timeoutMs = r.timeoutMs;
    if (r.kind === 'groovy') {
      if (r.text.trim() === '') throw new MalformedQueryException('The gremlin query is empty');
      statements = parseGremlin(r.text).map((s) => {
        const o = sourceOptions(s);
        if (o.timeoutMs !== undefined) timeoutMs = o.timeoutMs;
        return o.steps;
      });
    } else {
      const b: Bytecode =
        r.bytecode instanceof BinaryBytecode
          ? { steps: [...r.bytecode.steps], sources: r.bytecode.sources }
          : readBytecode(r.bytecode as Parameters<typeof readBytecode>[0]);
      timeoutMs = bytecodeTimeout(b) ?? timeoutMs;
      statements = [b.steps];
    }
    if (statements.some((s) => s.length === 0)) throw new MalformedQueryException('The traversal has no steps');
    checkQuerySize(statements);
    checkSteps(statements);
    // A query may shorten its budget, never extend the server's.
    const budget = Math.min(timeoutMs && timeoutMs > 0 ? timeoutMs : this.limits.timeoutMs, this.limits.timeoutMs);
    return { statements, timeoutMs: budget };
  }

  /** Runs a query; `check` sees what it does (reads, writes, deletes) first and throws to refuse it. */
  stream(r: GremlinRequest, check?: QueryCheck): AsyncGenerator<Value[]> {
    const { statements, timeoutMs } = this.prepare(r);
    check?.(queryEffects(statements));
    return this.engine.stream(statements, { timeoutMs });
  }
}
