// Endpoints: the list, and one endpoint's status (polled: every second while it changes, every few
// seconds otherwise), why it failed, variants, deployed images, traffic charts of its stored
// CloudWatch metrics (endpoint-traffic.tsx) and a box to send a test request. Paths: /endpoints, /endpoints/{name}?window=.
import { useEffect, useState } from 'preact/hooks';
import { type Invocation, invokeEndpoint, sagemaker } from '../api/client';
import { Badge, ErrorBox, Loading, Pager, Snippet, SortableTable, useAsync, useInterval, usePaged, when } from '../components/ui';
import { Link, setQuery, useLocation } from '../router';
import { Traffic } from './endpoint-traffic';
import { mapLimit } from './registry';

type Obj = Record<string, unknown>;
const TRANSITIONAL = new Set(['Creating', 'Updating', 'Deleting', 'SystemUpdating', 'RollingBack']);
/** Statuses in which the endpoint answers requests: its traffic and the test box apply. */
const SERVING = new Set(['InService', 'Updating', 'SystemUpdating', 'RollingBack']);
/** How often a page showing endpoints asks again when nothing is under way (ms). */
const CALM_MS = 10_000;

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
  // Endpoints on their way somewhere are shown live; the rest is read again now and then, so an
  // endpoint created or deleted elsewhere shows up without a reload.
  const moving = list.data?.items.some((e) => TRANSITIONAL.has(String(e.EndpointStatus))) ?? false;
  useInterval(list.reload, moving ? 2000 : CALM_MS);
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
  useInterval(ep.reload, status !== undefined && TRANSITIONAL.has(status) ? 1000 : CALM_MS, ep.data !== undefined);
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
      {e && status === 'Failed' ? <Failure reason={e.FailureReason} /> : null}
      {e && status !== 'Failed' && e.FailureReason ? (
        <div class="warning" role="status">
          <strong>The last change failed</strong>
          <div>{String(e.FailureReason)}</div>
        </div>
      ) : null}
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
          </dl>
          <p>
            <Link to={`/lineage?arn=${encodeURIComponent(String(e.EndpointArn))}&direction=Ascendants`}>Lineage of this endpoint</Link>
          </p>
          <h2>Variants</h2>
          <ErrorBox error={deployment.error} />
          {deployment.data ? <Variants endpoint={e} variants={deployment.data.variants} /> : <Loading what="variants" />}
          {status && SERVING.has(status) ? (
            <>
              <h2>Traffic</h2>
              <Traffic endpoint={name} variant={String((e.ProductionVariants as Obj[] | undefined)?.[0]?.VariantName ?? 'AllTraffic')} />
              <h2>Test request</h2>
              <TestBox endpoint={name} inService={status === 'InService'} contentTypes={deployment.data?.variants.flatMap((v) => v.contentTypes) ?? []} />
            </>
          ) : status !== 'Failed' ? (
            <p class="muted not-serving">
              The endpoint is {status}: its traffic and a test request will be here once it is InService.
            </p>
          ) : null}
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

/** Why a Failed endpoint failed, first and in full, and what to do about it. */
function Failure({ reason }: { reason: unknown }) {
  return (
    <div class="failure" role="alert">
      <strong>This endpoint failed</strong>
      <p class="failure-reason">{reason ? String(reason) : 'SageMaker gave no reason.'}</p>
      <p class="small">
        A failed endpoint serves no requests and cannot be updated. Fix the cause (the model's artifact and image,
        the endpoint config), then delete the endpoint and create it again.
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
