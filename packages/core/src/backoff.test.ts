import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff';

const retry = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe('backoffDelay', () => {
  it('full jitter: a random point below the doubling ceiling', () => {
    expect(backoffDelay(retry, 0, undefined, () => 0.5)).toBe(50);
    expect(backoffDelay(retry, 1, undefined, () => 0.5)).toBe(100);
    expect(backoffDelay(retry, 2, undefined, () => 0.25)).toBe(100);
    expect(backoffDelay(retry, 0, undefined, () => 0)).toBe(0);
    expect(backoffDelay(retry, 0, undefined, () => 0.999)).toBeCloseTo(99.9);
  });

  it('the ceiling stops at maxDelayMs', () => {
    expect(backoffDelay(retry, 10, undefined, () => 0.5)).toBe(500);
    expect(backoffDelay(retry, 1_000, undefined, () => 0.5)).toBe(500);
  });

  it('retryAfterMs is the least wait, even above maxDelayMs', () => {
    expect(backoffDelay(retry, 0, 300, () => 0.5)).toBe(300);
    expect(backoffDelay(retry, 0, 5_000, () => 0.5)).toBe(5_000);
    expect(backoffDelay(retry, 3, 10, () => 0.5)).toBe(400);
  });

  it('ignores a retryAfterMs that is not a positive finite number', () => {
    for (const bad of [Number.NaN, -5, 0, Number.POSITIVE_INFINITY])
      expect(backoffDelay(retry, 0, bad, () => 0.5)).toBe(50);
  });
});
