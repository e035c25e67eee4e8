// Vertex and edge steps (out/in/both, outE/inE/bothE, outV/inV/bothV/otherV); each answer is
// the one TinkerPop gives on the modern graph, order-insensitive, in both dialects.
import { it } from 'node:test';
import { describeOnModernGraph } from '../test-support.js';

describeOnModernGraph('navigation steps on the modern graph', ({ exact, same }) => {
  it('out, in, both with labels', async () => {
    await same("g.V('1').out()", ['v[2]', 'v[3]', 'v[4]']);
    await same("g.V('1').out('knows')", ['v[2]', 'v[4]']);
    await same("g.V('3').in('created')", ['v[1]', 'v[4]', 'v[6]']);
    await same("g.V('4').both()", ['v[1]', 'v[5]', 'v[3]']);
    await same("g.V('4').both('knows', 'created')", ['v[1]', 'v[5]', 'v[3]']);
    await same("g.V('1').out().out().values('name')", ['ripple', 'lop']);
  });

  it('outE, inE, bothE, outV, inV, otherV, bothV', async () => {
    await same("g.V('1').outE()", ['e[7][1-knows->2]', 'e[8][1-knows->4]', 'e[9][1-created->3]']);
    await same("g.V('3').inE('created').outV()", ['v[1]', 'v[4]', 'v[6]']);
    await same("g.V('4').bothE()", ['e[8][1-knows->4]', 'e[10][4-created->5]', 'e[11][4-created->3]']);
    await exact("g.E('7').inV()", ['v[2]']);
    await exact("g.E('7').outV()", ['v[1]']);
    await exact("g.E('7').bothV()", ['v[1]', 'v[2]']);
    await same("g.V('4').bothE().otherV()", ['v[1]', 'v[5]', 'v[3]']);
  });
});
