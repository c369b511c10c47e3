import { describe, expect, it } from 'vitest';
import { backoffDelay, retryPolicy, sleep } from './backoff';

describe('backoffDelay', () => {
  const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });

  it('doubles per retry between half and all of the step, capped at maxDelayMs', () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(policy, retry, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(policy, retry, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it('never waits less than a provider Retry-After', () => {
    expect(backoffDelay(policy, 1, () => 0, 5000)).toBe(5000);
    expect(backoffDelay(policy, 1, () => 0, 10)).toBe(50);
  });

  it('defaults to 2 retries from 1 s up to 30 s', () => {
    expect(retryPolicy()).toEqual({ maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 30_000 });
  });
});

describe('sleep', () => {
  it('resolves true after the wait, false at once when aborted before or during it', async () => {
    expect(await sleep(0, new AbortController().signal)).toBe(true);
    expect(await sleep(60_000, AbortSignal.abort())).toBe(false);
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });
});
