import type { BackoffPolicy } from '@bridle/protocol/internal';
import type { BatchRetryOptions } from './types';

/** The retry policy with defaults applied; the waits follow the backoff shared with @bridle/core. */
export interface RetryPolicy extends BackoffPolicy {
  maxRetries: number;
}

/** Applies the defaults (2 retries, 1 s base, 30 s cap). */
export function retryPolicy(options: BatchRetryOptions = {}): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? 2,
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
  };
}
