// Small pure helpers every provider adapter needs, kept here so adapters (which depend on this package
// only) share one implementation.

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** The reason to reject with when `signal` aborted: its own reason, or a standard `AbortError`. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The wait a provider asked for, in milliseconds: the `retry-after-ms` header, else `retry-after` as seconds
 * or as an HTTP date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = headers?.get('retry-after-ms');
  if (milliseconds) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers?.get('retry-after')?.trim();
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header)) return Number(header) * 1000;
  // An HTTP date always names its day and month; anything else ("-3", "1e3") is unreadable.
  const date = /[a-z]/i.test(header) ? Date.parse(header) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * True when `error` (or one of its first causes) is a connection failure: a socket error code such as
 * `ECONNRESET` or `ENOTFOUND`, or fetch's `TypeError` for a failed or terminated connection.
 */
export function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && /terminated|fetch failed|socket/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
