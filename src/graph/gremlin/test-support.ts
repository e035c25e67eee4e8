// Test helpers for the Gremlin engine: run a Groovy query on a database and turn the results
// into plain JS in the Gremlin console's notation (v[1], e[7][1-knows->2], {name=[marko]}); a
// suite per dialect over TinkerPop's modern graph.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { DIALECTS, type TestDatabase } from '../../../test/support/databases.js';
import type { Database } from '../../storage/db/types.js';
import { GRAPH_MIGRATIONS } from '../store/migrations.js';
import { GremlinEngine } from './engine.js';
import { loadModernGraph } from './modern-graph.js';
import { parseGremlin } from './parser.js';
import { Edge, GMap, Num, Path, Property, Token, type Value, Vertex, VertexProperty } from './values.js';

export type Plain = null | boolean | number | string | Plain[] | { [k: string]: Plain };

export function plain(v: Value): Plain {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Num) return v.v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Vertex) return `v[${v.id}]`;
  if (v instanceof Edge) return `e[${v.id}][${v.outV.id}-${v.label}->${v.inV.id}]`;
  if (v instanceof VertexProperty) return `vp[${v.key}->${String(plain(v.value))}]`;
  if (v instanceof Property) return `p[${v.key}->${String(plain(v.value))}]`;
  if (v instanceof Token) return v.name;
  if (v instanceof Path) return v.objects.map(plain);
  if (v instanceof GMap) {
    const o: Record<string, Plain> = {};
    for (const [k, x] of v.entries()) o[String(plain(k))] = plain(x);
    return o;
  }
  if (Array.isArray(v)) return v.map(plain);
  return String(v);
}

export function gremlin(db: Database) {
  const engine = new GremlinEngine(db);
  return async (query: string): Promise<Plain[]> => (await engine.execute(parseGremlin(query))).map(plain);
}

/** Order-insensitive comparison key for a result list. */
export const sorted = (xs: Plain[]): string[] => xs.map((x) => JSON.stringify(x)).sort();

export interface ModernGraph {
  /** The results of a Groovy query, in console notation. */
  g(query: string): Promise<Plain[]>;
  /** Asserts the results, in order. */
  exact(query: string, expected: Plain[]): Promise<void>;
  /** Asserts the results in any order (where TinkerPop's order is the graph's iteration order). */
  same(query: string, expected: Plain[]): Promise<void>;
}

/** A suite per dialect over its own copy of the modern graph (so mutations stay in their suite). */
export function describeOnModernGraph(title: string, body: (m: ModernGraph) => void): void {
  for (const dialect of DIALECTS) {
    describe(`${title} (${dialect.name})`, () => {
      let t: TestDatabase;
      let run: (query: string) => Promise<Plain[]>;
      before(async () => {
        t = await dialect.open(GRAPH_MIGRATIONS);
        await loadModernGraph(t.db);
        run = gremlin(t.db);
      });
      after(async () => t.cleanup());
      const g = (query: string) => run(query);
      body({
        g,
        exact: async (query, expected) => assert.deepEqual(await g(query), expected, query),
        same: async (query, expected) => assert.deepEqual(sorted(await g(query)), sorted(expected), query),
      });
    });
  }
}
