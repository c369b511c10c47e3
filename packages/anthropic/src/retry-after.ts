/**
 * The wait a provider asked for, in milliseconds: `retry-after-ms`, else `retry-after` as seconds or as an HTTP
 * date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const milliseconds = headers?.get('retry-after-ms');
  if (milliseconds) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers?.get('retry-after')?.trim();
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
