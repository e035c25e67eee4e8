// Lineage: start from any entity (an endpoint, model package, data set, job or lineage entity
// ARN) and see its lineage as an interactive graph read with QueryLineage: typed, coloured nodes,
// edges labelled with the association type, expand a node's neighbours, direction and depth,
// details of the selected entity, export as PNG or SVG. The picture is drawn as the pages arrive.
// Path: /lineage?arn=&direction=&depth=&selected=&view=
import { useEffect, useRef, useState } from 'preact/hooks';
import { sagemaker } from '../api/client';
import { ErrorBox, Loading, SortableTable, useAsync } from '../components/ui';
import { type GraphView, createGraphView } from '../graph/view';
import { shortName } from '../lib/arn';
import {
  type Direction,
  type Edge,
  type Vertex,
  describeEntity,
  labelOf,
  queryLineage,
  readLineage,
} from '../lib/lineage';
import { Link, setQuery, useLocation, withQuery } from '../router';
import { mapLimit } from '../lib/async';
import { EntityDetails } from './lineage-details';

/** Vertices drawn before the page asks whether to read more (QueryLineage pages hold 50). */
const BATCH = 1000;
/** Labels are read (one Describe each) for at most this many vertices. */
const LABELS = 300;
/**
 * While the pages of a read arrive, the picture and the count are updated at most this often: a
 * long read (thousands of entities) shows its progress; a short one is drawn once, at its end.
 */
const PROGRESS_MS = 1000;

interface Graph {
  vertices: Map<string, Vertex>;
  edges: Map<string, Edge>;
  labels: Map<string, string>;
  next?: string;
}

const edgeId = (e: Edge) => `${e.SourceArn}>${e.DestinationArn}`;
const defaultLabel = (v: Vertex) => `${v.Type ?? v.LineageType ?? ''} ${shortName(v.Arn)}`.trim();

export function LineagePage() {
  const { query } = useLocation();
  const arn = query.get('arn') ?? '';
  const direction = (query.get('direction') ?? 'Both') as Direction;
  const depth = Number(query.get('depth') ?? 3);
  const selected = query.get('selected') ?? undefined;
  const view = query.get('view') ?? 'graph';
  const [text, setText] = useState(arn);
  useEffect(() => setText(arn), [arn]);
  return (
    <section class="lineage">
      <h1>Lineage</h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ arn: text.trim(), selected: undefined });
        }}
      >
        <input
          class="wide mono"
          name="arn"
          placeholder="ARN of an endpoint, model package, job or lineage entity, or an s3:// URI"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <label>
          Direction{' '}
          <select name="direction" value={direction} onChange={(e) => setQuery({ direction: e.currentTarget.value })}>
            <option>Ascendants</option>
            <option>Descendants</option>
            <option>Both</option>
          </select>
        </label>
        <label>
          Depth{' '}
          <select name="depth" value={String(depth)} onChange={(e) => setQuery({ depth: e.currentTarget.value })}>
            {[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((d) => (
              <option key={d}>{d}</option>
            ))}
          </select>
        </label>
        <button type="submit">Show</button>
      </form>
      {arn ? (
        <LineageGraph
          key={`${arn}|${direction}|${depth}`}
          start={arn}
          direction={direction}
          depth={depth}
          selected={selected}
          view={view}
        />
      ) : (
        <Starters />
      )}
    </section>
  );
}

