import type { RetryOptions } from './types';

/**
 * The wait before retry number `retryIndex` (0-based): exponential backoff with full jitter, a random
 * time in `[0, min(maxDelayMs, baseDelayMs * 2^retryIndex))`, but never less than the provider's
 * `retryAfterMs`. `random` returns a float in [0, 1).
 */
export function backoffDelay(
  retry: Required<RetryOptions>,
  retryIndex: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** retryIndex);
  const jittered = random() * ceiling;
  const leastWait = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  return Math.max(jittered, leastWait);
}
