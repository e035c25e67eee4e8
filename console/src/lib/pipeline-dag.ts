// A pipeline definition (version 2020-12-01) as a picture: its steps (a Condition step's IfSteps and
// ElseSteps included), the edges its DependsOn, property references and branches imply, and a
// layered layout (a step one column right of the furthest step it depends on).

export interface DagNode {
  readonly name: string;
  readonly type: string;
  readonly displayName?: string;
  /** Column (0: steps that depend on nothing) and row within the column. */
  readonly layer: number;
  readonly row: number;
}

export interface DagEdge {
  readonly from: string;
  readonly to: string;
  /** From a Condition step to a step of its branch: which outcome runs it. */
  readonly branch?: boolean;
}

export interface Dag {
  readonly nodes: readonly DagNode[];
  readonly edges: readonly DagEdge[];
  readonly layers: number;
  readonly rows: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The steps a value refers to (`{"Get": "Steps.<name>...."}`, property files included). */
function referencedSteps(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) referencedSteps(x, out);
  else if (isObj(v)) {
    const get = v.Get;
    if (typeof get === 'string') {
      const m = /^Steps\.([A-Za-z0-9\-_]+)\./.exec(get);
      if (m) out.add(m[1]!);
    }
    for (const x of Object.values(v)) referencedSteps(x, out);
  }
}

/** The picture of a definition's text; an unreadable definition gives an empty picture. */
export function pipelineDag(text: string): Dag {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { nodes: [], edges: [], layers: 0, rows: 0 };
  }
  const steps: Array<{ def: Obj; deps: Set<string>; owner?: { condition: string; outcome: boolean } }> = [];
  const walk = (list: unknown, owner?: { condition: string; outcome: boolean }) => {
    if (!Array.isArray(list)) return;
    for (const s of list) {
      if (!isObj(s) || typeof s.Name !== 'string') continue;
      const args = isObj(s.Arguments) ? s.Arguments : {};
      const deps = new Set<string>(
        Array.isArray(s.DependsOn) ? s.DependsOn.filter((d): d is string => typeof d === 'string') : [],
      );
      referencedSteps(s.Type === 'Condition' ? args.Conditions : args, deps);
      steps.push({ def: s, deps, owner });
      if (s.Type === 'Condition') {
        walk(args.IfSteps, { condition: s.Name, outcome: true });
        walk(args.ElseSteps, { condition: s.Name, outcome: false });
      }
    }
  };
  walk(isObj(doc) ? doc.Steps : undefined);
  const names = new Set(steps.map((s) => String(s.def.Name)));
  const edges: DagEdge[] = [];
  for (const s of steps) {
    const to = String(s.def.Name);
    if (s.owner) edges.push({ from: s.owner.condition, to, branch: s.owner.outcome });
    for (const d of s.deps) if (d !== to && names.has(d) && d !== s.owner?.condition) edges.push({ from: d, to });
  }
  // Longest path from a root: a step sits one column right of its furthest predecessor (cycles,
  // which CreatePipeline refuses, are cut by the visiting guard).
  const preds = new Map<string, string[]>();
  for (const e of edges) preds.set(e.to, [...(preds.get(e.to) ?? []), e.from]);
  const layer = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (n: string): number => {
    const known = layer.get(n);
    if (known !== undefined) return known;
    if (visiting.has(n)) return 0;
    visiting.add(n);
    const l = Math.max(-1, ...(preds.get(n) ?? []).map(depth)) + 1;
    visiting.delete(n);
    layer.set(n, l);
    return l;
  };
  const perLayer = new Map<number, number>();
  const nodes = steps.map((s) => {
    const name = String(s.def.Name);
    const l = depth(name);
    const row = perLayer.get(l) ?? 0;
    perLayer.set(l, row + 1);
    return {
      name,
      type: String(s.def.Type ?? ''),
      displayName: typeof s.def.DisplayName === 'string' ? s.def.DisplayName : undefined,
      layer: l,
      row,
    };
  });
  return {
    nodes,
    edges,
    layers: nodes.length ? Math.max(...nodes.map((n) => n.layer)) + 1 : 0,
    rows: perLayer.size ? Math.max(...perLayer.values()) : 0,
  };
}
