// Reads an endpoint's stored metric history with one GetMetricData (see endpoint-history.ts).
import { cloudWatch } from '../api/client';
import { type History, layout, periodFor, QUERIES, type Result } from './endpoint-history';

export async function endpointHistory(
  endpoint: string,
  variant: string,
  rangeSeconds: number,
  signal?: AbortSignal,
): Promise<History> {
  const period = periodFor(rangeSeconds);
  const now = Math.floor(Date.now() / 1000);
  const end = now - (now % period) + period;
  const start = end - Math.ceil(rangeSeconds / period) * period;
  const dims = [
    { Name: 'EndpointName', Value: endpoint },
    { Name: 'VariantName', Value: variant },
  ];
  const r = await cloudWatch<{ MetricDataResults?: Result[] }>(
    'GetMetricData',
    {
      StartTime: start,
      EndTime: end,
      ScanBy: 'TimestampAscending',
      MetricDataQueries: QUERIES.map(([Id, MetricName, Stat]) => ({
        Id,
        MetricStat: { Metric: { Namespace: 'AWS/SageMaker', MetricName, Dimensions: dims }, Period: period, Stat },
      })),
    },
    signal,
  );
  return layout(r.MetricDataResults ?? [], start, end, period);
}
