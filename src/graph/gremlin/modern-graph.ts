// TinkerPop's "modern" toy graph (6 vertices, 6 edges), the fixture of the Gremlin reference
// documentation, loaded into a graph store so tests can check TinkerPop's published answers.
// https://tinkerpop.apache.org/docs/3.7.2/tutorials/getting-started/#_the_first_five_minutes
import type { Database } from '../../storage/db/types.js';
import { GraphWriter, openGraphDatabase } from '../store/graph-store.js';
import { parseValue, type ValueType } from '../store/values.js';

const VERTICES: [string, string, Record<string, [ValueType, string]>][] = [
  ['1', 'person', { name: ['string', 'marko'], age: ['int', '29'] }],
  ['2', 'person', { name: ['string', 'vadas'], age: ['int', '27'] }],
  ['3', 'software', { name: ['string', 'lop'], lang: ['string', 'java'] }],
  ['4', 'person', { name: ['string', 'josh'], age: ['int', '32'] }],
  ['5', 'software', { name: ['string', 'ripple'], lang: ['string', 'java'] }],
  ['6', 'person', { name: ['string', 'peter'], age: ['int', '35'] }],
];

const EDGES: [string, string, string, string, string][] = [
  ['7', 'knows', '1', '2', '0.5'],
  ['8', 'knows', '1', '4', '1.0'],
  ['9', 'created', '1', '3', '0.4'],
  ['10', 'created', '4', '5', '1.0'],
  ['11', 'created', '4', '3', '0.4'],
  ['12', 'created', '6', '3', '0.2'],
];

/** Writes the modern graph into an (empty) graph database. */
export async function loadModernGraph(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    const w = new GraphWriter(tx);
    const vnums = await w.insertVertices(VERTICES.map(([id]) => id));
    await w.insertLabels(VERTICES.map(([id, label]) => [vnums.get(id)!, label] as const));
    await w.insertVertexProps(
      VERTICES.flatMap(([id, , props]) =>
        Object.entries(props).map(([name, [type, text]]) => {
          const v = parseValue(type, text)!;
          return { owner: id, name, type: v.type, value: v.value, num: v.num };
        }),
      ),
      vnums,
    );
    await w.insertEdges(
      EDGES.map(([id, label, from, to]) => ({ id, label, fromV: vnums.get(from)!, toV: vnums.get(to)! })),
    );
    await w.insertEdgeProps(
      EDGES.map(([id, , , , weight]) => {
        const v = parseValue('double', weight)!;
        return { owner: id, name: 'weight', type: v.type, value: v.value, num: v.num };
      }),
    );
  });
}

/** A fresh in-memory graph database holding the modern graph. */
export async function openModernGraph(): Promise<Database> {
  const db = await openGraphDatabase({ fileName: ':memory:' });
  await loadModernGraph(db);
  return db;
}
