/** How long to wait between retries: exponential from `baseDelayMs`, capped at `maxDelayMs`. */
export interface BackoffPolicy {
  /** The step before the first retry, in milliseconds. */
  baseDelayMs: number;
  /** The largest step, in milliseconds. */
  maxDelayMs: number;
}

/**
 * The wait before retry number `retry` (1 for the first retry), in milliseconds: the exponential step
 * `min(maxDelayMs, baseDelayMs * 2^(retry - 1))` with "equal jitter" (a random time between half and all of the
 * step, so that callers failing together do not retry in lockstep, yet none retries at once), but never less
 * than `retryAfterMs` (a provider's Retry-After; ignored unless a finite number above 0). `random` returns a
 * float in [0, 1). Never throws.
 */
export function backoffDelay(
  policy: BackoffPolicy,
  retry: number,
  options: { retryAfterMs?: number | undefined; random?: () => number } = {},
): number {
  const { retryAfterMs, random = Math.random } = options;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = Math.round(step / 2 + (step / 2) * random());
  const least = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  return Math.max(jittered, least);
}

/** Longest delay `setTimeout` takes; beyond, Node fires after 1 ms (a huge Retry-After must still wait). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Resolves `true` after `ms` (capped at about 24.8 days, the timer range), or `false` as soon as `signal`
 * aborts (at once when it already has). Never rejects; leaves no timer or listener behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    function onAbort() {
      clearTimeout(timer);
      resolve(false);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