/** With no start yet: a few endpoints and model packages to start from. */
function Starters() {
  const eps = useAsync(
    (s) =>
      sagemaker<{ Endpoints: Record<string, string>[] }>(
        'ListEndpoints',
        { MaxResults: 10, SortBy: 'CreationTime', SortOrder: 'Descending' },
        s,
      ),
    [],
  );
  return (
    <div class="empty">
      <p>
        Paste the ARN of an endpoint, a model package, a training job or a lineage entity above, or an s3:// URI of a
        data set.
      </p>
      <ErrorBox error={eps.error} />
      {eps.data?.Endpoints.length ? (
        <>
          <p>Or start from an endpoint:</p>
          <ul>
            {eps.data.Endpoints.map((e) => (
              <li key={e.EndpointArn}>
                <Link to={withQuery('/lineage', { arn: e.EndpointArn, direction: 'Ascendants' })}>
                  {e.EndpointName}
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

function LineageGraph(p: { start: string; direction: Direction; depth: number; selected?: string; view: string }) {
  const host = useRef<HTMLDivElement>(null);
  const viewRef = useRef<GraphView | undefined>(undefined);
  const graph = useRef<Graph>({ vertices: new Map(), edges: new Map(), labels: new Map() });
  const [startArn, setStartArn] = useState<string>();
  const [, setVersion] = useState(0);
  const [status, setStatus] = useState<'loading' | 'ready'>('loading');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const bump = () => setVersion((v) => v + 1);

  const addToGraph = (vertices: readonly Vertex[], edges: readonly Edge[], start?: string) => {
    const g = graph.current;
    const fresh: Vertex[] = [];
    const better = new Map<string, string>();
    for (const v of vertices) {
      const have = g.vertices.get(v.Arn);
      if (!have) {
        g.vertices.set(v.Arn, v);
        fresh.push(v);
      } else if (!have.Type && v.Type) {
        // The start entity is drawn before QueryLineage describes it.
        g.vertices.set(v.Arn, { ...have, ...v });
        if (!g.labels.has(v.Arn)) better.set(v.Arn, defaultLabel({ ...have, ...v }));
      }
    }
    for (const e of edges) g.edges.set(edgeId(e), e);
    viewRef.current?.add(
      fresh.map((v) => ({
        id: v.Arn,
        label: g.labels.get(v.Arn) ?? defaultLabel(v),
        kind: v.LineageType ?? 'Other',
        start: v.Arn === start,
      })),
      edges.map((e) => ({
        id: edgeId(e),
        source: e.SourceArn,
        target: e.DestinationArn,
        label: e.AssociationType ?? '',
      })),
    );
    if (better.size > 0) viewRef.current?.relabel(better);
    return fresh;
  };

  /**
   * Reads a readable label for each new vertex (its source, or its name) once the picture is on
   * screen, and applies them in batches so the graph redraws a few times, not once per label.
   */
  const label = (vs: readonly Vertex[], signal: AbortSignal) => {
    const g = graph.current;
    const todo = vs.filter((v) => !g.labels.has(v.Arn)).slice(0, Math.max(0, LABELS - g.labels.size));
    const pending = new Map<string, string>();
    const flush = () => {
      viewRef.current?.relabel(pending);
      pending.clear();
    };
    const timer = setInterval(flush, 300);
    requestAnimationFrame(() =>
      setTimeout(() => {
        void mapLimit(todo, 6, async (v) => {
          if (signal.aborted) return;
          const d = await describeEntity(v.Arn, signal).catch(() => undefined);
          const l = d && labelOf(d);
          if (!l || signal.aborted) return;
          const text = `${v.Type ? `${v.Type}: ` : ''}${l}`;
          g.labels.set(v.Arn, text);
          pending.set(v.Arn, text);
        }).then(() => {
          clearInterval(timer);
          flush();
          if (!signal.aborted) bump();
        });
      }, 50),
    );
  };

  // The read starts as the component first renders; the picture follows it once mounted.
  const [reading] = useState(() => {
    performance.mark('lineage:start');
    const ctl = new AbortController();
    return { ctl, read: readLineage(p.start, p.direction, p.depth, BATCH, ctl.signal) };
  });

  useEffect(() => {
    const { ctl, read } = reading;
    let complete = false;
    const view = createGraphView(host.current!, {
      select: (id) => setQuery({ selected: id }, true),
      expand: (id) => void expand(id),
      drawn: (_, total) => {
        if (!complete || total < graph.current.vertices.size) return;
        complete = false;
        performance.measure('lineage:drawn', 'lineage:start');
      },
    });
    viewRef.current = view;
    (async () => {
      const arn = await read.start;
      if (ctl.signal.aborted) return;
      setStartArn(arn);
      // The start is drawn at once, then what has arrived every PROGRESS_MS: a frame between two
      // pages (50 entities each) holds up the next request.
      const fresh = addToGraph([{ Arn: arn, LineageType: lineageTypeOf(arn) }], [], arn);
      view.layout();
      let shown = performance.now();
      const page = await read.follow((pg) => {
        if (ctl.signal.aborted) return;
        fresh.push(...addToGraph(pg.vertices, pg.edges));
        if (performance.now() - shown < PROGRESS_MS) return;
        shown = performance.now();
        view.layout();
        bump();
      });
      performance.measure('lineage:read', 'lineage:start');
      complete = true;
      view.layout();
      graph.current.next = page.next;
      setStatus('ready');
      bump();
      label(fresh, ctl.signal);
    })().catch((err) => {
      if (!ctl.signal.aborted) {
        setError(err);
        setStatus('ready');
      }
    });
    return () => {
      ctl.abort();
      view.destroy();
      viewRef.current = undefined;
    };
  }, []);

  useEffect(() => viewRef.current?.select(p.selected), [p.selected]);

  const expand = async (arn: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const page = await queryLineage(arn, 'Both', 1, BATCH);
      const fresh = addToGraph([{ Arn: arn }, ...page.vertices], page.edges);
      viewRef.current?.layout(arn);
      bump();
      label(fresh, new AbortController().signal);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const more = async () => {
    const g = graph.current;
    if (!g.next || !startArn) return;
    setBusy(true);
    try {
      const page = await queryLineage(startArn, p.direction, p.depth, BATCH, g.next);
      g.next = page.next;
      const fresh = addToGraph(page.vertices, page.edges);
      viewRef.current?.layout();
      bump();
      label(fresh, new AbortController().signal);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const download = (name: string, file: Blob) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(file);
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
  };

  const g = graph.current;
  const rows = [...g.vertices.values()];
  return (
    <div class="lineage-body">
      <div class="toolbar">
        <span class="lineage-summary" data-status={status}>
          {status === 'loading'
            ? `Reading lineage…${g.vertices.size > 1 ? ` ${g.vertices.size} entities so far` : ''}`
            : `${g.vertices.size} entities, ${g.edges.size} associations${g.next ? ' (more exist)' : ''}`}
        </span>
        {g.next ? (
          <button type="button" disabled={busy} onClick={more}>
            Load {BATCH} more
          </button>
        ) : null}
        <span class="spacer" />
        <button
          type="button"
          class={p.view === 'graph' ? 'on' : ''}
          onClick={() => setQuery({ view: undefined }, true)}
        >
          Graph
        </button>
        <button type="button" class={p.view === 'table' ? 'on' : ''} onClick={() => setQuery({ view: 'table' }, true)}>
          Table
        </button>
        <button
          type="button"
          onClick={() =>
            void viewRef.current
              ?.png()
              .then((png) => download('lineage.png', png))
              .catch(setError)
          }
        >
          Export PNG
        </button>
        <button
          type="button"
          onClick={() =>
            viewRef.current && download('lineage.svg', new Blob([viewRef.current.svg()], { type: 'image/svg+xml' }))
          }
        >
          Export SVG
        </button>
      </div>
      <ErrorBox error={error} />
      <div class="lineage-main">
        <div class="graph-host" ref={host} hidden={p.view === 'table'} />
        {p.view === 'table' ? (
          <div class="graph-table">
            <SortableTable
              rowKey={(v) => v.Arn}
              rows={rows}
              columns={[
                {
                  key: 'label',
                  label: 'Entity',
                  value: (v) => g.labels.get(v.Arn) ?? shortName(v.Arn),
                  render: (v) => (
                    <Link
                      to={withQuery('/lineage', {
                        arn: p.start,
                        direction: p.direction,
                        depth: p.depth,
                        view: 'table',
                        selected: v.Arn,
                      })}
                    >
                      {g.labels.get(v.Arn) ?? shortName(v.Arn)}
                    </Link>
                  ),
                },
                { key: 'kind', label: 'Lineage type', value: (v) => v.LineageType },
                { key: 'type', label: 'Type', value: (v) => v.Type },
                { key: 'arn', label: 'ARN', value: (v) => v.Arn, class: 'mono small' },
              ]}
            />
          </div>
        ) : null}
        <aside class="details">
          {p.selected ? (
            <EntityDetails
              arn={p.selected}
              onExpand={() => void expand(p.selected!)}
              busy={busy}
              direction={p.direction}
              depth={p.depth}
            />
          ) : (
            <p class="muted">Click an entity to see its details; double-click to add its neighbours.</p>
          )}
        </aside>
      </div>
      {status === 'loading' ? <Loading what="lineage" /> : null}
    </div>
  );
}

function lineageTypeOf(arn: string): string {
  const kind = /:([a-z-]+)\//.exec(arn)?.[1];
  return kind === 'artifact'
    ? 'Artifact'
    : kind === 'action'
      ? 'Action'
      : kind === 'context'
        ? 'Context'
        : 'TrialComponent';
}
