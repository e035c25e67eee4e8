// The model registry's first page: every model package group with how many versions it holds, its
// newest version's approval (who decided and the note) and its newest approved version, sortable
// by any column (name and creation time by the API, across pages), read again every few seconds
// so a version registered or approved elsewhere shows up. Path: /registry?q=&sort=&desc=&page=
import { useEffect, useState } from 'preact/hooks';
import { runtimeConfig, sagemaker } from '../api/client';
import { Badge, ErrorBox, Loading, Pager, Snippet, type SortState, SortableTable, useInterval, usePaged, when } from '../components/ui';
import { type GroupSummary, decided, groupSummary, who } from '../lib/registry';
import { Link, setQuery, useLocation } from '../router';
import { mapLimit } from './registry';

type Obj = Record<string, unknown>;
type Row = Obj & { summary?: GroupSummary };

const PAGE_SIZE = 25;
const REFRESH_MS = 15_000;
/** Columns the API sorts by (ListModelPackageGroups SortBy): the order holds across pages. */
const API_SORT: Record<string, string> = { name: 'Name', created: 'CreationTime' };

const firstSteps = () => `import boto3
sm = boto3.client("sagemaker", endpoint_url="${location.origin}", region_name="${runtimeConfig().region}",
                  aws_access_key_id="test", aws_secret_access_key="test")
sm.create_model_package_group(ModelPackageGroupName="my-models")
sm.create_model_package(ModelPackageGroupName="my-models", ModelApprovalStatus="PendingManualApproval",
    InferenceSpecification={"Containers": [{"Image": "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1",
                                            "ModelDataUrl": "s3://models/my-model/model.tar.gz"}],
                            "SupportedContentTypes": ["text/csv"], "SupportedResponseMIMETypes": ["text/csv"]})`;

const groupPath = (g: Obj) => `/registry/${encodeURIComponent(String(g.ModelPackageGroupName))}`;

export function Groups() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const sort: SortState = { key: query.get('sort') ?? 'created', desc: query.get('sort') ? query.get('desc') === '1' : true };
  const apiSort = API_SORT[sort.key];
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const list = usePaged(`groups|${q}|${apiSort ?? ''}|${apiSort ? sort.desc : ''}`, async (token, signal) => {
    const r = await sagemaker<{ ModelPackageGroupSummaryList: Obj[]; NextToken?: string }>(
      'ListModelPackageGroups',
      {
        MaxResults: PAGE_SIZE,
        NextToken: token,
        NameContains: q || undefined,
        SortBy: apiSort ?? 'CreationTime',
        SortOrder: apiSort && !sort.desc ? 'Ascending' : 'Descending',
      },
      signal,
    );
    const items: Row[] = await mapLimit(r.ModelPackageGroupSummaryList, 6, async (g) => ({
      ...g,
      summary: await groupSummary(String(g.ModelPackageGroupName), signal).catch(() => undefined),
    }));
    return { items, next: r.NextToken };
  });
  useInterval(list.reload, REFRESH_MS, list.data !== undefined);
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
        <input type="search" placeholder="Group name contains…" value={text} onInput={(e) => setText(e.currentTarget.value)} />
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
          <SortableTable<Row>
            rowKey={(g) => String(g.ModelPackageGroupArn)}
            rows={list.data.items}
            empty="No group matches."
            sort={sort}
            onSort={(s) => setQuery({ sort: s.key, desc: s.desc ? 1 : undefined, page: undefined })}
            columns={[
              {
                key: 'name',
                label: 'Group',
                server: true,
                value: (g) => String(g.ModelPackageGroupName),
                render: (g) => (
                  <>
                    <Link to={groupPath(g)}>{String(g.ModelPackageGroupName)}</Link>
                    {g.ModelPackageGroupStatus !== 'Completed' ? <> <Badge status={g.ModelPackageGroupStatus as string} /></> : null}
                  </>
                ),
              },
              {
                key: 'versions',
                label: 'Versions',
                class: 'num',
                value: (g) => g.summary?.versions,
                render: (g) => (g.summary ? `${g.summary.versions}${g.summary.more ? '+' : ''}` : '—'),
              },
              {
                key: 'latest',
                label: 'Latest version',
                value: (g) => g.summary?.latest?.ModelApprovalStatus as string | undefined,
                render: (g) => <Latest group={g} />,
              },
              {
                key: 'approved',
                label: 'Latest approved',
                value: (g) => g.summary?.approved?.ModelPackageVersion as number | undefined,
                render: (g) =>
                  g.summary?.approved ? (
                    <Link to={`${groupPath(g)}/${g.summary.approved.ModelPackageVersion}`}>v{String(g.summary.approved.ModelPackageVersion)}</Link>
                  ) : (
                    '—'
                  ),
              },
              { key: 'desc', label: 'Description', value: (g) => g.ModelPackageGroupDescription as string | undefined },
              { key: 'created', label: 'Created', server: true, value: (g) => g.CreationTime as number, render: (g) => when(g.CreationTime) },
            ]}
          />
          <Pager {...list} next={list.data.next} count={list.data.items.length} />
        </>
      ) : null}
    </section>
  );
}

/** The newest version: its number, approval, who decided and the note. */
function Latest({ group }: { group: Row }) {
  const p = group.summary?.latest;
  if (!p) return <span class="muted">{group.summary ? 'no versions' : '—'}</span>;
  const by = decided(p) ? who(p.LastModifiedBy) : undefined;
  const note = p.ApprovalDescription as string | undefined;
  return (
    <div class="latest-version">
      <Link to={`${groupPath(group)}/${p.ModelPackageVersion}`}>v{String(p.ModelPackageVersion)}</Link>{' '}
      <Badge status={p.ModelApprovalStatus as string} />
      {by ? <span class="muted small"> by {by}</span> : null}
      {decided(p) && p.LastModifiedTime ? <span class="muted small"> {when(p.LastModifiedTime)}</span> : null}
      {note ? (
        <div class="muted small approval-note-short" title={note}>
          {note}
        </div>
      ) : null}
    </div>
  );
}
