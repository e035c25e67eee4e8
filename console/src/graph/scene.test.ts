import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KIND_COLORS, RADIUS, START_RADIUS, Scene, edgeEnds, exportFrame, legendEntries } from './scene.js';

const node = (id: string, kind = 'Artifact', start = false) => ({ id, label: id, kind, start });
const edge = (source: string, target: string, label = 'ContributedTo') => ({
  id: `${source}>${target}`,
  source,
  target,
  label,
});

test('the node under a point is found through the grid, nearest first, and only within its shape', () => {
  const s = new Scene();
  s.add([node('a'), node('b'), node('far')], []);
  s.place(
    new Map([
      ['a', { x: 0, y: 0 }],
      ['b', { x: 20, y: 0 }],
      ['far', { x: -5000, y: 3000 }],
    ]),
  );
  assert.equal(s.nodeAt(2, 1)?.id, 'a');
  assert.equal(s.nodeAt(12, 0)?.id, 'b', 'between two nodes, the nearer one');
  assert.equal(s.nodeAt(0, RADIUS + 2), undefined, 'just outside a node');
  assert.equal(s.nodeAt(-5003, 2998)?.id, 'far', 'negative coordinates');
  // At a low zoom a node is a few pixels wide: the view widens the reach instead.
  assert.equal(s.nodeAt(0, 60, 70)?.id, 'a');
});

test('hit-testing agrees with looking at every node, for 10,000 nodes', () => {
  const s = new Scene();
  const ids = Array.from({ length: 10_000 }, (_, i) => `n${i}`);
  s.add(
    ids.map((id) => node(id)),
    [],
  );
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  s.place(new Map(ids.map((id) => [id, { x: rand() * 20_000 - 10_000, y: rand() * 8_000 - 4_000 }])));
  for (let i = 0; i < 2_000; i++) {
    const [x, y] = [rand() * 20_000 - 10_000, rand() * 8_000 - 4_000];
    let want: string | undefined;
    let best = Infinity;
    for (const n of s.nodes.values()) {
      const d = Math.hypot(n.x - x, n.y - y);
      if (d <= n.r && d < best) [want, best] = [n.id, d];
    }
    assert.equal(s.nodeAt(x, y)?.id, want);
  }
});

test('a moved node is found where it went once the grid is rebuilt', () => {
  const s = new Scene();
  s.add([node('a')], []);
  s.place(new Map([['a', { x: 0, y: 0 }]]));
  const a = s.nodes.get('a')!;
  a.x = 500;
  a.y = -300;
  s.reindex();
  assert.equal(s.nodeAt(0, 0), undefined);
  assert.equal(s.nodeAt(501, -299)?.id, 'a');
});

test('an edge that arrives before one of its ends is drawn once both are there', () => {
  const s = new Scene();
  s.add([node('model')], [edge('model', 'deploy')]);
  assert.equal(s.edges().length, 0);
  s.add([node('deploy', 'Action')], []);
  assert.deepEqual(
    s.edges().map((e) => [e.source.id, e.target.id, e.label]),
    [['model', 'deploy', 'ContributedTo']],
  );
  assert.deepEqual(
    s.edgesOf('deploy').map((e) => e.id),
    ['model>deploy'],
    'an entity knows its edges (the focus layer draws them)',
  );
  assert.equal(s.edge('model>deploy')?.label, 'ContributedTo');
  // Adding the same things again changes nothing.
  s.add([node('model'), node('deploy', 'Action')], [edge('model', 'deploy')]);
  assert.equal(s.nodes.size, 2);
  assert.equal(s.edges().length, 1);
});

