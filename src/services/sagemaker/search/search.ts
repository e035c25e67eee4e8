// Search: finds resources of one type by a SearchExpression, sorted by any property path, a page
// at a time. https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Search.html
//
// Plan: the page is read in the SortBy order from the index (search_values), as an index range:
// filters of the top-level And on the sort path become the range's bounds, and an Equals filter on
// another path restricts it to the resources having that value. When those account for the whole
// expression every row of the range is a result; otherwise each candidate's record is tested, and
// at most MAX_CANDIDATES are examined per request: a page may then come back short, with a
// NextToken to continue from (bounded work per request, never a scan of the whole partition).
import type { SearchRequest, SearchResponse } from '../../../generated/sagemaker/shapes.js';
import { ValidationException } from '../../../protocol/common-errors.js';
import type { RequestContext } from '../../../protocol/context.js';
import type { Bound, ScanQuery, ScanRow } from '../../../storage/repositories/search-index.js';
import type { ServiceDeps } from '../../common/deps.js';
import { compile, type Condition, type Expr, matches } from './expression.js';
import { MAX_INDEXED_TEXT, recordShape, resolvePath } from './paths.js';
import { SearchRecords } from './records.js';
import { type Doc, searchableTypes } from './registry.js';

/** "The default is 10"; the model caps MaxResults at 100. */
const DEFAULT_MAX_RESULTS = 10;
/** Candidates tested per request when the index alone cannot decide (Or, Contains, NotEquals ...). */
export const MAX_CANDIDATES = 2000;
const CANDIDATE_BATCH = 100;
/** Resources indexed per transaction by the startup backfill (each batch rewrites the index pages it touches). */
const BACKFILL_BATCH = 2000;

const BOUND_OP: Partial<Record<Condition['op'], Bound['op']>> = {
  Equals: '=',
  GreaterThan: '>',
  GreaterThanOrEqualTo: '>=',
  LessThan: '<',
  LessThanOrEqualTo: '<=',
};

/** The index column a condition's value lives in, if the index can answer it exactly. */
function indexable(c: Condition): { column: 'num' | 'str'; value: number | string } | undefined {
  const t = c.resolved.type;
  if ((t === 'number' || t === 'timestamp') && typeof c.value === 'number') return { column: 'num', value: c.value };
  if (t === 'string' && typeof c.value === 'string' && c.value.length <= MAX_INDEXED_TEXT)
    return { column: 'str', value: c.value };
  return undefined;
}

/** Whether a record is visible under VisibilityConditions: for each listed tag it has, the value matches. */
function visible(doc: Doc, conditions: SearchRequest['VisibilityConditions']): boolean {
  const tags = (doc.Tags ?? []) as Array<{ Key: string; Value: string }>;
  return (conditions ?? []).every(({ Key, Value }) => {
    const key = Key?.startsWith('Tags.') ? Key.slice(5) : Key;
    const tag = tags.find((t) => t.Key === key);
    return !tag || tag.Value === Value;
  });
}

export function searchHandlers(deps: ServiceDeps) {
  const { db, repos, tokens } = deps;
  const records = new SearchRecords(deps, searchableTypes(deps));
  const byResource = new Map(records.types.map((t) => [t.resource as string, t]));
  // Index what was written before this start (the migration's backfill, or writes of another build).
  setImmediate(() => records.drain(BACKFILL_BATCH).catch(() => {}));

  return {
    records,
    async search(input: SearchRequest, ctx: RequestContext): Promise<SearchResponse> {
      const type = byResource.get(input.Resource);
      // Resource types Slipway does not serve have no resources to find; nothing is shared across accounts.
      if (!type || input.CrossAccountFilterOption === 'CrossAccount') return { Results: [] };
      const shape = recordShape(type.record);
      const expr = input.SearchExpression ? compile(input.SearchExpression, shape, input.Resource) : undefined;
      const sortBy = input.SortBy ?? (resolvePath(shape, 'LastModifiedTime') ? 'LastModifiedTime' : 'CreationTime');
      const sort = resolvePath(shape, sortBy);
      if (!sort) {
        throw new ValidationException(
          `The property name '${sortBy}' is not a valid property for resource type ${input.Resource}.`,
        );
      }
      const column = sort.type === 'string' ? 'str' : 'num';
      const descending = input.SortOrder !== 'Ascending';
      const limit = input.MaxResults ?? DEFAULT_MAX_RESULTS;
      const { SearchExpression, SortOrder, VisibilityConditions } = input;
      const scope = `Search|${ctx.accountId}|${ctx.region}|${JSON.stringify([input.Resource, SearchExpression, sortBy, SortOrder, VisibilityConditions])}`;
      let position = input.NextToken ? tokens.decode<[number | string, number]>(scope, input.NextToken) : undefined;

      await records.drain();

      // The top-level conjunction: what the index range can take over.
      const conjuncts: Expr[] = !expr ? [] : expr.kind === 'bool' && expr.and ? [...expr.parts] : [expr];
      const bounds: Bound[] = [];
      let where: ScanQuery['where'] | undefined;
      let absorbed = 0;
      for (const part of conjuncts) {
        if (part.kind !== 'filter') continue;
        const c = part.condition;
        const op = BOUND_OP[c.op];
        const v = op ? indexable(c) : undefined;
        if (!op || !v) continue;
        if (c.resolved.path === sortBy && v.column === column) {
          bounds.push({ op, value: v.value });
          absorbed++;
        } else if (op === '=' && !where) {
          const pathId = await repos.searchIndex.pathId(db, ctx, type.resource, c.resolved.path, false);
          if (pathId === undefined) return { Results: [] };
          where = { pathId, column: v.column, value: v.value };
          absorbed++;
        }
      }
      const exact = absorbed === conjuncts.length && !VisibilityConditions?.length;
      const pathId = await repos.searchIndex.pathId(db, ctx, type.resource, sortBy, false);
      if (pathId === undefined) return { Results: [] };

      const results: ScanRow[] = [];
      const found = new Map<string, Doc>();
      const seen = new Set<number>();
      let examined = 0;
      let more = false;
      const batch = exact ? limit + 1 : CANDIDATE_BATCH;
      scan: for (;;) {
        const rows = await repos.searchIndex.scan(db, {
          pathId,
          column,
          bounds,
          descending,
          where,
          after: position,
          limit: batch,
        });
        const docs = exact ? undefined : await records.load(db, ctx, type, [...new Set(rows.map((r) => r.arn))]);
        for (const row of rows) {
          examined++;
          const doc = docs?.get(row.arn);
          // A resource with several values at the sort path (a list) is listed at its first.
          if (
            !seen.has(row.doc_id) &&
            (exact || (doc && (!expr || matches(expr, doc)) && visible(doc, VisibilityConditions)))
          ) {
            if (results.length === limit) {
              more = true;
              break scan;
            }
            results.push(row);
            seen.add(row.doc_id);
            if (doc) found.set(row.arn, doc);
          }
          position = [(column === 'num' ? row.n : row.s)!, row.doc_id];
        }
        if (rows.length < batch) break;
        if (examined >= MAX_CANDIDATES) {
          more = true;
          break;
        }
      }
      if (exact && results.length > 0) {
        for (const [arn, doc] of await records.load(
          db,
          ctx,
          type,
          results.map((r) => r.arn),
        ))
          found.set(arn, doc);
      }
      return {
        Results: results.flatMap((r) => (found.has(r.arn) ? [{ [type.record]: found.get(r.arn) }] : [])),
        NextToken: more && position ? tokens.encode(scope, position) : undefined,
      };
    },
  };
}
