import { ContextLimitError, type Message } from '@bridle/protocol';
import { checkTranscript, FEW_MESSAGES } from './check-transcript';
import { charSize, serializedSize } from './message-size';
import { requireLimit } from './require-limit';
import { firstAndTail, groupRange, selectNewestGroups } from './select-newest-groups';

/**
 * The first user message plus as many of the newest groups as fit in `maxChars`, measured as
 * `JSON.stringify(selection).length` exactly (brackets and commas included), so the result always satisfies
 * `JSON.stringify(result).length <= maxChars`. A group is one message, or an assistant message with its
 * whole tool batch: never split. The selection is contiguous: it stops at the first group (from the newest)
 * that does not fit. Returns the original message objects, in order; `maxChars: Infinity` keeps everything.
 *
 * Cost: each message object is serialized once ever (its size is cached in a WeakMap keyed by the object;
 * a transcript of at most eight messages is measured afresh, which costs less than the cache entries),
 * the walk touches only the selected messages plus one group, and the transcript check is incremental for
 * an array that only grew since the last call (see the README). So calling it before every model call, on
 * the same growing array, costs time proportional to the new messages and the selection, not the history.
 *
 * @throws ConfigError when `maxChars` is not a positive integer or Infinity.
 * @throws TranscriptError when `messages` is not a valid transcript (see `assertTranscript`).
 * @throws ContextLimitError (code `context_limit`) when the first message plus the newest group do not fit.
 */
export function selectContext(messages: readonly Message[], maxChars: number): Message[] {
  requireLimit('maxChars', maxChars, true);
  checkTranscript(messages);
  const size = messages.length <= FEW_MESSAGES ? serializedSize : charSize;
  // `[` + first + `]`; each further message adds its size and one comma.
  const firstCost = 2 + size(messages[0] as Message, 0);
  const cost = (message: Message, index: number) => size(message, index) + 1;
  const { start, newest } = selectNewestGroups(messages, cost, firstCost, maxChars);
  const needsNewest = messages.length > 1 && start === messages.length;
  if (firstCost > maxChars || needsNewest) throw tooSmall(messages, firstCost, newest, maxChars);
  return firstAndTail(messages, start);
}

function tooSmall(
  messages: readonly Message[],
  firstCost: number,
  newest: { start: number; cost: number },
  maxChars: number,
): ContextLimitError {
  const firstSize = firstCost - 2;
  if (firstCost > maxChars)
    return new ContextLimitError(
      `The context does not fit: the first message alone is ${firstCost} characters as JSON, over maxChars ${maxChars}. Raise the context limit (maxContextChars) to at least ${firstCost}, or shorten the first message.`,
    );
  const needed = firstCost + newest.cost;
  const range = groupRange(newest.start, messages.length - 1);
  return new ContextLimitError(
    `The context does not fit: the first message (${firstSize} characters as JSON) plus the newest group (${range}, ${newest.cost - (messages.length - newest.start)} characters) need ${needed} characters with brackets and commas, over maxChars ${maxChars}. Raise the context limit (maxContextChars) to at least ${needed}, or bound tool results lower (maxToolResultChars).`,
  );
}