test('the edge under a point, and edge ends on the rims of their nodes', () => {
  const s = new Scene();
  s.add([node('a'), node('b', 'Context', true)], [edge('a', 'b', 'AssociatedWith')]);
  s.place(
    new Map([
      ['a', { x: 0, y: 0 }],
      ['b', { x: 200, y: 0 }],
    ]),
  );
  assert.equal(s.edgeAt(100, 3, 5)?.label, 'AssociatedWith');
  assert.equal(s.edgeAt(100, 30, 5), undefined);
  const ends = edgeEnds(s.edges()[0]!)!;
  assert.equal(ends.x1, RADIUS);
  assert.equal(ends.x2, 200 - START_RADIUS, 'the start entity is drawn larger');
});

test('labels are clipped for the picture and kept whole; kinds are coloured, lineage kinds first', () => {
  const s = new Scene();
  const long = 'Model: s3://models/a-very-long-prefix/that-goes-on/model.tar.gz';
  s.add([node('x', 'Zeta'), node('y', 'Action'), node('z', 'Artifact')], []);
  assert.deepEqual(
    s.relabel(new Map([['z', long]])).map((n) => n.id),
    ['z'],
  );
  const z = s.nodes.get('z')!;
  assert.equal(z.full, long);
  assert.ok(z.label.length <= 30 && z.label.endsWith('…'));
  assert.equal(z.color, KIND_COLORS.Artifact);
  assert.match(s.nodes.get('x')!.color, /^#[0-9a-f]{6}$/);
  assert.deepEqual(s.kinds(), ['Artifact', 'Action', 'Zeta']);
  assert.deepEqual(s.relabel(new Map([['z', long]])), [], 'the same label again is no change');
});

test('an exported picture has room for every node and a legend band on top', () => {
  const s = new Scene();
  s.add([node('a'), node('b')], []);
  s.place(
    new Map([
      ['a', { x: -100, y: 40 }],
      ['b', { x: 300, y: 240 }],
    ]),
  );
  const f = exportFrame(s);
  for (const n of s.nodes.values()) {
    const [x, y] = [n.x + f.dx, n.y + f.dy];
    assert.ok(x - n.r > 0 && x + n.r < f.width, `${n.id} inside horizontally`);
    assert.ok(
      y - n.r > f.legendY + 10 && y + n.r + 14 < f.height,
      `${n.id} and its name inside vertically, below the legend`,
    );
  }
});

test("the exporter's lowercase labels look like the lineage kinds, and no two kinds of a picture look alike", () => {
  const s = new Scene();
  const kinds = ['action', 'context', 'artifact', 'trial_component', 'person', 'software', 'place', 'thing'];
  s.add(
    kinds.map((k) => node(k, k)),
    [],
  );
  const style = (k: string) => s.nodes.get(k)!;
  assert.equal(style('action').color, KIND_COLORS.Action);
  assert.equal(style('action').shape, 'diamond');
  assert.equal(style('context').color, KIND_COLORS.Context);
  assert.equal(style('trial_component').color, KIND_COLORS.TrialComponent);
  assert.equal(style('trial_component').shape, 'hexagon');
  assert.notEqual(style('action').color, style('context').color);
  const looks = new Set(kinds.map((k) => `${style(k).color}|${style(k).shape}`));
  assert.equal(looks.size, kinds.length, 'every kind its own colour and shape');
  const colours = new Set(kinds.map((k) => style(k).color));
  assert.equal(colours.size, kinds.length, 'every kind its own colour');
  // The legend lists the labels as the graph has them, each with the colour drawn.
  const legend = legendEntries(s);
  assert.deepEqual(
    legend.slice(0, 4).map((e) => e.kind),
    ['artifact', 'action', 'context', 'trial_component'],
  );
  for (const e of legend) assert.equal(e.color, style(e.kind).color);
  // Many kinds: past the palette the colours come back with another shape.
  const many = new Scene();
  const names = Array.from({ length: 20 }, (_, i) => `k${i}`);
  many.add(names.map((k) => node(k, k)), []);
  assert.equal(new Set(names.map((k) => `${many.nodes.get(k)!.color}|${many.nodes.get(k)!.shape}`)).size, 20);
});
