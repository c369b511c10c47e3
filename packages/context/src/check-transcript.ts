import { assertTranscript, type Message } from '@bridle/protocol';

interface Checked {
  /** How many messages of the array were valid last time. */
  length: number;
  first: unknown;
  last: unknown;
}

// Keyed by the array: the loop appends to one array and selects before every model call.
const checkedArrays = new WeakMap<readonly unknown[], Checked>();

/**
 * `assertTranscript`, incrementally: for an array seen before that only grew (same array object, same first
 * message, same message at the old end), only the new messages are checked, as
 * `assertTranscript([first, ...newMessages])`. That is exact: a valid transcript always ends at a group
 * boundary (every batch complete), so what follows it is valid iff it is a valid continuation after a user
 * message. Any other array is checked whole. When that fails, the whole array is checked so the error names
 * the real index. Arrays edited in place other than by appending (a message replaced in the middle
 * while the length and the ends stay the same) are not detected: pass a new array after such an edit.
 */
export function checkTranscript(messages: readonly unknown[]): asserts messages is Message[] {
  const known = Array.isArray(messages) ? checkedArrays.get(messages) : undefined;
  const first = messages[0];
  if (
    known !== undefined &&
    messages.length >= known.length &&
    first === known.first &&
    messages[known.length - 1] === known.last
  ) {
    if (messages.length > known.length) {
      try {
        assertTranscript([first, ...messages.slice(known.length)]);
      } catch {
        // Throws the error with the real index (the partial check numbers from its own start).
        assertTranscript(messages);
      }
    }
  } else {
    assertTranscript(messages);
  }
  checkedArrays.set(messages, { length: messages.length, first, last: messages[messages.length - 1] });
}
