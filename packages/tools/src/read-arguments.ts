import { describeValue } from '@bridle/protocol';

/**
 * Checks that tool arguments are a plain object with only the `allowed` keys, and returns it.
 * Tools validate again even behind a registry: a tool object may be called directly, and every
 * argument is treated as hostile. Throws an `Error` that names the tool and the problem.
 */
export function readArguments(args: unknown, toolName: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new Error(`${toolName}: arguments must be an object, got ${describeValue(args)}`);
  }
  for (const key of Object.keys(args)) {
    if (!allowed.includes(key)) {
      throw new Error(`${toolName}: unknown argument ${JSON.stringify(key)}; allowed: ${allowed.join(', ')}`);
    }
  }
  return args as Record<string, unknown>;
}

/** Returns `record[key]` when it is an own string property (or absent when `optional`); throws otherwise. */
export function readString(
  record: Record<string, unknown>,
  key: string,
  toolName: string,
  optional: true,
): string | undefined;
export function readString(record: Record<string, unknown>, key: string, toolName: string, optional?: false): string;
export function readString(
  record: Record<string, unknown>,
  key: string,
  toolName: string,
  optional = false,
): string | undefined {
  const value = Object.hasOwn(record, key) ? record[key] : undefined;
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') {
    throw new Error(`${toolName}: "${key}" must be a string, got ${describeValue(value)}`);
  }
  return value;
}
