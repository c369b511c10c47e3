import { describeValue } from '@bridle/protocol';
import { MAX_ID_CHARS } from './limits';
import { StoreError } from './store-error';

/** Throws `StoreError` (`invalid_input`) unless `id` is a usable run or session id; `what` names it in the message. */
export function checkId(id: unknown, what: string): asserts id is string {
  if (typeof id !== 'string' || id === '' || id.length > MAX_ID_CHARS || id.includes('\u0000')) {
    throw new StoreError(
      'invalid_input',
      `${what} must be a non-empty string of at most ${MAX_ID_CHARS} characters without NUL, got ${describeValue(id)}`,
    );
  }
}

// Events of one run mostly share their millisecond: the last time checked is kept with its canonical form.
let lastTime: string | undefined;
let lastCanonical = '';

/** The time `value` names, as a canonical ISO 8601 UTC string; throws `StoreError` (`invalid_input`) when it is not a time. */
export function checkTime(value: unknown, what: string): string {
  if (value === lastTime) return lastCanonical;
  const millis = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(millis)) {
    throw new StoreError(
      'invalid_input',
      `${what} must be an ISO 8601 time such as 2025-01-31T12:00:00.000Z, got ${describeValue(value)}`,
    );
  }
  lastCanonical = new Date(millis).toISOString();
  lastTime = value as string;
  return lastCanonical;
}
