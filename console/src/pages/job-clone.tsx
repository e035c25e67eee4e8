// Clone: a new job from an existing one's request, as SageMaker Studio's "Clone" does: the Describe
// answer cut down to what the Create operation takes (its members in the service model), with the
// job's tags and a new name, shown as JSON to edit before it is sent. Path: /jobs/{kind}/new?from=.
import { useState } from 'preact/hooks';
import { sagemaker } from '../api/client';
import { ErrorBox, Loading, useAsync } from '../components/ui';
import type { KindInfo } from '../lib/jobs';
import { builtinAlgorithm, ops } from '../lib/jobs';
import { Link, navigate, useLocation } from '../router';

type Obj = Record<string, unknown>;

/** A name for the clone: `<name>-clone-<base36 time>`, cut to SageMaker's 63 characters. */
export function cloneName(name: string, now = Date.now()): string {
  const suffix = `-clone-${now.toString(36).slice(-6)}`;
  return `${name.replace(/-clone-[0-9a-z]+$/, '').slice(0, 63 - suffix.length)}${suffix}`;
}

/** The Create request that would make `described` again, under `name`. */
export function cloneRequest(k: KindInfo, described: Obj, tags: readonly Obj[], name: string): Obj {
  const members = __CREATE_MEMBERS__[`Create${k.word}Job`] ?? [];
  const o = ops(k);
  const req: Obj = {};
  for (const m of members) if (described[m] !== undefined && m !== 'Tags') req[m] = described[m];
  req[o.name] = name;
  // The built-in algorithm's own metric definitions, which SageMaker adds, are not the caller's to give.
  if (k.kind === 'training' && builtinAlgorithm(described) && req.AlgorithmSpecification) {
    const { MetricDefinitions: _, ...spec } = req.AlgorithmSpecification as Obj;
    req.AlgorithmSpecification = spec;
  }
  // Tags SageMaker set itself (aws:*) cannot be given by a caller.
  const own = tags.filter((t) => !String(t.Key).startsWith('aws:'));
  if (own.length && members.includes('Tags')) req.Tags = own;
  return req;
}

export function CloneJob({ k }: { k: KindInfo }) {
  const { query } = useLocation();
  const from = query.get('from') ?? '';
  const o = ops(k);
  const source = useAsync(
    async (signal) => {
      const described = await sagemaker<Obj>(o.describe, { [o.name]: from }, signal);
      const tags = await sagemaker<{ Tags?: Obj[] }>('ListTags', { ResourceArn: described[o.arn] }, signal).catch(() => ({ Tags: [] }));
      return JSON.stringify(cloneRequest(k, described, tags.Tags ?? [], cloneName(from)), null, 2);
    },
    [k.kind, from],
  );
  const [text, setText] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const body = text ?? source.data ?? '';
  return (
    <section class="job-clone">
      <nav class="crumbs">
        <Link to="/jobs">Jobs</Link> / <Link to={`/jobs/${k.kind}`}>{k.title}</Link> /{' '}
        <Link to={`/jobs/${k.kind}/${encodeURIComponent(from)}`}>{from}</Link> / clone
      </nav>
      <h1>New {k.word.toLowerCase()} job from {from}</h1>
      <p class="muted">
        The request that created {from}, with a new name: edit it (hyperparameters, inputs, resources…) and create the job.
      </p>
      <ErrorBox error={source.error} title={`Could not read ${from}`} />
      {source.loading && !source.data ? <Loading what="the job" /> : null}
      {source.data ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            let req: Obj;
            try {
              req = JSON.parse(body) as Obj;
            } catch (err) {
              setError(new Error(`The request is not valid JSON: ${(err as Error).message}`));
              return;
            }
            setBusy(true);
            try {
              await sagemaker(`Create${k.word}Job`, req);
              navigate(`/jobs/${k.kind}/${encodeURIComponent(String(req[o.name]))}`);
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <textarea name="request" class="mono request" rows={24} spellcheck={false} value={body} onInput={(e) => setText(e.currentTarget.value)} />
          <ErrorBox error={error} title={`Create${k.word}Job failed`} />
          <div class="buttons">
            <button type="submit" disabled={busy}>
              {busy ? 'Creating…' : `Create ${k.word.toLowerCase()} job`}
            </button>
            <Link to={`/jobs/${k.kind}/${encodeURIComponent(from)}`}>Cancel</Link>
          </div>
        </form>
      ) : null}
    </section>
  );
}
