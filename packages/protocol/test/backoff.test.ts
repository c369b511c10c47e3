import { describe, expect, it } from 'vitest';
import { backoffDelay, sleep } from '../src/internal/backoff';

const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelay', () => {
  it('doubles per retry between half and all of the step, capped at maxDelayMs', () => {
    const retries = [1, 2, 3, 4, 5, 1_000];
    expect(retries.map((retry) => backoffDelay(policy, retry, { random: () => 0 }))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
    expect(retries.map((retry) => backoffDelay(policy, retry, { random: () => 0.999999 }))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(backoffDelay(policy, 2, { random: () => 0.5 })).toBe(150);
  });

  it('never waits less than a provider Retry-After, even above maxDelayMs', () => {
    expect(backoffDelay(policy, 1, { retryAfterMs: 5000, random: () => 0 })).toBe(5000);
    expect(backoffDelay(policy, 1, { retryAfterMs: 10, random: () => 0 })).toBe(50);
  });

  it('ignores a retryAfterMs that is not a finite number above 0', () => {
    for (const bad of [Number.NaN, -5, 0, Number.POSITIVE_INFINITY])
      expect(backoffDelay(policy, 1, { retryAfterMs: bad, random: () => 0 })).toBe(50);
  });

  it('stays within the step with Math.random', () => {
    for (let index = 0; index < 100; index++) {
      const wait = backoffDelay(policy, 3);
      expect(wait).toBeGreaterThanOrEqual(200);
      expect(wait).toBeLessThanOrEqual(400);
    }
  });
});

describe('sleep', () => {
  it('resolves true after the wait, false at once when aborted before or during it', async () => {
    expect(await sleep(0)).toBe(true);
    expect(await sleep(0, new AbortController().signal)).toBe(true);
    expect(await sleep(60_000, AbortSignal.abort())).toBe(false);
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });
});
