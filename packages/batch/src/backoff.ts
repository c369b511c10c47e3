import type { BatchRetryOptions } from './types';

/** The retry policy with defaults applied. */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Applies the defaults (2 retries, 1 s base, 30 s cap). */
export function retryPolicy(options: BatchRetryOptions = {}): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? 2,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
  };
}

/**
 * Delay before retry number `retry` (1-based): exponential, capped at `maxDelayMs`, with "equal jitter"
 * (between half and all of the step) so that items failing together do not retry in lockstep.
 * `leastMs` (a provider's Retry-After) is honoured as the minimum.
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number, leastMs = 0): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.max(leastMs, Math.round(step / 2 + (step / 2) * random()));
}

/** Longest delay `setTimeout` takes; beyond, Node fires after 1 ms (a huge Retry-After must still wait). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Resolves after `ms` (capped at about 24.8 days, the timer range), or resolves `false` early when
 * `signal` aborts (never rejects).
 */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    function onAbort() {
      clearTimeout(timer);
      resolve(false);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
