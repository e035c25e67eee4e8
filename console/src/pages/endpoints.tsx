// Endpoints: the list, and one endpoint's status (polled while it changes), variants, deployed
// images, charts of its stored CloudWatch metrics (AWS/SageMaker, GetMetricData over the last hour,
// 3 hours or day) and a box to send a test request. Paths: /endpoints, /endpoints/{name}.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Invocation, invokeEndpoint, sagemaker } from '../api/client';
import { Chart } from '../components/chart';
import { Badge, ErrorBox, Loading, Pager, Snippet, SortableTable, useAsync, useInterval, usePaged, when } from '../components/ui';
import { endpointHistory } from '../lib/endpoint-metrics';
import { Link, setQuery, useLocation } from '../router';
import { mapLimit } from './registry';

type Obj = Record<string, unknown>;
const TRANSITIONAL = new Set(['Creating', 'Updating', 'Deleting', 'SystemUpdating', 'RollingBack']);

export function EndpointsPage() {
  const { segments } = useLocation();
  return segments[1] ? <EndpointDetail name={segments[1]} /> : <EndpointList />;
}

const FIRST_STEPS = `sm.create_model(ModelName="my-model", ExecutionRoleArn="arn:aws:iam::000000000000:role/sm",
                Containers=[{"ModelPackageName": model_package_arn}])
sm.create_endpoint_config(EndpointConfigName="my-model", ProductionVariants=[{"VariantName": "AllTraffic",
    "ModelName": "my-model", "ServerlessConfig": {"MemorySizeInMB": 1024, "MaxConcurrency": 10}}])
sm.create_endpoint(EndpointName="my-model", EndpointConfigName="my-model")`;

