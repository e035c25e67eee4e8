import assert from 'node:assert/strict';
import { test } from 'node:test';
import { graphOf, gremlinString, plain, vertexName, withProperties } from './graphson.js';

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

test("vertices are named from the lineage exporter's columns, and times read as times", () => {
  const row = {
    '@type': 'g:Map',
    '@value': [
      { '@type': 'g:T', '@value': 'id' },
      'context/ep-aws-endpoint',
      { '@type': 'g:T', '@value': 'label' },
      'context',
      'creationtime',
      { '@type': 'g:Date', '@value': 1795764770000 },
      'sourceuri',
      'arn:aws:sagemaker:us-east-1:000000000000:endpoint/ep',
      'type',
      'Endpoint',
    ],
  };
  const bare = graphOf([{ '@type': 'g:Edge', '@value': { id: 'e', label: 'AssociatedWith', outV: 'action/d', inV: 'context/ep-aws-endpoint', outVLabel: 'action', inVLabel: 'context' } }]).vertices;
  assert.equal(vertexName(bare[1]!), 'context/ep-aws-endpoint', 'an edge-only result knows only the id');
  const [, ep] = withProperties(bare, [row]);
  assert.equal(vertexName(ep!), 'Endpoint: ep');
  assert.equal(ep!.properties.creationtime, '2026-11-27T07:32:50.000Z');
  assert.equal(vertexName({ id: 't', label: 'trial_component', properties: { sourcearn: 'arn:aws:sagemaker:us-east-1:0:training-job/j1', sourcetype: 'SageMakerTrainingJob' } }), 'TrainingJob: j1');
  assert.equal(vertexName({ id: 'x', label: 'person', properties: { name: 'marko' } }), 'marko');
  assert.equal(gremlinString("it's a \\ test"), "'it\\'s a \\\\ test'");
});
