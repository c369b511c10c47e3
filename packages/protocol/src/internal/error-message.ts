import { describeValue } from '../describe-value';

/**
 * The message of anything thrown: an Error's message, a thrown string, or `fallback` with a description of the
 * value (`The tool failed (threw number 42)`). Never throws, not even for a value whose `message` getter or proxy
 * traps throw.
 */
export function errorMessage(error: unknown, fallback = 'Unknown error'): string {
  try {
    if (typeof error === 'string' && error !== '') return error;
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string' && message !== '') return message;
    if (error instanceof Error) return `${fallback} (threw ${error.name} with no message)`;
    return `${fallback} (threw ${describeValue(error)})`;
  } catch {
    return `${fallback} (threw a value that cannot be described)`;
  }
}