function EndpointList() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const list = usePaged(`endpoints|${q}`, async (token, signal) => {
    const r = await sagemaker<{ Endpoints: Obj[]; NextToken?: string }>(
      'ListEndpoints',
      { MaxResults: 25, NextToken: token, NameContains: q || undefined, SortBy: 'CreationTime', SortOrder: 'Descending' },
      signal,
    );
    return { items: r.Endpoints, next: r.NextToken };
  });
  // Endpoints on their way somewhere are shown live.
  useInterval(list.reload, 2000, list.data?.items.some((e) => TRANSITIONAL.has(String(e.EndpointStatus))) ?? false);
  return (
    <section>
      <h1>Endpoints</h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text, page: undefined });
        }}
      >
        <input type="search" placeholder="Name contains…" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="endpoints" /> : null}
      {list.data && list.data.items.length === 0 && list.first && !q ? (
        <div class="empty">
          <p>No endpoints yet. Deploy an approved model package with a serverless endpoint, for example:</p>
          <Snippet title="boto3" code={FIRST_STEPS} />
        </div>
      ) : list.data ? (
        <>
          <SortableTable
            rowKey={(e) => String(e.EndpointArn)}
            rows={list.data.items}
            empty="No endpoint matches."
            columns={[
              {
                key: 'name',
                label: 'Endpoint',
                value: (e) => String(e.EndpointName),
                render: (e) => <Link to={`/endpoints/${encodeURIComponent(String(e.EndpointName))}`}>{String(e.EndpointName)}</Link>,
              },
              { key: 'status', label: 'Status', value: (e) => String(e.EndpointStatus), render: (e) => <Badge status={String(e.EndpointStatus)} /> },
              { key: 'created', label: 'Created', value: (e) => e.CreationTime as number, render: (e) => when(e.CreationTime) },
              { key: 'modified', label: 'Last modified', value: (e) => e.LastModifiedTime as number, render: (e) => when(e.LastModifiedTime) },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

interface Deployed {
  readonly variant: Obj;
  readonly model?: Obj;
  readonly images: { image: string; modelDataUrl?: string; packageArn?: string }[];
  readonly contentTypes: string[];
}

/** Endpoint config, models and (through model packages) the images each variant runs. */
async function loadDeployment(configName: string, signal: AbortSignal): Promise<{ config: Obj; variants: Deployed[] }> {
  const config = await sagemaker<Obj>('DescribeEndpointConfig', { EndpointConfigName: configName }, signal);
  const variants = await mapLimit((config.ProductionVariants as Obj[]) ?? [], 4, async (variant) => {
    const model = await sagemaker<Obj>('DescribeModel', { ModelName: variant.ModelName }, signal).catch(() => undefined);
    const containers = ((model?.Containers as Obj[]) ?? (model?.PrimaryContainer ? [model.PrimaryContainer as Obj] : [])) as Obj[];
    const images: Deployed['images'] = [];
    const contentTypes: string[] = [];
    for (const c of containers) {
      if (c.ModelPackageName) {
        const pkg = await sagemaker<Obj>('DescribeModelPackage', { ModelPackageName: c.ModelPackageName }, signal).catch(() => undefined);
        const spec = pkg?.InferenceSpecification as { Containers?: Obj[]; SupportedContentTypes?: string[] } | undefined;
        for (const pc of spec?.Containers ?? [])
          images.push({ image: String(pc.Image), modelDataUrl: pc.ModelDataUrl as string | undefined, packageArn: String(pkg?.ModelPackageArn ?? c.ModelPackageName) });
        contentTypes.push(...(spec?.SupportedContentTypes ?? []));
      } else images.push({ image: String(c.Image), modelDataUrl: c.ModelDataUrl as string | undefined });
    }
    return { variant, model, images, contentTypes };
  });
  return { config, variants };
}

function EndpointDetail({ name }: { name: string }) {
  const ep = useAsync((signal) => sagemaker<Obj>('DescribeEndpoint', { EndpointName: name }, signal), [name]);
  const status = ep.data ? String(ep.data.EndpointStatus) : undefined;
  useInterval(ep.reload, 1000, status !== undefined && TRANSITIONAL.has(status));
  const configName = ep.data?.EndpointConfigName as string | undefined;
  const deployment = useAsync((signal) => (configName ? loadDeployment(configName, signal) : Promise.resolve(undefined)), [configName]);
  const e = ep.data;
  return (
    <section>
      <nav class="crumbs">
        <Link to="/endpoints">Endpoints</Link> / <span>{name}</span>
      </nav>
      <h1>
        {name} {status ? <Badge status={status} /> : null}
      </h1>
      <ErrorBox error={ep.error} />
      {!e && ep.loading ? <Loading /> : null}
      {e ? (
        <>
          <dl class="facts">
            <dt>ARN</dt>
            <dd class="mono">{String(e.EndpointArn)}</dd>
            <dt>Endpoint config</dt>
            <dd>{String(e.EndpointConfigName)}</dd>
            <dt>Created</dt>
            <dd>{when(e.CreationTime)}</dd>
            <dt>Last modified</dt>
            <dd>{when(e.LastModifiedTime)}</dd>
            {e.FailureReason ? (
              <>
                <dt>Failure reason</dt>
                <dd class="bad-text">{String(e.FailureReason)}</dd>
              </>
            ) : null}
          </dl>
          <p>
            <Link to={`/lineage?arn=${encodeURIComponent(String(e.EndpointArn))}&direction=Ascendants`}>Lineage of this endpoint</Link>
          </p>
          <h2>Variants</h2>
          <ErrorBox error={deployment.error} />
          {deployment.data ? <Variants endpoint={e} variants={deployment.data.variants} /> : <Loading what="variants" />}
          <h2>Traffic</h2>
          <Charts endpoint={name} variant={String(((e.ProductionVariants as Obj[] | undefined)?.[0]?.VariantName) ?? 'AllTraffic')} />
          <h2>Test request</h2>
          <TestBox endpoint={name} inService={status === 'InService'} contentTypes={deployment.data?.variants.flatMap((v) => v.contentTypes) ?? []} />
        </>
      ) : null}
    </section>
  );
}

function Variants({ endpoint, variants }: { endpoint: Obj; variants: Deployed[] }) {
  const live = new Map(((endpoint.ProductionVariants as Obj[]) ?? []).map((v) => [String(v.VariantName), v]));
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>Variant</th>
          <th>Model</th>
          <th>Capacity</th>
          <th>Deployed image and artifact</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {variants.map(({ variant, images }) => {
          const sc = variant.ServerlessConfig as Obj | undefined;
          const l = live.get(String(variant.VariantName));
          return (
            <tr key={String(variant.VariantName)}>
              <td>{String(variant.VariantName)}</td>
              <td>{String(variant.ModelName)}</td>
              <td>
                {sc
                  ? `Serverless: ${sc.MemorySizeInMB} MB, max concurrency ${sc.MaxConcurrency}${sc.ProvisionedConcurrency ? `, provisioned ${sc.ProvisionedConcurrency}` : ''}`
                  : `${variant.InitialInstanceCount ?? '?'} × ${variant.InstanceType ?? '?'}`}
                {variant.InitialVariantWeight !== undefined ? `, weight ${variant.InitialVariantWeight}` : ''}
              </td>
              <td class="mono">
                {images.map((i) => (
                  <div key={i.image + (i.modelDataUrl ?? '')}>
                    <div class="deployed-image">{i.image}</div>
                    {i.modelDataUrl ? <div class="muted">{i.modelDataUrl}</div> : null}
                    {i.packageArn ? (
                      <div>
                        <Link to={`/lineage?arn=${encodeURIComponent(i.packageArn)}`}>{i.packageArn.split('/').slice(-2).join('/')}</Link>
                      </div>
                    ) : null}
                  </div>
                ))}
              </td>
              <td>{l ? ((l.VariantStatus as Obj[] | undefined)?.map((s) => String(s.Status)).join(', ') ?? 'InService') : '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const RANGES: ReadonlyArray<readonly [label: string, seconds: number]> = [
  ['1 hour', 3600],
  ['3 hours', 3 * 3600],
  ['1 day', 86_400],
];
/** The history is read again this often while the page is open (data points arrive a minute at a time). */
const REFRESH_MS = 30_000;

function Charts({ endpoint, variant }: { endpoint: string; variant: string }) {
  const { query } = useLocation();
  const range = Number(query.get('range') ?? 3600);
  const history = useAsync((signal) => endpointHistory(endpoint, variant, range, signal), [endpoint, variant, range]);
  useInterval(history.reload, REFRESH_MS);
  const h = history.data;
  const colors = useMemo(() => ['#2563eb', '#dc2626', '#d97706', '#059669'], []);
  const total = h ? h.invocations.reduce((a, b) => a + b, 0) : 0;
  return (
    <div class="charts" data-invocations={total} data-points={h?.x.length ?? 0}>
      <div class="toolbar">
        {RANGES.map(([label, seconds]) => (
          <button key={label} type="button" aria-pressed={seconds === range} onClick={() => setQuery({ range: String(seconds) }, true)}>
            {label}
          </button>
        ))}
        <button type="button" class="refresh" onClick={history.reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={history.error} title="Could not read the endpoint's metrics" />
      {h ? (
        <>
          <Chart title="Invocations" unit="per period" x={h.x} series={[{ label: 'invocations', color: colors[0]!, values: h.invocations }]} />
          <Chart
            title="Errors"
            unit="per period"
            x={h.x}
            series={[
              { label: '4xx', color: colors[2]!, values: h.errors4xx },
              { label: '5xx', color: colors[1]!, values: h.errors5xx },
            ]}
          />
          <Chart
            title="Latency"
            unit="ms"
            x={h.x}
            series={[
              { label: 'model (average)', color: colors[3]!, values: h.modelLatency },
              { label: 'model (p99)', color: colors[1]!, values: h.modelLatencyP99 },
              { label: 'overhead (average)', color: colors[0]!, values: h.overheadLatency },
            ]}
          />
        </>
      ) : (
        <Loading what="metrics" />
      )}
      <p class="muted small">
        CloudWatch's AWS/SageMaker metrics of variant {variant}, one data point a minute (written as each minute ends); read again every {REFRESH_MS / 1000} s.
      </p>
    </div>
  );
}

function TestBox({ endpoint, inService, contentTypes }: { endpoint: string; inService: boolean; contentTypes: string[] }) {
  const types = contentTypes.length ? [...new Set(contentTypes)] : ['text/csv', 'application/json'];
  const [type, setType] = useState(types[0]!);
  const [body, setBody] = useState('');
  const [result, setResult] = useState<Invocation>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await invokeEndpoint(endpoint, type, body));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="test-box"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <div class="toolbar">
        <label>
          Content type{' '}
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            {[...new Set([...types, 'text/csv', 'application/json'])].map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy || !inService} title={inService ? '' : 'The endpoint is not InService'}>
          Send
        </button>
      </div>
      <textarea rows={4} class="mono" placeholder={type === 'text/csv' ? 'one CSV row per line' : 'request body'} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      <ErrorBox error={error} title="The endpoint answered with an error" />
      {result ? (
        <div class="prediction">
          <div class="muted small">
            {result.status} · {result.contentType} · {result.ms.toFixed(0)} ms
          </div>
          <pre class="mono">{result.body}</pre>
        </div>
      ) : null}
    </form>
  );
}
