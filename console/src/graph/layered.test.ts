import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layered } from './layered.js';

test('upstream entities go left of the start, downstream right, one column per step', () => {
  const p = layered(
    ['ep', 'deploy', 'model', 'data', 'monitor'],
    [
      { source: 'data', target: 'model' },
      { source: 'model', target: 'deploy' },
      { source: 'deploy', target: 'ep' },
      { source: 'ep', target: 'monitor' },
    ],
    'ep',
  );
  const x = (id: string) => p.get(id)!.x;
  assert.equal(x('ep'), 0);
  assert.ok(x('data') < x('model') && x('model') < x('deploy') && x('deploy') < x('ep') && x('ep') < x('monitor'));
});

test('a wide column wraps and keeps every entity apart; 5,000 entities take milliseconds', () => {
  const nodes = ['c'];
  const edges = [];
  for (let a = 0; a < 100; a++) {
    nodes.push(`a${a}`);
    edges.push({ source: `a${a}`, target: 'c' });
    for (let i = 0; i < 49; i++) {
      nodes.push(`m${a}_${i}`);
      edges.push({ source: `m${a}_${i}`, target: `a${a}` });
    }
  }
  const t = performance.now();
  const p = layered(nodes, edges, 'c');
  assert.ok(performance.now() - t < 1000, 'linear, not quadratic');
  assert.equal(p.size, nodes.length);
  const seen = new Set([...p.values()].map((q) => `${q.x},${q.y}`));
  assert.equal(seen.size, nodes.length, 'no two entities on the same spot');
  assert.ok(Math.max(...[...p.values()].map((q) => Math.abs(q.y))) <= 21 * 56, 'columns wrap instead of growing');
});

test('an edge inside one column pushes its source further upstream', () => {
  const p = layered(
    ['ep', 'deploy', 'image', 'package'],
    [
      { source: 'image', target: 'deploy' },
      { source: 'package', target: 'deploy' },
      { source: 'image', target: 'package' },
      { source: 'deploy', target: 'ep' },
    ],
    'ep',
  );
  assert.ok(p.get('image')!.x < p.get('package')!.x);
});
