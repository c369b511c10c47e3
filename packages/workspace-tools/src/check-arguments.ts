import { describeValue } from '@bridle/protocol';
import { WorkspaceError } from './workspace-error';

/**
 * Checks a tool's arguments object defensively: the tools may be called without a registry in
 * front of them, so they never trust that the JSON Schema was applied. Returns the object.
 */
export function expectArguments(tool: string, value: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidArguments(tool, `arguments must be an object, got ${describeValue(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalidArguments(tool, `unknown property ${JSON.stringify(key)}; allowed: ${allowed.join(', ')}`);
    }
  }
  return value as Record<string, unknown>;
}

/** A string argument; `required` ones must be present. `maxLength` in characters. */
export function stringArgument(
  tool: string,
  args: Record<string, unknown>,
  key: string,
  options: { required: true; maxLength?: number; allowEmpty?: boolean },
): string;
export function stringArgument(
  tool: string,
  args: Record<string, unknown>,
  key: string,
  options: { required: false; maxLength?: number; allowEmpty?: boolean },
): string | undefined;
export function stringArgument(
  tool: string,
  args: Record<string, unknown>,
  key: string,
  options: { required: boolean; maxLength?: number; allowEmpty?: boolean },
): string | undefined {
  const value = Object.hasOwn(args, key) ? args[key] : undefined;
  if (value === undefined) {
    if (options.required) throw invalidArguments(tool, `"${key}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidArguments(tool, `"${key}" must be a string, got ${describeValue(value)}`);
  if (value === '' && options.allowEmpty !== true) throw invalidArguments(tool, `"${key}" must not be empty`);
  if (options.maxLength !== undefined && value.length > options.maxLength) {
    throw invalidArguments(tool, `"${key}" is ${value.length} characters long; the limit is ${options.maxLength}`);
  }
  return value;
}

/** An optional positive integer argument (1 or more). */
export function positiveIntegerArgument(tool: string, args: Record<string, unknown>, key: string): number | undefined {
  const value = Object.hasOwn(args, key) ? args[key] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidArguments(tool, `"${key}" must be an integer of 1 or more, got ${describeValue(value)}`);
  }
  return value;
}

/** The error for arguments that do not fit the tool's schema. */
export function invalidArguments(tool: string, problem: string): WorkspaceError {
  return new WorkspaceError('invalid_arguments', `Invalid arguments for ${tool}: ${problem}.`);
}
