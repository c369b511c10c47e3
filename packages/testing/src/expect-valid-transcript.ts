import { assertTranscript, type Message } from '@bridle/protocol';

/**
 * Throws (failing the test) unless `messages` is a valid transcript per `assertTranscript`; the error
 * message carries the transcript's roles for a quick read of what went wrong.
 */
export function expectValidTranscript(messages: readonly unknown[]): asserts messages is Message[] {
  try {
    assertTranscript(messages);
  } catch (error) {
    const roles = Array.isArray(messages)
      ? messages.map((m) => (m as { role?: string } | null)?.role ?? '?').join(' ')
      : typeof messages;
    throw new Error(`${(error as Error).message}\nroles: ${roles}`, { cause: error });
  }
}
