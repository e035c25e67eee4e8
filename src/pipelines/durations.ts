// CacheConfig.ExpireAfter: an ISO 8601 duration as SageMaker accepts it ("PT1H", "P30D", and the
// short forms its guide shows: "30d", "5y", "T16m", "30dT5h", "p30d"), in milliseconds.
// https://docs.aws.amazon.com/sagemaker/latest/dg/pipelines-caching-enabling.html
const DATE_UNITS: Record<string, number> = {
  y: 365 * 86_400_000,
  m: 30 * 86_400_000,
  w: 7 * 86_400_000,
  d: 86_400_000,
};
const TIME_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000 };

/** The duration in ms, or undefined when `text` is not one (or is zero). */
export function parseDuration(text: string): number | undefined {
  const m = /^p?((?:\d+(?:\.\d+)?[ymwd])*)(?:t((?:\d+(?:\.\d+)?[hms])+))?$/i.exec(text.trim());
  if (!m || (!m[1] && !m[2])) return undefined;
  let ms = 0;
  for (const [part, units] of [
    [m[1] ?? '', DATE_UNITS],
    [m[2] ?? '', TIME_UNITS],
  ] as const) {
    const seen = new Set<string>();
    for (const x of part.matchAll(/(\d+(?:\.\d+)?)([a-z])/gi)) {
      const unit = x[2]!.toLowerCase();
      if (seen.has(unit)) return undefined;
      seen.add(unit);
      ms += Number(x[1]) * units[unit]!;
    }
  }
  return ms > 0 ? ms : undefined;
}
