// A lineage entity's Describe* answer (DescribeArtifact, DescribeAction, DescribeContext,
// DescribeTrialComponent) as facts a person reads: what it is and where it came from first, then
// its status, times, properties, a trial component's parameters, metrics and artifacts. The raw
// answer stays available, folded, on the page. No DOM here: the page renders the facts, the unit
// tests check them.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeArtifact.html

type Obj = Record<string, unknown>;

/** One line of the details: a value as text, a time (epoch seconds or ISO), an ARN or a URI. */
export type Fact = { readonly label: string; /** Said after the value, quietly. */ readonly note?: string } & (
  | { readonly text: string }
  | { readonly time: number | string }
  | { readonly arn: string }
  | { readonly uri: string }
);

export interface FactGroup {
  readonly title?: string;
  readonly facts: readonly Fact[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** An ARN, an s3:// URI, or text, as the fact that shows it best. */
function pointer(label: string, v: string): Fact {
  if (v.startsWith('arn:')) return { label, arn: v };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^[^/\s]+\.[^/\s]+\/\S+/.test(v)) return { label, uri: v };
  return { label, text: v };
}

/** What kind of entity a Describe answer is, from the ARN member it holds. */
export function entityKind(d: Obj): 'Artifact' | 'Action' | 'Context' | 'TrialComponent' | undefined {
  if (d.ArtifactArn) return 'Artifact';
  if (d.ActionArn) return 'Action';
  if (d.ContextArn) return 'Context';
  if (d.TrialComponentArn) return 'TrialComponent';
  return undefined;
}

/** Who did something, when SageMaker recorded it (a Studio user or an IAM identity). */
function person(u: unknown): string | undefined {
  const x = (u ?? {}) as { UserProfileName?: string; IamIdentity?: { Arn?: string; PrincipalId?: string } };
  return x.UserProfileName ?? x.IamIdentity?.Arn ?? x.IamIdentity?.PrincipalId;
}

export function entityFacts(d: Obj): FactGroup[] {
  const key: Fact[] = [];
  const add = (f: Fact | undefined) => f && key.push(f);
  const kind = entityKind(d);
  const name = str(d.ArtifactName ?? d.ActionName ?? d.ContextName ?? d.TrialComponentName);
  const display = str(d.DisplayName);
  const type = str(d.ArtifactType ?? d.ActionType ?? d.ContextType);
  add(kind ? { label: 'Kind', text: type ? `${kind} · ${type}` : kind } : undefined);
  add(name ? { label: 'Name', text: name } : undefined);
  if (display && display !== name) add({ label: 'Display name', text: display });
  const source = (d.Source ?? {}) as { SourceUri?: string; SourceArn?: string; SourceType?: string; SourceTypes?: { SourceIdType?: string; Value?: string }[] };
  const from = source.SourceUri ?? source.SourceArn;
  if (from) add({ ...pointer('Source', from), ...(source.SourceType ? { note: source.SourceType } : {}) });
  for (const t of source.SourceTypes ?? []) if (t.Value) add({ label: t.SourceIdType ?? 'Source id', text: t.Value });
  const status = d.Status as string | { PrimaryStatus?: string; Message?: string } | undefined;
  if (typeof status === 'string') add({ label: 'Status', text: status });
  else if (status?.PrimaryStatus) add({ label: 'Status', text: status.Message ? `${status.PrimaryStatus}: ${status.Message}` : status.PrimaryStatus });
  if (str(d.Description)) add({ label: 'Description', text: str(d.Description)! });
  if (d.StartTime !== undefined) add({ label: 'Started', time: d.StartTime as number });
  if (d.EndTime !== undefined) add({ label: 'Ended', time: d.EndTime as number });
  if (d.CreationTime !== undefined) add({ label: person(d.CreatedBy) ? `Created by ${person(d.CreatedBy)}` : 'Created', time: d.CreationTime as number });
  if (d.LastModifiedTime !== undefined && d.LastModifiedTime !== d.CreationTime)
    add({ label: person(d.LastModifiedBy) ? `Modified by ${person(d.LastModifiedBy)}` : 'Last modified', time: d.LastModifiedTime as number });
  const arn = str(d.ArtifactArn ?? d.ActionArn ?? d.ContextArn ?? d.TrialComponentArn);
  if (arn) add({ label: 'ARN', arn });
  if (str(d.LineageGroupArn)) add({ label: 'Lineage group', arn: str(d.LineageGroupArn)! });

  const groups: FactGroup[] = [{ facts: key }];
  const map = (title: string, m: unknown, value: (v: unknown) => string | undefined, asPointer = false) => {
    const facts: Fact[] = [];
    for (const [k, v] of Object.entries((m ?? {}) as Obj).sort(([a], [b]) => a.localeCompare(b))) {
      const s = value(v);
      if (s !== undefined) facts.push(asPointer ? pointer(k, s) : { label: k, text: s });
    }
    if (facts.length) groups.push({ title, facts });
  };
  map('Properties', d.Properties, str, true);
  map('Parameters', d.Parameters, (v) => {
    const p = v as { StringValue?: string; NumberValue?: number };
    return p.StringValue ?? (p.NumberValue !== undefined ? String(p.NumberValue) : undefined);
  });
  const metrics = (d.Metrics ?? []) as { MetricName?: string; Last?: number; Min?: number; Max?: number; Count?: number }[];
  if (metrics.length)
    groups.push({
      title: 'Metrics',
      facts: metrics.map((m) => ({
        label: m.MetricName ?? '?',
        text: `last ${fmt(m.Last)} · min ${fmt(m.Min)} · max ${fmt(m.Max)}${m.Count !== undefined ? ` · ${m.Count} values` : ''}`,
      })),
    });
  const artifactValue = (v: unknown) => str((v as { Value?: string }).Value);
  map('Input artifacts', d.InputArtifacts, artifactValue, true);
  map('Output artifacts', d.OutputArtifacts, artifactValue, true);
  return groups;
}

const fmt = (n: number | undefined) => (n === undefined ? '—' : Number.isInteger(n) ? String(n) : n.toPrecision(4));
