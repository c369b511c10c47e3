import { ConfigError, describeValue } from '@bridle/protocol';
import { requireLimit } from './require-limit';

/** The marker {@link boundToolResult} puts where it cut: `\n[... 1234 characters omitted ...]\n`. */
export function omissionMarker(omitted: number): string {
  return `\n[... ${omitted} characters omitted ...]\n`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The first `length` code units of `text`, one fewer when that would split a surrogate pair. */
function headOf(text: string, length: number): string {
  if (length > 0 && length < text.length && isHighSurrogate(text.charCodeAt(length - 1))) length--;
  return text.slice(0, length);
}

/** The last `length` code units of `text`, one fewer when that would split a surrogate pair. */
function tailOf(text: string, length: number): string {
  if (length <= 0) return '';
  let start = text.length - length;
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  return text.slice(start);
}

/**
 * Bounds a tool result to at most `limit` characters (UTF-16 code units, like `string.length`).
 *
 * A result that fits is returned unchanged. Otherwise the head and the tail are kept (the head gets the
 * odd character) with {@link omissionMarker} between them saying exactly how many characters were
 * omitted; the whole, marker included, never exceeds `limit`. When the limit leaves no room for the
 * marker plus one character of head and one of tail, the result is just the first `limit` characters. A surrogate pair (an emoji, say) is never split, so the
 * result may be one character shorter than `limit`.
 *
 * @throws ConfigError when `limit` is not a positive integer or `content` is not a string.
 */
export function boundToolResult(content: string, limit: number): string {
  requireLimit('limit', limit);
  if (typeof content !== 'string') throw new ConfigError(`content must be a string, got ${describeValue(content)}`);
  if (content.length <= limit) return content;
  // The marker's length depends on the count it states, and that count on the marker's length: start
  // from the smallest possible count and retry while the true count needs more digits than the guess.
  // Each retry adds a digit, so this ends within a few rounds.
  let guess = content.length - limit;
  for (;;) {
    const budget = limit - omissionMarker(guess).length;
    if (budget < 2) return headOf(content, limit);
    const headLength = Math.ceil(budget / 2);
    const head = headOf(content, headLength);
    const tail = tailOf(content, budget - headLength);
    const marker = omissionMarker(content.length - head.length - tail.length);
    // head + tail <= budget, so the total fits whenever the true marker is no longer than the guessed one.
    if (marker.length <= limit - budget) return head + marker + tail;
    guess = content.length - head.length - tail.length;
  }
}
