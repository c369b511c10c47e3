import { describe, expect, it } from 'vitest';
import { abortReason, isNetworkFailure, parseRetryAfter } from '../src/index';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads retry-after-ms first, then retry-after as seconds or an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
  });
  it('is undefined when absent or unreadable, and never negative', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': 'x', 'retry-after': '1' }), now)).toBe(1000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
  });
});

describe('isNetworkFailure', () => {
  it('recognises socket codes and failed fetches, also as causes', () => {
    expect(isNetworkFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isNetworkFailure(new TypeError('fetch failed'))).toBe(true);
    expect(
      isNetworkFailure(new Error('wrapped', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) })),
    ).toBe(true);
    expect(isNetworkFailure(new Error('bad request'))).toBe(false);
    expect(isNetworkFailure('ECONNRESET')).toBe(false);
    expect(isNetworkFailure(new TypeError('x is not a function'))).toBe(false);
  });
});

describe('abortReason', () => {
  it("is the signal's reason", () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    expect(abortReason(controller.signal)).toEqual(new Error('stop'));
    expect((abortReason(AbortSignal.abort()) as DOMException).name).toBe('AbortError');
  });
});
