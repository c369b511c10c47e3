import { ConfigError, describeValue } from '@bridle/protocol';

/**
 * Throws `ConfigError` unless `value` is a positive safe integer (or `Infinity` when `allowInfinity`),
 * naming the option and the accepted range.
 */
export function requireLimit(name: string, value: unknown, allowInfinity = false): number {
  if (
    typeof value === 'number' &&
    ((Number.isSafeInteger(value) && value > 0) || (allowInfinity && value === Infinity))
  )
    return value;
  const range = allowInfinity ? 'a positive integer or Infinity' : 'a positive integer';
  throw new ConfigError(`${name} must be ${range}, got ${describeValue(value)}`);
}
