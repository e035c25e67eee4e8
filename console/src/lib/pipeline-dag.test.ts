import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pipelineDag } from './pipeline-dag.js';

const abalone = readFileSync(
  new URL('../../../../test/fixtures/pipelines/abalone/definition.json', import.meta.url),
  'utf8',
);

test("the abalone pipeline's picture: one column per step of the longest path, branches labelled", () => {
  const dag = pipelineDag(abalone);
  const at = Object.fromEntries(dag.nodes.map((n) => [n.name, [n.layer, n.row]]));
  assert.deepEqual(at, {
    AbaloneProcess: [0, 0],
    AbaloneTrain: [1, 0],
    AbaloneEval: [2, 0],
    AbaloneMSECond: [3, 0],
    'AbaloneRegisterModel-RegisterModel': [4, 0],
    'AbaloneCreateModel-CreateModel': [4, 1],
    AbaloneTransform: [5, 0],
    AbaloneMSEFail: [4, 2],
  });
  assert.equal(dag.layers, 6);
  assert.equal(dag.rows, 3);
  const branches = dag.edges.filter((e) => e.branch !== undefined).map((e) => `${e.from}->${e.to}:${e.branch}`);
  assert.deepEqual(branches, [
    'AbaloneMSECond->AbaloneRegisterModel-RegisterModel:true',
    'AbaloneMSECond->AbaloneCreateModel-CreateModel:true',
    'AbaloneMSECond->AbaloneTransform:true',
    'AbaloneMSECond->AbaloneMSEFail:false',
  ]);
  assert.ok(dag.edges.some((e) => e.from === 'AbaloneProcess' && e.to === 'AbaloneEval' && e.branch === undefined));
  assert.ok(dag.edges.some((e) => e.from === 'AbaloneCreateModel-CreateModel' && e.to === 'AbaloneTransform'));
});

test('an unreadable definition draws nothing', () => {
  assert.deepEqual(pipelineDag('{'), { nodes: [], edges: [], layers: 0, rows: 0 });
});
