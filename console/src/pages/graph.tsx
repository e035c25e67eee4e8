// Graph: a Gremlin query against the graph port (Neptune's HTTP endpoint), the result as a graph
// (vertices named from their properties, read afterwards when the query returned only edges) or
// as a table, and the selected vertex's properties. The example queries use the labels the
// lineage exporter writes (src/lineage/export/model.ts), so they find what `slipway lineage
// export --load` loaded. Path: /graph?q=&view=
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NODE_FILES } from '../../../src/lineage/export/model';
import { gremlin, graphOrigin } from '../api/client';
import { ErrorBox, Json, Loading, useAsync, when } from '../components/ui';
import { createGraphView } from '../graph/view';
import { type GEdge, type GVertex, graphOf, gremlinString, plain, vertexName, withProperties } from '../lib/graphson';
import { setQuery, useLocation } from '../router';
import { breakable } from './lineage-details';

/** The exporter's vertex label for each lineage node kind: artifact, action, context, trial_component. */
const LABEL = Object.fromEntries(NODE_FILES.map((f) => [f.kind, f.label])) as Record<(typeof NODE_FILES)[number]['kind'], string>;

export const EXAMPLES: readonly { title: string; query: string }[] = [
  { title: 'Associations', query: 'g.E().limit(200)' },
  { title: 'Vertices by label', query: 'g.V().groupCount().by(label)' },
  { title: 'Endpoints and model groups', query: `g.V().hasLabel('${LABEL.context}').limit(20).bothE().limit(200)` },
  { title: 'What jobs produced', query: `g.V().hasLabel('${LABEL.trialComponent}').outE().limit(200)` },
];

/** Vertices whose properties are read after an edge-only result, at most. */
const NAMED = 1000;

interface Result {
  /** The query these are the results of. */
  readonly q: string;
  readonly rows: unknown[];
  readonly vertices: GVertex[];
  readonly edges: GEdge[];
}

async function run(q: string, signal: AbortSignal): Promise<Result> {
  const rows = await gremlin(q, signal);
  const g = graphOf(rows);
  let vertices = g.vertices;
  // An edge brings only its ends' ids: read their properties so the picture can name them.
  const bare = vertices.filter((v) => Object.keys(v.properties).length === 0).slice(0, NAMED);
  for (let i = 0; i < bare.length; i += 200) {
    const ids = bare.slice(i, i + 200).map((v) => gremlinString(v.id));
    const props = await gremlin(`g.V(${ids.join(',')}).elementMap()`, signal).catch(() => []);
    vertices = withProperties(vertices, props);
  }
  return { q, rows, vertices, edges: g.edges };
}

export function GraphPage() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const view = query.get('view') ?? 'graph';
  const [text, setText] = useState(q || EXAMPLES[0]!.query);
  useEffect(() => {
    if (q) setText(q);
  }, [q]);
  const result = useAsync((signal) => (q ? run(q, signal) : Promise.resolve(undefined)), [q]);
  return (
    <section>
      <h1>Graph</h1>
      <p class="muted">
        Gremlin on the graph port ({graphOrigin()}). Load lineage there with <code>slipway lineage export --load</code>:
        its vertices are labelled {Object.values(LABEL).map((l, i) => (
          <span key={l}>
            {i ? ', ' : ''}
            <code>{l}</code>
          </span>
        ))}
        .
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
            <button type="button" class="link" key={x.query} title={x.query} data-query={x.query} onClick={() => setQuery({ q: x.query })}>
              {x.title}
            </button>
          ))}
          <span class="spacer" />
          <button type="button" class={view === 'graph' ? 'on' : ''} onClick={() => setQuery({ view: undefined }, true)}>
            Graph
          </button>
          <button type="button" class={view === 'table' ? 'on' : ''} onClick={() => setQuery({ view: 'table' }, true)}>
            Table
          </button>
        </div>
      </form>
      <ErrorBox error={result.error} title="The query failed" />
      {result.loading && q ? <Loading what="results" /> : null}
      {result.data && result.data.rows.length === 0 ? (
        <p class="muted no-results">
          No results. The graph's labels are case-sensitive: see what it holds with{' '}
          <button type="button" class="link" onClick={() => setQuery({ q: 'g.V().groupCount().by(label)' })}>
            g.V().groupCount().by(label)
          </button>
          .
        </p>
      ) : result.data ? (
        <div class="graph-result" data-query={result.data.q}>
          {view === 'table' ? <ResultTable results={result.data.rows} /> : <ResultGraph result={result.data} />}
        </div>
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

function ResultGraph({ result }: { result: Result }) {
  const host = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<string>();
  const { vertices, edges } = result;
  useEffect(() => {
    if (!host.current) return;
    const view = createGraphView(host.current, { select: setSelected });
    view.add(
      vertices.map((v) => ({ id: `v:${v.id}`, label: vertexName(v), kind: v.label })),
      edges.map((e) => ({ id: `e:${e.id}`, source: `v:${e.outV}`, target: `v:${e.inV}`, label: e.label })),
    );
    view.layout();
    return () => view.destroy();
  }, [result]);
  if (vertices.length === 0) return <p class="muted">The result holds no vertices or edges; see it as a table.</p>;
  const sel = selected?.startsWith('v:') ? vertices.find((v) => `v:${v.id}` === selected) : undefined;
  return (
    <div class="lineage-main">
      <div class="graph-host" ref={host} />
      <aside class="details">
        <p class="muted">
          {vertices.length} vertices, {edges.length} edges
        </p>
        {sel ? <VertexDetails v={sel} /> : <p class="muted">Click a vertex to see its properties.</p>}
      </aside>
    </div>
  );
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function VertexDetails({ v }: { v: GVertex }) {
  const props = Object.entries(v.properties).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="vertex-details">
      <h2>{vertexName(v)}</h2>
      <dl class="facts entity-facts">
        <dt>Label</dt>
        <dd>{v.label}</dd>
        <dt>Id</dt>
        <dd class="mono small">{v.id}</dd>
        {props.map(([k, x]) => (
          <Fragment key={k}>
            <dt>{breakable(k)}</dt>
            <dd class={typeof x === 'string' && /^(arn:|s3:\/\/)/.test(x) ? 'mono small' : ''}>
              {typeof x === 'string' && ISO.test(x) ? <time dateTime={x} title={x}>{when(x)}</time> : typeof x === 'object' ? JSON.stringify(x) : String(x)}
            </dd>
          </Fragment>
        ))}
      </dl>
      <details class="raw">
        <summary>As JSON</summary>
        <Json value={v} />
      </details>
    </div>
  );
}
