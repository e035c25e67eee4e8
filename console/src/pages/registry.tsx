// Model registry: groups, their versions with approval status and who approved them when, and a
// version's details with Approve / Reject (and a note). Paths: /registry, /registry/{group},
// /registry/{group}/{version}.
import { useEffect, useState } from 'preact/hooks';
import { presignedGet, runtimeConfig, sagemaker } from '../api/client';
import {
  Badge,
  ErrorBox,
  Json,
  Loading,
  Pager,
  Snippet,
  SortableTable,
  useAsync,
  usePaged,
  when,
} from '../components/ui';
import { Link, setQuery, useLocation } from '../router';

type Obj = Record<string, unknown>;
const PAGE_SIZE = 25;

export function RegistryPage() {
  const { segments } = useLocation();
  const [, group, version] = segments;
  if (group && version) return <VersionDetail group={group} version={version} />;
  if (group) return <GroupVersions group={group} />;
  return <Groups />;
}

const firstSteps = () => `import boto3
sm = boto3.client("sagemaker", endpoint_url="${location.origin}", region_name="${runtimeConfig().region}",
                  aws_access_key_id="test", aws_secret_access_key="test")
sm.create_model_package_group(ModelPackageGroupName="my-models")
sm.create_model_package(ModelPackageGroupName="my-models", ModelApprovalStatus="PendingManualApproval",
    InferenceSpecification={"Containers": [{"Image": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
                                            "ModelDataUrl": "s3://models/my-model/model.tar.gz"}],
                            "SupportedContentTypes": ["text/csv"], "SupportedResponseMIMETypes": ["text/csv"]})`;

