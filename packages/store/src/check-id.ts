import { describeValue } from '@bridle/protocol';
import { MAX_ID_CHARS } from './limits';
import { StoreError } from './store-error';

// A run's id is checked at each of its appends and lease calls: the last one found usable is remembered.
// (Nothing passed in equals its first value.)
let lastId: unknown = Symbol('no id yet');

/** Throws `StoreError` (`invalid_input`) unless `id` is a usable run or session id; `what` names it in the message. */
export function checkId(id: unknown, what: string): asserts id is string {
  if (id === lastId) return;
  if (typeof id !== 'string' || id === '' || id.length > MAX_ID_CHARS || id.includes('\u0000')) {
    throw new StoreError(
      'invalid_input',
      `${what} must be a non-empty string of at most ${MAX_ID_CHARS} characters without NUL, got ${describeValue(id)}`,
    );
  }
  lastId = id;
}

// Events of one run mostly share their millisecond: the last time checked is kept with its canonical form.
let lastTime: string | undefined;
let lastCanonical = '';
// The minute (`YYYY-MM-DDTHH:MM:`) of the last time found canonical as written; '' before one.
let canonicalMinute = '';
// What `toISOString` writes for years 0 to 9999. Date.parse also takes days past a month's end (Feb 30 is
// March 2), so a match is canonical only when the parsed day is the written one.
const CANONICAL_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

const digit = (code: number) => code >= 48 && code <= 57;

/** True when `value` ends, from its 18th character, with canonical seconds: `SS.mmmZ`. */
function canonicalSeconds(value: string): boolean {
  return (
    value.length === 24 &&
    value.charCodeAt(17) >= 48 &&
    value.charCodeAt(17) <= 53 &&
    digit(value.charCodeAt(18)) &&
    value.charCodeAt(19) === 46 &&
    digit(value.charCodeAt(20)) &&
    digit(value.charCodeAt(21)) &&
    digit(value.charCodeAt(22)) &&
    value.charCodeAt(23) === 90
  );
}

/** The time `value` names, as a canonical ISO 8601 UTC string; throws `StoreError` (`invalid_input`) when it is not a time. */
export function checkTime(value: unknown, what: string): string {
  if (value === lastTime) return lastCanonical;
  // Another time of the minute of the last one found canonical as written: only its seconds need a look.
  if (
    typeof value === 'string' &&
    canonicalMinute !== '' &&
    value.startsWith(canonicalMinute) &&
    canonicalSeconds(value)
  ) {
    lastTime = value;
    lastCanonical = value;
    return value;
  }
  // The common case, written by toISOString: canonical as it is, and a day that exists in every month (1 to
  // 28), so no parse is needed.
  if (typeof value === 'string' && CANONICAL_TIME.test(value) && Number(value.slice(8, 10)) <= 28) {
    lastTime = value;
    lastCanonical = value;
    canonicalMinute = value.slice(0, 17);
    return value;
  }
  const millis = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(millis)) {
    throw new StoreError(
      'invalid_input',
      `${what} must be an ISO 8601 time such as 2025-01-31T12:00:00.000Z, got ${describeValue(value)}`,
    );
  }
  const text = value as string;
  const canonical = CANONICAL_TIME.test(text) && new Date(millis).getUTCDate() === Number(text.slice(8, 10));
  lastCanonical = canonical ? text : new Date(millis).toISOString();
  if (canonical) canonicalMinute = text.slice(0, 17);
  lastTime = text;
  return lastCanonical;
}
