import { describeValue } from '../describe-value';
import { ConfigError } from '../errors';

/** The accepted range of an integer option, and where the option belongs (for the message). */
export interface IntegerRange {
  /** Least accepted value. */
  min: number;
  /** Greatest accepted value; default `Number.MAX_SAFE_INTEGER`. */
  max?: number;
  /** The function or object the option belongs to, e.g. `runBatch`; named in the message. */
  where?: string;
}

/**
 * An integer option: `fallback` when `value` is undefined, else `value` when it is a safe integer in
 * `[min, max]`. Otherwise throws a `ConfigError` naming the option, the range and the value given, e.g.
 * `Invalid runBatch option concurrency: expected an integer >= 1 (a safe integer), got number 0.`
 */
export function integerOption<F extends number | undefined>(
  name: string,
  value: unknown,
  fallback: F,
  range: IntegerRange,
): number | F {
  if (value === undefined) return fallback;
  const { min, max = Number.MAX_SAFE_INTEGER, where } = range;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const expected = max === Number.MAX_SAFE_INTEGER ? `>= ${min} (a safe integer)` : `from ${min} to ${max}`;
    throw new ConfigError(
      `Invalid ${where ? `${where} ` : ''}option ${name}: expected an integer ${expected}, got ${describeValue(value)}.`,
    );
  }
  return value;
}
