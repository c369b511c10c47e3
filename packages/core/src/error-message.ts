import { describeValue } from '@bridle/protocol';

/** The message of anything thrown: an Error's message, a thrown string, or a description of the value. */
export function errorMessage(error: unknown, fallback: string): string {
  if (typeof error === 'string' && error !== '') return error;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message !== '') return message;
  if (error instanceof Error) return `${fallback} (threw ${error.name} with no message)`;
  return `${fallback} (threw ${describeValue(error)})`;
}
