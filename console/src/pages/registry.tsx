// Model registry: groups (registry-groups.tsx), their versions with approval status and who approved
// them when, and a version's details with Approve / Reject (and a note). Each is read again every
// few seconds, so a decision made elsewhere shows up. Paths: /registry, /registry/{group},
// /registry/{group}/{version}.
import { useState } from 'preact/hooks';
import { ApiError, presignedGet, runtimeConfig, sagemaker } from '../api/client';
import { Badge, ErrorBox, Json, Loading, Pager, SortableTable, useAsync, useInterval, usePaged, when } from '../components/ui';
import { decided, who } from '../lib/registry';
import { Link, setQuery, useLocation } from '../router';
import { Groups } from './registry-groups';

export { mapLimit } from '../lib/async';
import { mapLimit } from '../lib/async';

type Obj = Record<string, unknown>;
const PAGE_SIZE = 25;
/** A group's versions and a version are read again this often (ms): decisions made elsewhere show up. */
const REFRESH_MS = 5000;

/** The API's answer for a group or version that is not there (SageMaker says ValidationException). */
const notFound = (err: unknown) =>
  err instanceof ApiError && (err.code === 'ResourceNotFound' || /does not exist|not found/i.test(err.message));

export function RegistryPage() {
  const { segments } = useLocation();
  const [, group, version] = segments;
  if (group && version) return <VersionDetail group={group} version={version} />;
  if (group) return <GroupVersions group={group} />;
  return <Groups />;
}

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
  const groupInfo = useAsync((signal) => sagemaker<Obj>('DescribeModelPackageGroup', { ModelPackageGroupName: group }, signal), [group]);
  useInterval(list.reload, REFRESH_MS, list.data !== undefined && !groupInfo.error);
  const crumbs = (
    <nav class="crumbs">
      <Link to="/registry">Model registry</Link> / <span>{group}</span>
    </nav>
  );
  // A group that is not there is said once, not as an error over an empty list of versions.
  if (notFound(groupInfo.error))
    return (
      <section class="not-found">
        {crumbs}
        <h1>No such model package group</h1>
        <p>
          The registry has no group named <code>{group}</code>. <Link to="/registry">See every group</Link>.
        </p>
      </section>
    );
  return (
    <section>
      {crumbs}
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
        {groupInfo.data ? <Link to={`/lineage?arn=${encodeURIComponent(String(groupInfo.data.ModelPackageGroupArn))}`}>Lineage</Link> : null}
      </div>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Loading what="versions" /> : null}
      {list.data && !groupInfo.error ? (
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
                render: (p) => <Link to={`/registry/${encodeURIComponent(group)}/${p.ModelPackageVersion}`}>{String(p.ModelPackageVersion)}</Link>,
              },
              { key: 'status', label: 'Approval', value: (p) => p.ModelApprovalStatus as string, render: (p) => <Badge status={p.ModelApprovalStatus as string} /> },
              { key: 'by', label: 'Decided by', value: (p) => (decided(p) ? who(p.LastModifiedBy) : undefined) },
              { key: 'at', label: 'Decided at', value: (p) => (decided(p) ? (p.LastModifiedTime as number) : undefined), render: (p) => (decided(p) ? when(p.LastModifiedTime) : '—') },
              { key: 'note', label: 'Note', value: (p) => p.ApprovalDescription as string | undefined },
              { key: 'created', label: 'Registered', value: (p) => p.CreationTime as number, render: (p) => when(p.CreationTime) },
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
  useInterval(pkg.reload, REFRESH_MS, pkg.data !== undefined && !busy);
  const [error, setError] = useState<unknown>();
  const decide = async (status: 'Approved' | 'Rejected') => {
    setBusy(true);
    setError(undefined);
    try {
      await sagemaker('UpdateModelPackage', { ModelPackageArn: arn, ModelApprovalStatus: status, ApprovalDescription: note || undefined });
      setNote('');
      pkg.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const p = pkg.data;
  const spec = p?.InferenceSpecification as { Containers?: Obj[]; SupportedContentTypes?: string[]; SupportedResponseMIMETypes?: string[] } | undefined;
  return (
    <section>
      <nav class="crumbs">
        <Link to="/registry">Model registry</Link> / <Link to={`/registry/${encodeURIComponent(group)}`}>{group}</Link> / <span>version {version}</span>
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
                <textarea rows={3} value={note} placeholder="Why (optional)" onInput={(e) => setNote(e.currentTarget.value)} />
              </label>
              <div class="buttons">
                <button type="button" class="approve" disabled={busy || p.ModelApprovalStatus === 'Approved'} onClick={() => decide('Approved')}>
                  Approve
                </button>
                <button type="button" class="reject" disabled={busy || p.ModelApprovalStatus === 'Rejected'} onClick={() => decide('Rejected')}>
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
