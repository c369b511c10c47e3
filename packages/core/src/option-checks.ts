import { ConfigError, describeValue } from '@bridle/protocol';

/** Throws a `ConfigError` naming the option, the accepted range and the value given. */
export function invalidOption(name: string, expected: string, value: unknown): never {
  throw new ConfigError(`Invalid option ${name}: expected ${expected}, got ${describeValue(value)}.`);
}

/** A finite number option in `[min, max]`, or `fallback` when undefined. */
export function numberOption(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    invalidOption(name, `a number from ${min} to ${max}`, value);
  return value;
}

/** A function option, or undefined. */
export function functionOption<F>(name: string, value: unknown): F | undefined {
  if (value !== undefined && typeof value !== 'function') invalidOption(name, 'a function', value);
  return value as F | undefined;
}

/** A plain object option (or undefined) whose keys are all in `known`. */
export function objectOption<T extends object>(name: string, value: unknown, known: readonly string[]): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalidOption(name, 'an object', value);
  checkKeys(name, value, known);
  return value as T;
}

/**
 * Rejects unknown keys, which are nearly always typos (`maxstep`) that would silently fall back to a default.
 * `known` may be given as a Set too (a long list checked often: each key is then one lookup, not a scan).
 */
export function checkKeys(name: string, value: object, known: readonly string[] | ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (Array.isArray(known) ? !known.includes(key) : !(known as ReadonlySet<string>).has(key))
      throw new ConfigError(`Unknown option ${name ? `${name}.` : ''}${key}. Accepted: ${[...known].join(', ')}.`);
  }
}
