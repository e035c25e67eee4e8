import assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphOf, plain } from './graphson.js';

const v = (id: string, label: string) => ({
  '@type': 'g:Vertex',
  '@value': {
    id,
    label,
    properties: { name: [{ '@type': 'g:VertexProperty', '@value': { id: 'p', label: 'name', value: `n-${id}` } }] },
  },
});
const e = {
  '@type': 'g:Edge',
  '@value': { id: 'e1', label: 'ContributedTo', outV: 'a', inV: 'b', outVLabel: 'Artifact', inVLabel: 'Action' },
};

test('typed GraphSON values become plain values', () => {
  assert.deepEqual(plain({ '@type': 'g:Map', '@value': ['count', { '@type': 'g:Int64', '@value': 3 }] }), { count: 3 });
  assert.deepEqual(plain({ '@type': 'g:List', '@value': [{ '@type': 'g:Double', '@value': 1.5 }, 'x'] }), [1.5, 'x']);
});

test('vertices and edges are found inside paths, and an edge brings its two ends', () => {
  const path = {
    '@type': 'g:Path',
    '@value': {
      labels: { '@type': 'g:List', '@value': [] },
      objects: { '@type': 'g:List', '@value': [v('a', 'Artifact'), e] },
    },
  };
  const g = graphOf([path]);
  assert.deepEqual(
    g.vertices.map((x) => [x.id, x.label]),
    [
      ['a', 'Artifact'],
      ['b', 'Action'],
    ],
  );
  assert.equal(g.vertices[0]!.properties.name, 'n-a');
  assert.deepEqual(
    g.edges.map((x) => [x.outV, x.label, x.inV]),
    [['a', 'ContributedTo', 'b']],
  );
});
