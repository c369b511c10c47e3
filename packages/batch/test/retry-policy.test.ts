import { describe, expect, it } from 'vitest';
import { retryPolicy } from '../src/retry-policy';

describe('retryPolicy', () => {
  it('defaults to 2 retries from 1 s up to 30 s', () => {
    expect(retryPolicy()).toEqual({ maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 30_000 });
  });

  it('keeps what is given', () => {
    expect(retryPolicy({ maxRetries: 0, baseDelayMs: 5, maxDelayMs: 10 })).toEqual({
      maxRetries: 0,
      baseDelayMs: 5,
      maxDelayMs: 10,
    });
  });
});
