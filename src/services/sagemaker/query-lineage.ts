// QueryLineage: the entities (and optionally associations) upstream and/or downstream of a start ARN.
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_QueryLineage.html
import type { Edge, QueryLineageRequest, QueryLineageResponse, Vertex } from '../../generated/sagemaker/shapes.js';
import { LINEAGE_TYPE, parseEntityArn } from '../../lineage/entities.js';
import {
  type EdgeLoader,
  selectResults,
  TraversalTooLargeError,
  traverse,
  type VisitedVertex,
} from '../../lineage/query-lineage.js';
import type { RequestContext } from '../../protocol/context.js';
import { ValidationException } from '../../protocol/common-errors.js';
import type { LineageEntityRow } from '../../storage/repositories/lineage-entities.js';
import type { ServiceDeps } from '../common/deps.js';
import { mustGetByArn, parseDoc } from './lineage-common.js';
import { ResourceNotFound } from '../../generated/sagemaker/errors.js';
import { WalkCache } from '../../lineage/walk-cache.js';

// The API documents no defaults; these are the SageMaker Python SDK's (LineageQuery.query) except
// IncludeEdges, which the API describes as an opt-in.
const DEFAULT_MAX_DEPTH = 10;
const DEFAULT_MAX_RESULTS = 50;
// DEVIATION(aws): a walk that reaches more entities than this is refused (ValidationException)
// instead of holding an unbounded graph in memory for one request.
const MAX_VERTICES = 100_000;
// A walk's result serves the pages after the first for this long (a client reading every page
// takes well under it), so a 500-entity lineage read 50 at a time is walked once, not 11 times.
const WALK_TTL_MS = 60_000;
const WALKS_KEPT = 32;

type Selection = ReturnType<typeof selectResults>;

export function queryLineageHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;
  const walks = new WalkCache<Selection>(WALK_TTL_MS, WALKS_KEPT);
  return {
    async queryLineage(input: QueryLineageRequest, ctx: RequestContext): Promise<QueryLineageResponse> {
      const first = input.StartArns?.[0];
      if (first === undefined) return { Vertices: [], Edges: [] };
      const startArn: string = first;
      const direction = input.Direction ?? 'Both';
      const includeEdges = input.IncludeEdges ?? false;
      const maxDepth = input.MaxDepth ?? DEFAULT_MAX_DEPTH;
      const limit = input.MaxResults ?? DEFAULT_MAX_RESULTS;
      if (maxDepth < 0) throw new ValidationException('MaxDepth must be between 0 and 10.');
      if (limit < 1) throw new ValidationException('MaxResults must be between 1 and 50.');
      const f = input.Filters ?? {};
      const scope = `QueryLineage|${ctx.accountId}|${ctx.region}|${JSON.stringify([startArn, direction, includeEdges, maxDepth, f])}`;
      async function walkAndSelect(): Promise<Selection> {
        const parsed = parseEntityArn(ctx, startArn);
        if (!parsed) throw new ResourceNotFound(`Resource '${startArn}' does not exist.`);
        const start = await mustGetByArn(db, deps, ctx, parsed.kind, startArn);
        const loader: EdgeLoader = {
          from: (arns) => repos.lineageAssociations.edgesFrom(db, arns),
          to: (arns) => repos.lineageAssociations.edgesTo(db, arns),
        };
        let traversal: Awaited<ReturnType<typeof traverse>>;
        try {
          traversal = await traverse(
            loader,
            { arn: start.arn, type: start.entity_type ?? '', lineageType: LINEAGE_TYPE[start.kind] ?? '' },
            direction,
            maxDepth,
            MAX_VERTICES,
          );
        } catch (err) {
          if (err instanceof TraversalTooLargeError) {
            throw new ValidationException(
              `The lineage query reaches ${err.message}; lower MaxDepth or narrow the direction.`,
            );
          }
          throw err;
        }

        // Times and properties live on the entities; fetch them only when a filter needs them.
        const needEntity =
          f.CreatedAfter !== undefined ||
          f.CreatedBefore !== undefined ||
          f.ModifiedAfter !== undefined ||
          f.ModifiedBefore !== undefined ||
          (f.Properties !== undefined && Object.keys(f.Properties).length > 0);
        const rows = new Map<string, LineageEntityRow>();
        if (needEntity) {
          for (const r of await repos.lineageEntities.getMany(
            db,
            ctx,
            traversal.vertices.map((v) => v.arn),
          ))
            rows.set(r.arn, r);
        }
        const types = f.Types?.length ? new Set(f.Types) : undefined;
        const lineageTypes = f.LineageTypes?.length ? new Set<string>(f.LineageTypes) : undefined;
        const matches = (v: VisitedVertex) => {
          if (types && !types.has(v.type)) return false;
          if (lineageTypes && !lineageTypes.has(v.lineageType)) return false;
          if (!needEntity) return true;
          const r = rows.get(v.arn);
          if (!r) return false;
          if (f.CreatedAfter && !(r.created_at > f.CreatedAfter.getTime())) return false;
          if (f.CreatedBefore && !(r.created_at < f.CreatedBefore.getTime())) return false;
          if (f.ModifiedAfter && !(r.last_modified_at > f.ModifiedAfter.getTime())) return false;
          if (f.ModifiedBefore && !(r.last_modified_at < f.ModifiedBefore.getTime())) return false;
          if (f.Properties) {
            const props = parseDoc<{ Properties?: Record<string, string> }>(r).Properties ?? {};
            for (const [k, val] of Object.entries(f.Properties)) if (props[k] !== val) return false;
          }
          return true;
        };
        return selectResults(traversal, matches, includeEdges);
      }

      // The position is [offset, id of the kept walk] (a bare offset from older servers).
      const position = input.NextToken ? tokens.decode<number | [number, string]>(scope, input.NextToken) : 0;
      const [offset, walkId] = typeof position === 'number' ? [position, undefined] : position;
      let selection = walkId === undefined ? undefined : walks.recall(scope, walkId);
      let keptAs = selection ? walkId : undefined;
      if (!selection) {
        selection = await walkAndSelect();
        if (offset + limit < selection.vertices.length) keptAs = walks.remember(scope, selection);
      }
      const { vertices, edgesByVertex } = selection;

      const page = vertices.slice(offset, offset + limit);
      const Vertices: Vertex[] = page.map((v) => ({
        Arn: v.arn,
        Type: v.type || undefined,
        LineageType: (v.lineageType || undefined) as Vertex['LineageType'],
      }));
      const Edges: Edge[] = [];
      if (includeEdges) {
        for (const v of page) {
          for (const e of edgesByVertex.get(v.arn) ?? []) {
            Edges.push({
              SourceArn: e.source_arn,
              DestinationArn: e.destination_arn,
              AssociationType: (e.association_type ?? undefined) as Edge['AssociationType'],
            });
          }
        }
      }
      return {
        Vertices,
        Edges,
        NextToken:
          offset + limit < vertices.length
            ? tokens.encode(scope, keptAs ? [offset + limit, keptAs] : offset + limit)
            : undefined,
      };
    },
  };
}
