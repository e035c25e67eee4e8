import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Labels, type Measure, covered, placeSceneLabels } from './labels.js';
import { layered } from './layered.js';
import { Scene, edgeEnds } from './scene.js';

const measure: Measure = (font, text) => text.length * Number.parseFloat(/([\d.]+)px/.exec(font)![1]!) * 0.6;
const overlap = (a: readonly number[], b: readonly number[]) => a[0]! < b[2]! && a[2]! > b[0]! && a[1]! < b[3]! && a[3]! > b[1]!;

/** A crowded lineage picture: one model fed by 12 data sets, every one with a long name. */
function crowded(): Scene {
  const s = new Scene();
  const data = Array.from({ length: 12 }, (_, i) => ({
    id: `d${i}`,
    label: `DataSet: s3://bucket/a/long/prefix/part-${i}.csv`,
    kind: 'Artifact',
  }));
  s.add(
    [{ id: 'model', label: 'Model: abalone', kind: 'Artifact', start: true }, { id: 'train', label: 'TrainingJob: abalone-1', kind: 'TrialComponent' }, ...data],
    [
      { id: 'train>model', source: 'train', target: 'model', label: 'Produced' },
      ...data.map((d) => ({ id: `${d.id}>train`, source: d.id, target: 'train', label: 'ContributedTo' })),
      ...data.map((d) => ({ id: `${d.id}>model`, source: d.id, target: 'model', label: 'ContributedTo' })),
    ],
  );
  s.place(layered([...s.nodes.keys()], s.edges().map((e) => ({ source: e.source.id, target: e.target.id })), 'model'));
  return s;
}

test('no label overlaps another or any entity; the start is named first, and in bold', () => {
  const s = crowded();
  for (const zoom of [0.5, 1, 2]) {
    const nodes = [...s.nodes.values()].map((n) => ({ n, x: n.x * zoom, y: n.y * zoom, r: n.r * zoom }));
    const edges = s.edges().flatMap((e) => {
      const at = edgeEnds(e);
      return at ? [{ e, at: [at.x1 * zoom, at.y1 * zoom, at.x2 * zoom, at.y2 * zoom] as [number, number, number, number] }] : [];
    });
    const labels = new Labels(measure);
    placeSceneLabels(labels, nodes, edges, { names: true, edges: true, nameSize: 12 * zoom, edgeSize: 10 * zoom });
    const placed = labels.placed;
    assert.ok(placed.length > 0);
    for (let i = 0; i < placed.length; i++) {
      for (let j = i + 1; j < placed.length; j++)
        assert.ok(!overlap(placed[i]!.box, placed[j]!.box), `zoom ${zoom}: "${placed[i]!.text}" overlaps "${placed[j]!.text}"`);
      for (const { x, y, r } of nodes) assert.ok(!overlap(placed[i]!.box, [x - r, y - r, x + r, y + r]), `zoom ${zoom}: "${placed[i]!.text}" covers an entity`);
    }
    assert.equal(placed[0]!.text, 'Model: abalone');
    assert.match(placed[0]!.font, /^600 /);
  }
});

test('a label that does not fit is left out, not squeezed in', () => {
  const labels = new Labels(measure);
  labels.name('first name here', 0, 0, 10, 12);
  labels.name('second name here', 5, 2, 10, 12);
  labels.name('far away', 500, 0, 10, 12);
  assert.deepEqual(
    labels.placed.map((p) => p.text),
    ['first name here', 'far away'],
  );
});

test("text drawn over the picture goes around the picture's labels, and hides whole those it cannot miss", () => {
  const picture = new Labels(measure);
  picture.name('Model: output/model.tar.gz', 100, 0, 10, 12);
  picture.name('Image: far away', 600, 0, 10, 12);
  // A long edge: its label finds a spot clear of the picture's names.
  const roomy = new Labels(measure);
  roomy.avoid(picture.placed);
  roomy.along('Produced', -300, 30, 140, 10, 12, true);
  assert.equal(roomy.placed.length, 1);
  assert.deepEqual(covered(picture.placed, roomy.placed), []);
  // A short edge has one spot, over a name: the name is hidden whole, not half covered.
  const tight = new Labels(measure);
  tight.avoid(picture.placed);
  tight.along('Produced', 20, 30, 140, 10, 12, true);
  assert.equal(tight.placed.length, 1, 'the focus text is drawn all the same');
  assert.deepEqual(
    covered(picture.placed, tight.placed).map((p) => p.text),
    ['Model: output/model.tar.gz'],
  );
  assert.deepEqual(covered(picture.placed, []), []);
});