function Groups() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const list = usePaged(`groups|${q}`, async (token, signal) => {
    const r = await sagemaker<{ ModelPackageGroupSummaryList: Obj[]; NextToken?: string }>(
      'ListModelPackageGroups',
      {
        MaxResults: PAGE_SIZE,
        NextToken: token,
        NameContains: q || undefined,
        SortBy: 'CreationTime',
        SortOrder: 'Descending',
      },
      signal,
    );
    return { items: r.ModelPackageGroupSummaryList, next: r.NextToken };
  });
  return (
    <section>
      <h1>Model registry</h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ q: text, page: undefined });
        }}
      >
        <input
          type="search"
          placeholder="Group name contains…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="model package groups" /> : null}
      {list.data && list.data.items.length === 0 && list.first && !q ? (
        <div class="empty">
          <p>
            No model package groups yet. Register a model with any SageMaker client pointed at this server, then come
            back to review and approve it here.
          </p>
          <Snippet title="boto3" code={firstSteps()} />
        </div>
      ) : null}
      {list.data && (list.data.items.length > 0 || q || !list.first) ? (
        <>
          <SortableTable
            rowKey={(g) => String(g.ModelPackageGroupArn)}
            rows={list.data.items}
            empty="No group matches."
            columns={[
              {
                key: 'name',
                label: 'Group',
                value: (g) => String(g.ModelPackageGroupName),
                render: (g) => (
                  <Link to={`/registry/${encodeURIComponent(String(g.ModelPackageGroupName))}`}>
                    {String(g.ModelPackageGroupName)}
                  </Link>
                ),
              },
              { key: 'desc', label: 'Description', value: (g) => g.ModelPackageGroupDescription as string | undefined },
              {
                key: 'status',
                label: 'Status',
                value: (g) => g.ModelPackageGroupStatus as string,
                render: (g) => <Badge status={g.ModelPackageGroupStatus as string} />,
              },
              {
                key: 'created',
                label: 'Created',
                value: (g) => g.CreationTime as number,
                render: (g) => when(g.CreationTime),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

/** Who changed a package last: the identity SageMaker records, in the most readable form it has. */
export function who(u: unknown): string | undefined {
  const x = (u ?? {}) as {
    UserProfileName?: string;
    IamIdentity?: { Arn?: string; PrincipalId?: string };
    DomainId?: string;
  };
  return x.UserProfileName ?? x.IamIdentity?.Arn ?? x.IamIdentity?.PrincipalId;
}

const decided = (p: Obj) => p.ModelApprovalStatus === 'Approved' || p.ModelApprovalStatus === 'Rejected';
/** " by <who>" when the server recorded an identity, else nothing. */
const by = (u: unknown) => (who(u) ? ` by ${who(u)}` : '');

const STATUSES = ['', 'PendingManualApproval', 'Approved', 'Rejected'];

function GroupVersions({ group }: { group: string }) {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const list = usePaged(`versions|${group}|${status}`, async (token, signal) => {
    const r = await sagemaker<{ ModelPackageSummaryList: Obj[]; NextToken?: string }>(
      'ListModelPackages',
      {
        ModelPackageGroupName: group,
        MaxResults: PAGE_SIZE,
        NextToken: token,
        SortBy: 'CreationTime',
        SortOrder: 'Descending',
        ModelApprovalStatus: status || undefined,
      },
      signal,
    );
    // Who approved and when is only in DescribeModelPackage: read it for the versions on this page.
    const described = await mapLimit(r.ModelPackageSummaryList, 8, (s) =>
      sagemaker<Obj>('DescribeModelPackage', { ModelPackageName: s.ModelPackageArn }, signal).catch(() => s),
    );
    return { items: described, next: r.NextToken };
  });
  const groupInfo = useAsync(
    (signal) => sagemaker<Obj>('DescribeModelPackageGroup', { ModelPackageGroupName: group }, signal),
    [group],
  );
  return (
    <section>
      <nav class="crumbs">
        <Link to="/registry">Model registry</Link> / <span>{group}</span>
      </nav>
      <h1>{group}</h1>
      <ErrorBox error={groupInfo.error} />
      {groupInfo.data ? <p class="muted">{String(groupInfo.data.ModelPackageGroupDescription ?? '')}</p> : null}
      <div class="toolbar">
        <label>
          Approval status{' '}
          <select value={status} onChange={(e) => setQuery({ status: e.currentTarget.value, page: undefined })}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'Any'}
              </option>
            ))}
          </select>
        </label>
        {groupInfo.data ? (
          <Link to={`/lineage?arn=${encodeURIComponent(String(groupInfo.data.ModelPackageGroupArn))}`}>Lineage</Link>
        ) : null}
      </div>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="versions" /> : null}
      {list.data ? (
        <>
          <SortableTable
            rowKey={(p) => String(p.ModelPackageArn)}
            rows={list.data.items}
            empty={status ? `No version is ${status}.` : 'No version registered in this group yet.'}
            columns={[
              {
                key: 'version',
                label: 'Version',
                value: (p) => p.ModelPackageVersion as number,
                render: (p) => (
                  <Link to={`/registry/${encodeURIComponent(group)}/${p.ModelPackageVersion}`}>
                    {String(p.ModelPackageVersion)}
                  </Link>
                ),
              },
              {
                key: 'status',
                label: 'Approval',
                value: (p) => p.ModelApprovalStatus as string,
                render: (p) => <Badge status={p.ModelApprovalStatus as string} />,
              },
              { key: 'by', label: 'Decided by', value: (p) => (decided(p) ? who(p.LastModifiedBy) : undefined) },
              {
                key: 'at',
                label: 'Decided at',
                value: (p) => (decided(p) ? (p.LastModifiedTime as number) : undefined),
                render: (p) => (decided(p) ? when(p.LastModifiedTime) : '—'),
              },
              { key: 'note', label: 'Note', value: (p) => p.ApprovalDescription as string | undefined },
              {
                key: 'created',
                label: 'Registered',
                value: (p) => p.CreationTime as number,
                render: (p) => when(p.CreationTime),
              },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

function VersionDetail({ group, version }: { group: string; version: string }) {
  const { accountId, region } = runtimeConfig();
  const arn = `arn:aws:sagemaker:${region}:${accountId}:model-package/${group}/${version}`;
  const pkg = useAsync((signal) => sagemaker<Obj>('DescribeModelPackage', { ModelPackageName: arn }, signal), [arn]);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const decide = async (status: 'Approved' | 'Rejected') => {
    setBusy(true);
    setError(undefined);
    try {
      await sagemaker('UpdateModelPackage', {
        ModelPackageArn: arn,
        ModelApprovalStatus: status,
        ApprovalDescription: note || undefined,
      });
      setNote('');
      pkg.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const p = pkg.data;
  const spec = p?.InferenceSpecification as
    | { Containers?: Obj[]; SupportedContentTypes?: string[]; SupportedResponseMIMETypes?: string[] }
    | undefined;
  return (
    <section>
      <nav class="crumbs">
        <Link to="/registry">Model registry</Link> / <Link to={`/registry/${encodeURIComponent(group)}`}>{group}</Link>{' '}
        / <span>version {version}</span>
      </nav>
      <h1>
        {group} <span class="muted">v{version}</span> {p ? <Badge status={p.ModelApprovalStatus as string} /> : null}
      </h1>
      <ErrorBox error={pkg.error} />
      {!p && pkg.loading ? <Loading /> : null}
      {p ? (
        <div class="columns">
          <div>
            <dl class="facts">
              <dt>ARN</dt>
              <dd class="mono">{String(p.ModelPackageArn)}</dd>
              <dt>Description</dt>
              <dd>{String(p.ModelPackageDescription ?? '—')}</dd>
              <dt>Registered</dt>
              <dd>
                {when(p.CreationTime)}
                {by(p.CreatedBy)}
              </dd>
              <dt>Approval</dt>
              <dd>
                <Badge status={p.ModelApprovalStatus as string} />
                {decided(p) ? `${by(p.LastModifiedBy)} at ${when(p.LastModifiedTime)}` : ''}
              </dd>
              <dt>Approval note</dt>
              <dd class="approval-note">{String(p.ApprovalDescription ?? '—')}</dd>
            </dl>
            <form
              class="decide"
              onSubmit={(e) => {
                e.preventDefault();
              }}
            >
              <label>
                Note for this decision
                <textarea
                  rows={3}
                  value={note}
                  placeholder="Why (optional)"
                  onInput={(e) => setNote(e.currentTarget.value)}
                />
              </label>
              <div class="buttons">
                <button
                  type="button"
                  class="approve"
                  disabled={busy || p.ModelApprovalStatus === 'Approved'}
                  onClick={() => decide('Approved')}
                >
                  Approve
                </button>
                <button
                  type="button"
                  class="reject"
                  disabled={busy || p.ModelApprovalStatus === 'Rejected'}
                  onClick={() => decide('Rejected')}
                >
                  Reject
                </button>
                <Link to={`/lineage?arn=${encodeURIComponent(arn)}`}>Lineage</Link>
              </div>
              <ErrorBox error={error} title="Could not change the approval" />
            </form>
          </div>
          <div>
            <h2>Inference specification</h2>
            {(spec?.Containers ?? []).map((c, i) => (
              <dl class="facts" key={i}>
                <dt>Image</dt>
                <dd class="mono">{String(c.Image)}</dd>
                <dt>Artifact</dt>
                <dd class="mono">{c.ModelDataUrl ? <Artifact uri={String(c.ModelDataUrl)} /> : '—'}</dd>
                {c.Framework ? (
                  <>
                    <dt>Framework</dt>
                    <dd>{`${c.Framework} ${c.FrameworkVersion ?? ''}`}</dd>
                  </>
                ) : null}
              </dl>
            ))}
            <dl class="facts">
              <dt>Content types</dt>
              <dd>{(spec?.SupportedContentTypes ?? []).join(', ') || '—'}</dd>
              <dt>Response types</dt>
              <dd>{(spec?.SupportedResponseMIMETypes ?? []).join(', ') || '—'}</dd>
            </dl>
            <details>
              <summary>Full description</summary>
              <Json value={p} />
            </details>
          </div>
        </div>
      ) : null}
    </section>
  );
}

/** The S3 URI with a download link signed for this user. */
function Artifact({ uri }: { uri: string }) {
  const link = useAsync(() => presignedGet(uri), [uri]);
  return (
    <>
      {uri}
      {link.data ? (
        <>
          {' '}
          <a href={link.data} download>
            download
          </a>
        </>
      ) : null}
    </>
  );
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
