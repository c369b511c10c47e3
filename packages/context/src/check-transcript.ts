import { assertTranscript, type Message } from '@bridle/protocol';

/**
 * Transcripts of at most this many messages are checked whole and measured without the caches below and in
 * `charSize`: a WeakMap entry (and the garbage collector's work on it) costs more than checking or
 * serializing a few messages, and a server starts most runs with a short transcript in a new array.
 */
export const FEW_MESSAGES = 8;

interface CheckedArray {
  /** How many messages of the array were valid last time. */
  length: number;
  first: unknown;
  last: unknown;
}

// 1. Keyed by the array: the loop appends to one array and selects before every model call.
const checkedArrays = new WeakMap<readonly unknown[], CheckedArray>();
// 2. Keyed by the first message: our own copy of the longest transcript validated that starts with it, for
//    callers that pass a new array each time (`[...history, next]`) holding the same message objects.
const validatedByFirst = new WeakMap<object, unknown[]>();

/** How many leading messages of a new array are known valid: the whole snapshot when it is a prefix. */
function knownPrefix(messages: readonly unknown[], snapshot: readonly unknown[] | undefined): number {
  if (snapshot === undefined || snapshot.length > messages.length) return 0;
  for (let index = snapshot.length - 1; index >= 1; index--) if (messages[index] !== snapshot[index]) return 0;
  return snapshot.length;
}

/**
 * `assertTranscript`, incrementally (a transcript of at most {@link FEW_MESSAGES} messages is checked whole).
 * A valid transcript always ends at a group boundary (every batch complete), so what follows a known-valid prefix is valid iff `[first, ...rest]` is: only the new messages
 * are checked. The known-valid prefix is found two ways:
 * - the same array as a previous call that only grew (same length or longer, same first message, same
 *   message at the old end): O(1); an edit in place that keeps the length and both ends is NOT detected,
 *   so pass a new array after replacing messages in the middle;
 * - a new array whose first message object was seen before: compared pointer by pointer with a snapshot
 *   of the last transcript validated from that first message (a few ns per message, no re-validation).
 * Otherwise the whole array is checked. When a partial check fails, the whole array is checked so the
 * error names the real index.
 */
export function checkTranscript(messages: readonly unknown[]): asserts messages is Message[] {
  if (!Array.isArray(messages) || messages.length <= FEW_MESSAGES) {
    assertTranscript(messages); // a short one whole; else throws the right error
    return;
  }
  const first = messages[0];
  const known = checkedArrays.get(messages);
  const sameArray =
    known !== undefined &&
    messages.length >= known.length &&
    first === known.first &&
    messages[known.length - 1] === known.last;
  const snapshot = typeof first === 'object' && first !== null ? validatedByFirst.get(first) : undefined;
  const from = sameArray ? known.length : knownPrefix(messages, snapshot);
  if (from === 0) assertTranscript(messages);
  else if (from < messages.length) {
    try {
      assertTranscript([first, ...messages.slice(from)]);
    } catch {
      assertTranscript(messages); // throws with the real index
    }
  }
  checkedArrays.set(messages, { length: messages.length, first, last: messages[messages.length - 1] });
  if (!sameArray && typeof first === 'object' && first !== null) {
    if (snapshot !== undefined && from === snapshot.length)
      for (let index = from; index < messages.length; index++) snapshot.push(messages[index]);
    else validatedByFirst.set(first, messages.slice());
  }
}
