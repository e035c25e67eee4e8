// Samples GET /metrics while an endpoint's page is open and keeps the last minutes per endpoint,
// so the charts survive navigating away and back. Read through endpoint-metrics.ts.
import { metricsText } from '../api/client';
import { type EndpointCounters, endpointCounters, parsePrometheus } from './prometheus';

export const SAMPLE_MS = 2000;
/** As long as the longest window the endpoint page offers (a sample every 2 s: 1,800 small records an hour). */
const KEEP_MS = 3 * 60 * 60_000;

const history = new Map<string, EndpointCounters[]>();

export function samplesOf(endpoint: string): readonly EndpointCounters[] {
  return history.get(endpoint) ?? [];
}

/** Takes one sample of every watched endpoint now. */
export async function sample(endpoints: readonly string[]): Promise<void> {
  const text = await metricsText();
  const now = Date.now();
  const parsed = parsePrometheus(text);
  for (const e of endpoints) {
    const list = history.get(e) ?? [];
    list.push(endpointCounters(parsed, e, now));
    while (list.length > 0 && list[0]!.t < now - KEEP_MS) list.shift();
    history.set(e, list);
  }
}
