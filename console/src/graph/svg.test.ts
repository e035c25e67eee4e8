import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layered } from './layered.js';
import { KIND_COLORS, Scene } from './scene.js';
import { toSvg } from './svg.js';

test('the SVG export draws every entity in its kind colour with its name, every association with its type, and a legend', () => {
  const s = new Scene();
  s.add(
    [
      { id: 'ep', label: 'Endpoint: abalone', kind: 'Context', start: true },
      { id: 'deploy', label: 'ModelDeployment: abalone', kind: 'Action' },
      { id: 'pkg', label: 'Model: xgboost-abalone/1 <v1> & "best"', kind: 'Artifact' },
    ],
    [
      { id: 'pkg>deploy', source: 'pkg', target: 'deploy', label: 'ContributedTo' },
      { id: 'deploy>ep', source: 'deploy', target: 'ep', label: 'AssociatedWith' },
    ],
  );
  s.place(
    layered(
      [...s.nodes.keys()],
      s.edges().map((e) => ({ source: e.source.id, target: e.target.id })),
      'ep',
    ),
  );
  const svg = toSvg(s);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="\d+" height="\d+"/);
  assert.ok(svg.includes('Model: xgboost-abalone/1 &lt;v1&gt; &amp; &quot;best&quot;'), 'names are escaped');
  assert.ok(!svg.includes('<v1>'));
  assert.equal(svg.match(/<line /g)?.length, 2);
  assert.ok(svg.includes('>ContributedTo</text>') && svg.includes('>AssociatedWith</text>'));
  for (const kind of ['Artifact', 'Action', 'Context']) {
    assert.ok(svg.includes(`fill="${KIND_COLORS[kind]}"`), `${kind} colour`);
    assert.ok(svg.includes(`>${kind}</text>`), `${kind} in the legend`);
  }
  assert.match(svg, /<circle [^>]*stroke="#111827"/, 'the start entity is ringed');
  assert.match(svg, /<\/svg>$/);
});

test('a crowded SVG export keeps its text apart: names that do not fit are left to the titles', () => {
  const s = new Scene();
  const ids = Array.from({ length: 8 }, (_, i) => `n${i}`);
  s.add(
    ids.map((id, i) => ({ id, label: `DataSet: s3://bucket/some/long/prefix/${i}.csv`, kind: 'Artifact' })),
    ids.slice(1).map((id) => ({ id: `${id}>n0`, source: id, target: 'n0', label: 'ContributedTo' })),
  );
  // Eight entities 20 units apart: far closer than their names are long.
  s.place(new Map(ids.map((id, i) => [id, { x: i * 20, y: i * 8 }])));
  const svg = toSvg(s);
  const texts = [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  const names = texts.filter((t) => t!.startsWith('DataSet'));
  assert.ok(names.length >= 1 && names.length < ids.length, `${names.length} names drawn`);
  assert.equal(svg.match(/<title>/g)?.length, ids.length, 'every entity keeps its whole name as a title');
});
