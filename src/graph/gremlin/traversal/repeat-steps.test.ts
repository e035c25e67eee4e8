// repeat() with times/until/emit, loops(), and the path filters simplePath/cyclicPath; each
// answer is the one TinkerPop gives on the modern graph, in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('repeat() on the modern graph', ({ same }) => {
  it('repeat with times, until, emit; simplePath, cyclicPath', async () => {
    await same("g.V('1').repeat(out()).times(2).path().by('name')", [
      ['marko', 'josh', 'ripple'],
      ['marko', 'josh', 'lop'],
    ]);
    await same("g.V('1').repeat(out()).until(hasLabel('software')).path().by('name')", [
      ['marko', 'lop'],
      ['marko', 'josh', 'ripple'],
      ['marko', 'josh', 'lop'],
    ]);
    await same("g.V('1').repeat(out()).times(2).emit().path().by('name')", [
      ['marko', 'lop'],
      ['marko', 'vadas'],
      ['marko', 'josh'],
      ['marko', 'josh', 'ripple'],
      ['marko', 'josh', 'lop'],
    ]);
    await same("g.V('1').emit().repeat(__.out()).times(2).path().by('name')", [
      ['marko'],
      ['marko', 'lop'],
      ['marko', 'vadas'],
      ['marko', 'josh'],
      ['marko', 'josh', 'ripple'],
      ['marko', 'josh', 'lop'],
    ]);
    await same("g.V('1').repeat(both()).until(loops().is(2)).simplePath().path()", [
      ['v[1]', 'v[4]', 'v[5]'],
      ['v[1]', 'v[4]', 'v[3]'],
      ['v[1]', 'v[3]', 'v[4]'],
      ['v[1]', 'v[3]', 'v[6]'],
    ]);
    await same("g.V('1').both().both().simplePath().path()", [
      ['v[1]', 'v[4]', 'v[5]'],
      ['v[1]', 'v[4]', 'v[3]'],
      ['v[1]', 'v[3]', 'v[4]'],
      ['v[1]', 'v[3]', 'v[6]'],
    ]);
    await same("g.V('1').both().both().cyclicPath().path()", [
      ['v[1]', 'v[2]', 'v[1]'],
      ['v[1]', 'v[4]', 'v[1]'],
      ['v[1]', 'v[3]', 'v[1]'],
    ]);
  });
});
