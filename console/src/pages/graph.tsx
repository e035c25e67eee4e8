// Graph: a Gremlin query against the graph port (Neptune's HTTP endpoint), the result as a graph
// or as a table. Path: /graph?q=&view=
import { useEffect, useRef, useState } from 'preact/hooks';
import { gremlin, graphOrigin } from '../api/client';
import { ErrorBox, Json, Loading, useAsync } from '../components/ui';
import { createGraphView } from '../graph/view';
import { graphOf, plain } from '../lib/graphson';
import { setQuery, useLocation } from '../router';

const EXAMPLES = [
  'g.E().limit(200)',
  'g.V().groupCount().by(label)',
  "g.V().hasLabel('Context').limit(20).bothE().limit(200)",
];

export function GraphPage() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const view = query.get('view') ?? 'graph';
  const [text, setText] = useState(q || EXAMPLES[0]!);
  useEffect(() => {
    if (q) setText(q);
  }, [q]);
  const result = useAsync((signal) => (q ? gremlin(q, signal) : Promise.resolve(undefined)), [q]);
  return (
    <section>
      <h1>Graph</h1>
      <p class="muted">
        Gremlin on the graph port ({graphOrigin()}). Load lineage there with <code>slipway lineage export --load</code>.
      </p>
      <form
        class="gremlin"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text });
        }}
      >
        <textarea class="mono" rows={3} name="gremlin" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <div class="toolbar">
          <button type="submit">Run</button>
          {EXAMPLES.map((x) => (
            <button type="button" class="link" key={x} onClick={() => setQuery({ q: x })}>
              {x}
            </button>
          ))}
          <span class="spacer" />
          <button
            type="button"
            class={view === 'graph' ? 'on' : ''}
            onClick={() => setQuery({ view: undefined }, true)}
          >
            Graph
          </button>
          <button type="button" class={view === 'table' ? 'on' : ''} onClick={() => setQuery({ view: 'table' }, true)}>
            Table
          </button>
        </div>
      </form>
      <ErrorBox error={result.error} title="The query failed" />
      {result.loading && q ? <Loading what="results" /> : null}
      {result.data ? (
        view === 'table' ? (
          <ResultTable results={result.data} />
        ) : (
          <ResultGraph results={result.data} />
        )
      ) : null}
    </section>
  );
}

function ResultTable({ results }: { results: unknown[] }) {
  const rows = results.map(plain);
  return (
    <div class="gremlin-results">
      <p class="muted">{rows.length} results</p>
      <table class="grid">
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <td class="num">{i + 1}</td>
              <td>{typeof r === 'object' ? <Json value={r} /> : String(r)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ResultGraph({ results }: { results: unknown[] }) {
  const host = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<string>();
  const g = graphOf(results);
  useEffect(() => {
    if (!host.current) return;
    const view = createGraphView(host.current, { select: setSelected });
    view.add(
      g.vertices.map((v) => ({
        id: `v:${v.id}`,
        label: String(v.properties.name ?? v.properties.Name ?? v.id),
        kind: v.label,
      })),
      g.edges.map((e) => ({ id: `e:${e.id}`, source: `v:${e.outV}`, target: `v:${e.inV}`, label: e.label })),
    );
    view.layout();
    return () => view.destroy();
  }, [results]);
  if (g.vertices.length === 0) return <p class="muted">The result holds no vertices or edges; see it as a table.</p>;
  const sel = selected?.startsWith('v:') ? g.vertices.find((v) => `v:${v.id}` === selected) : undefined;
  return (
    <div class="lineage-main">
      <div class="graph-host" ref={host} />
      <aside class="details">
        <p class="muted">
          {g.vertices.length} vertices, {g.edges.length} edges
        </p>
        {sel ? <Json value={sel} /> : <p class="muted">Click a vertex to see its properties.</p>}
      </aside>
    </div>
  );
}
