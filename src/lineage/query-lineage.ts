// QueryLineage's traversal: breadth-first from the start ARN, one batched edge lookup per level
// and direction, then filters and paging. The storage is reached only through `EdgeLoader`.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_QueryLineage.html

/** An association as the traversal sees it: both ends with their entity and lineage types. */
export interface TraversalEdge {
  readonly source_arn: string;
  readonly destination_arn: string;
  readonly association_type: string | null;
  readonly source_type: string;
  readonly destination_type: string;
  readonly source_lineage: string;
  readonly destination_lineage: string;
}

export interface EdgeLoader {
  /** Edges leaving any of these ARNs. */
  from(arns: readonly string[]): Promise<readonly TraversalEdge[]>;
  /** Edges entering any of these ARNs. */
  to(arns: readonly string[]): Promise<readonly TraversalEdge[]>;
}

export type Direction = 'Both' | 'Ascendants' | 'Descendants';

export interface VisitedVertex {
  readonly arn: string;
  /** Entity type (ArtifactType, ActionType...); '' when it has none. */
  readonly type: string;
  /** Artifact | Action | Context | TrialComponent; '' for experiments. */
  readonly lineageType: string;
  readonly depth: number;
  /** The vertex it was first reached from (undefined for the start). */
  readonly parent?: string;
}

export interface Traversal {
  /** Every vertex reached, the start first, then by depth and ARN (a stable order to page over). */
  readonly vertices: readonly VisitedVertex[];
  /** Every association walked, once each. */
  readonly edges: readonly TraversalEdge[];
}

export class TraversalTooLargeError extends Error {
  override readonly name = 'TraversalTooLargeError';
}

/**
 * Walks Ascendants (against the edges), Descendants (along them), or both. Both is the union of
 * the two walks from the start, not a zig-zag through every neighbour: that would reach a shared
 * image's every other model and say nothing about this one's lineage.
 */
export async function traverse(
  loader: EdgeLoader,
  start: { arn: string; type: string; lineageType: string },
  direction: Direction,
  maxDepth: number,
  maxVertices: number,
): Promise<Traversal> {
  const vertices = new Map<string, VisitedVertex>([[start.arn, { ...start, depth: 0 }]]);
  const edges = new Map<string, TraversalEdge>();
  const walk = async (down: boolean) => {
    const seen = new Set([start.arn]);
    let frontier = [start.arn];
    for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
      const found = down ? await loader.from(frontier) : await loader.to(frontier);
      const next = new Map<string, VisitedVertex>();
      for (const e of found) {
        edges.set(`${e.source_arn}\n${e.destination_arn}`, e);
        const [arn, type, lineageType, parent] = down
          ? [e.destination_arn, e.destination_type, e.destination_lineage, e.source_arn]
          : [e.source_arn, e.source_type, e.source_lineage, e.destination_arn];
        if (seen.has(arn) || next.has(arn)) continue;
        next.set(arn, { arn, type, lineageType, depth, parent });
      }
      frontier = [...next.keys()].sort();
      for (const arn of frontier) {
        seen.add(arn);
        const v = next.get(arn)!;
        const known = vertices.get(arn);
        if (!known || known.depth > depth) vertices.set(arn, v);
      }
      if (vertices.size > maxVertices) {
        throw new TraversalTooLargeError(`more than ${maxVertices} entities`);
      }
    }
  };
  if (direction !== 'Descendants') await walk(false);
  if (direction !== 'Ascendants') await walk(true);
  const ordered = [...vertices.values()].sort(
    (a, b) => a.depth - b.depth || (a.arn < b.arn ? -1 : a.arn > b.arn ? 1 : 0),
  );
  return { vertices: ordered, edges: [...edges.values()] };
}

export interface VertexFilter {
  readonly types?: readonly string[];
  readonly lineageTypes?: readonly string[];
  /** Needs the entity's own data (times, properties): checked by the caller through `matchesEntity`. */
  readonly needsEntity: boolean;
}

/**
 * Which vertices a page holds, and which edges go with them. Without IncludeEdges: the vertices
 * that match, start excluded. With IncludeEdges: the matches plus every vertex on their path from
 * the start (start included), and the walked edges between those vertices, each edge on the page
 * of its later end so that the pages together hold every edge once.
 */
export function selectResults(
  t: Traversal,
  matches: (v: VisitedVertex) => boolean,
  includeEdges: boolean,
): { vertices: VisitedVertex[]; edgesByVertex: Map<string, TraversalEdge[]> } {
  const byArn = new Map(t.vertices.map((v) => [v.arn, v]));
  const keep = new Set<string>();
  for (const v of t.vertices) {
    if (v.depth === 0 || !matches(v)) continue;
    keep.add(v.arn);
    if (!includeEdges) continue;
    for (let p = v.parent; p !== undefined && !keep.has(p); p = byArn.get(p)?.parent) keep.add(p);
  }
  if (includeEdges && keep.size > 0) keep.add(t.vertices[0]!.arn);
  const vertices = t.vertices.filter((v) => keep.has(v.arn));
  const edgesByVertex = new Map<string, TraversalEdge[]>();
  if (includeEdges) {
    const position = new Map(vertices.map((v, i) => [v.arn, i]));
    for (const e of t.edges) {
      const a = position.get(e.source_arn);
      const b = position.get(e.destination_arn);
      if (a === undefined || b === undefined) continue;
      const owner = vertices[Math.max(a, b)]!.arn;
      const list = edgesByVertex.get(owner);
      if (list) list.push(e);
      else edgesByVertex.set(owner, [e]);
    }
  }
  return { vertices, edgesByVertex };
}
