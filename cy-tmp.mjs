import cytoscape from 'cytoscape';
const els = [{ data: { id: 'c' } }];
for (let a = 0; a < 20; a++) { els.push({ data: { id: 'a' + a } }, { data: { id: 'ea' + a, source: 'a' + a, target: 'c' } });
  for (let i = 0; i < 24; i++) els.push({ data: { id: `m${a}_${i}` } }, { data: { id: `e${a}_${i}`, source: `m${a}_${i}`, target: 'a' + a } }); }
for (const name of ['breadthfirst', 'grid', 'concentric']) {
  const cy = cytoscape({ headless: true, styleEnabled: true, elements: els });
  const t = performance.now();
  cy.layout({ name, directed: false, roots: cy.$('#c'), animate: false }).run();
  console.log(name, (performance.now() - t).toFixed(0), 'ms');
}
