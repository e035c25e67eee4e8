// QueryLineage's traversal and result selection on in-memory graphs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type EdgeLoader,
  selectResults,
  type TraversalEdge,
  TraversalTooLargeError,
  traverse,
} from './query-lineage.js';

function graph(pairs: Array<[string, string]>): EdgeLoader & { calls: number } {
  const edges: TraversalEdge[] = pairs.map(([s, d]) => ({
    source_arn: s,
    destination_arn: d,
    association_type: 'ContributedTo',
    source_type: s[0]!.toUpperCase(),
    destination_type: d[0]!.toUpperCase(),
    source_lineage: 'Artifact',
    destination_lineage: 'Artifact',
  }));
  const g = {
    calls: 0,
    async from(arns: readonly string[]) {
      g.calls++;
      return edges.filter((e) => arns.includes(e.source_arn));
    },
    async to(arns: readonly string[]) {
      g.calls++;
      return edges.filter((e) => arns.includes(e.destination_arn));
    },
  };
  return g;
}

const start = (arn: string) => ({ arn, type: arn[0]!.toUpperCase(), lineageType: 'Artifact' });

describe('traverse', () => {
  // a → b → c → d, x → b, c → y
  const pairs: Array<[string, string]> = [
    ['a', 'b'],
    ['b', 'c'],
    ['c', 'd'],
    ['x', 'b'],
    ['c', 'y'],
  ];

  it('walks each direction level by level, one loader call per level', async () => {
    const g = graph(pairs);
    const down = await traverse(g, start('b'), 'Descendants', 10, 100);
    assert.deepEqual(
      down.vertices.map((v) => [v.arn, v.depth]),
      [
        ['b', 0],
        ['c', 1],
        ['d', 2],
        ['y', 2],
      ],
    );
    assert.equal(g.calls, 3);
    const up = await traverse(graph(pairs), start('c'), 'Ascendants', 10, 100);
    assert.deepEqual(up.vertices.map((v) => v.arn).sort(), ['a', 'b', 'c', 'x']);
  });

  it('Both is upstream plus downstream, not every neighbour of a neighbour', async () => {
    const both = await traverse(graph(pairs), start('d'), 'Both', 10, 100);
    // From d: upstream c, b, a, x; downstream nothing. y (c's other child) is not d's lineage.
    assert.deepEqual(both.vertices.map((v) => v.arn).sort(), ['a', 'b', 'c', 'd', 'x']);
  });

  it('stops at MaxDepth and terminates on cycles', async () => {
    const cyc = graph([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ]);
    const r = await traverse(cyc, start('a'), 'Descendants', 10, 100);
    assert.deepEqual(
      r.vertices.map((v) => v.arn),
      ['a', 'b', 'c'],
    );
    assert.equal(r.edges.length, 3);
    const shallow = await traverse(graph(pairs), start('a'), 'Descendants', 1, 100);
    assert.deepEqual(
      shallow.vertices.map((v) => v.arn),
      ['a', 'b'],
    );
  });

  it('refuses walks larger than the bound', async () => {
    const wide = graph(Array.from({ length: 20 }, (_, i) => ['s', `n${i}`] as [string, string]));
    await assert.rejects(traverse(wide, start('s'), 'Descendants', 10, 10), TraversalTooLargeError);
  });
});

describe('selectResults', () => {
  it('without edges: matches only, start excluded; with edges: paths to matches and their edges', async () => {
    const t = await traverse(
      graph([
        ['a', 'b'],
        ['b', 'c'],
        ['b', 'z'],
      ]),
      start('a'),
      'Descendants',
      10,
      100,
    );
    const isC = (v: { arn: string }) => v.arn === 'c';
    assert.deepEqual(
      selectResults(t, isC, false).vertices.map((v) => v.arn),
      ['c'],
    );
    const withEdges = selectResults(t, isC, true);
    assert.deepEqual(
      withEdges.vertices.map((v) => v.arn),
      ['a', 'b', 'c'],
    );
    const edges = [...withEdges.edgesByVertex.entries()].map(([k, es]) => [
      k,
      es.map((e) => `${e.source_arn}>${e.destination_arn}`),
    ]);
    assert.deepEqual(edges, [
      ['b', ['a>b']],
      ['c', ['b>c']],
    ]);
  });
});
