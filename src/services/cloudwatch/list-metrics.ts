// ListMetrics: the series of a partition that received data in the past two weeks (three hours
// with RecentlyActive=PT3H), filtered by namespace, name and dimensions, 500 to a page.
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_ListMetrics.html
import type { Partition } from '../../domain/arn.js';
import type { PageTokens } from '../../domain/page-token.js';
import { InvalidParameterValueException } from '../../generated/cloudwatch/errors.js';
import type { ListMetricsInput, ListMetricsOutput, Metric } from '../../generated/cloudwatch/shapes.js';
import type { Metrics } from '../../metrics/index.js';
import { parseDimensions } from '../../metrics/series.js';

const PAGE = 500;
/** Series read per request at most while looking for matches (the rest continue from NextToken). */
const SCAN_BUDGET = 10_000;
const TWO_WEEKS_MS = 14 * 86_400_000;
const THREE_HOURS_MS = 3 * 3_600_000;

export async function listMetrics(
  metrics: Metrics,
  tokens: PageTokens,
  input: ListMetricsInput,
  p: Partition,
  now: number,
): Promise<ListMetricsOutput> {
  const filters = input.Dimensions ?? [];
  const names = new Set<string>();
  for (const [i, f] of filters.entries()) {
    if (names.has(f.Name)) {
      throw new InvalidParameterValueException(
        `The value ${f.Name} for parameter Dimensions.member.${i + 1}.Name is duplicated.`,
      );
    }
    names.add(f.Name);
  }
  const scope = `ListMetrics|${p.accountId}|${p.region}|${JSON.stringify([input.Namespace, input.MetricName, filters, input.RecentlyActive])}`;
  let after =
    input.NextToken === undefined ? undefined : tokens.decode<[string, string, string]>(scope, input.NextToken);
  const seenSince = now - (input.RecentlyActive === 'PT3H' ? THREE_HOURS_MS : TWO_WEEKS_MS);
  const found: Metric[] = [];
  let scanned = 0;
  let exhausted = false;
  while (found.length < PAGE && scanned < SCAN_BUDGET) {
    const limit = Math.min(1000, SCAN_BUDGET - scanned);
    const rows = await metrics.store.listSeries(metrics.db, p, {
      namespace: input.Namespace,
      metricName: input.MetricName,
      seenSince,
      after,
      limit,
    });
    let i = 0;
    for (; i < rows.length && found.length < PAGE; i++) {
      const r = rows[i]!;
      scanned++;
      after = [r.namespace, r.metric_name, r.dimensions];
      const dims = parseDimensions(r.dimensions);
      const matches = filters.every((f) =>
        dims.some((d) => d.Name === f.Name && (f.Value === undefined || d.Value === f.Value)),
      );
      if (matches) found.push({ Namespace: r.namespace, MetricName: r.metric_name, Dimensions: dims });
    }
    if (rows.length < limit && i === rows.length) {
      exhausted = true;
      break;
    }
  }
  return {
    Metrics: found,
    NextToken: !exhausted && after ? tokens.encode(scope, after) : undefined,
    OwningAccounts: input.IncludeLinkedAccounts ? found.map(() => p.accountId) : undefined,
  };
}
