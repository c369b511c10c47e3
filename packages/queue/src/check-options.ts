import { ConfigError, describeValue } from '@bridle/protocol';

/** An integer option at least `least` (default 1), or `fallback` when undefined; throws `ConfigError` naming it. */
export function positiveOption(name: string, value: unknown, fallback: number, least = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least)
    throw new ConfigError(`${name} must be an integer of at least ${least}, got ${describeValue(value)}.`);
  return value;
}
