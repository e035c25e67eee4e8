// The lineage page's side panel: the selected entity's facts (lib/lineage-facts.ts) with readable
// times and links to the console's page for what it stands for, then everything its Describe call
// returned, folded.
import type { ComponentChildren } from 'preact';
import { Json, Loading, describeError, useAsync, when } from '../components/ui';
import { colorOf } from '../graph/view';
import { pageOf, shortName } from '../lib/arn';
import { type Direction, describeEntity, labelOf, sourceArnOf } from '../lib/lineage';
import { type Fact, entityFacts, entityKind } from '../lib/lineage-facts';
import { Link, withQuery } from '../router';

export function EntityDetails(p: { arn: string; onExpand(): void; busy: boolean; direction: Direction; depth: number }) {
  const d = useAsync((signal) => describeEntity(p.arn, signal), [p.arn]);
  const source = d.data ? sourceArnOf(d.data) : undefined;
  const page = (source && pageOf(source)) ?? pageOf(p.arn);
  const kind = d.data ? entityKind(d.data) : undefined;
  return (
    <div class="entity-details">
      <h2>
        {kind ? <span class="kind-dot" style={{ background: colorOf(kind) }} aria-hidden="true" /> : null}
        {d.data ? (labelOf(d.data) ?? shortName(p.arn)) : shortName(p.arn)}
      </h2>
      <div class="buttons">
        <button type="button" disabled={p.busy} onClick={p.onExpand}>
          Expand neighbours
        </button>
        <Link to={withQuery('/lineage', { arn: p.arn, direction: p.direction, depth: p.depth })}>Start here</Link>
        {page ? <Link to={page}>Open {source ? shortName(source) : 'page'}</Link> : null}
      </div>
      {d.loading && !d.data ? <Loading /> : null}
      {d.error ? <div class="error">{describeError(d.error)}</div> : null}
      {d.data
        ? entityFacts(d.data).map((g, i) => (
            <div key={g.title ?? i} class="fact-group">
              {g.title ? <h3>{g.title}</h3> : null}
              <dl class="facts entity-facts">
                {g.facts.map((f) => (
                  <FactRow key={f.label} f={f} />
                ))}
              </dl>
            </div>
          ))
        : null}
      {d.data ? (
        <details class="raw">
          <summary>Everything the Describe call returned</summary>
          <Json value={d.data} />
        </details>
      ) : null}
    </div>
  );
}

function FactRow({ f }: { f: Fact }) {
  let value: ComponentChildren;
  if ('time' in f) {
    const iso = typeof f.time === 'number' ? new Date(f.time * 1000).toISOString() : String(f.time);
    value = <time dateTime={iso} title={iso}>{when(f.time)}</time>;
  } else if ('arn' in f) {
    const page = pageOf(f.arn);
    value = page ? (
      <Link to={page} title={f.arn}>
        {shortName(f.arn)}
      </Link>
    ) : (
      <span class="mono small">{f.arn}</span>
    );
  } else if ('uri' in f) value = <span class="mono small">{f.uri}</span>;
  else value = f.text;
  return (
    <>
      <dt>{breakable(f.label)}</dt>
      <dd>
        {value}
        {f.note ? <span class="muted small"> ({f.note})</span> : null}
      </dd>
    </>
  );
}

/** A key such as `SageMaker.InstanceType` with places to wrap after its dots, colons and underscores. */
export function breakable(key: string): ComponentChildren {
  const parts = key.replace(/([.:_])/g, '$1\n').split('\n');
  return parts.length === 1 ? key : parts.map((p, i) => (i ? [<wbr key={i} />, p] : p));
}
