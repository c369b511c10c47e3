import { ConfigError, ContextLimitError, type Message } from '@bridle/protocol';
import { checkTranscript } from './check-transcript';
import { estimateTokens, type TokenCounter } from './estimate-tokens';
import { requireLimit } from './require-limit';
import { firstAndTail, groupRange, selectNewestGroups } from './select-newest-groups';
import { tokenSize } from './token-size';

/** Options of {@link selectContextByTokens}. */
export interface SelectByTokensOptions {
  /** The budget: the sum of the selected messages' tokens. A positive integer or Infinity. */
  maxTokens: number;
  /** Counts a message's tokens from its JSON. Default {@link estimateTokens}. */
  counter?: TokenCounter;
}

/**
 * {@link selectContext} with a token budget: the first user message plus as many of the newest groups
 * as fit in `maxTokens`, where a message costs `counter(JSON.stringify(message))` tokens (a per-message
 * estimate of what the provider will bill, role and tool calls included). Same grouping rules, same errors,
 * same caching (per counter function and message object: pass the same counter function every time).
 *
 * @throws ConfigError for a bad `maxTokens` or `counter`, or a counter returning a non-number.
 * @throws TranscriptError when `messages` is not a valid transcript.
 * @throws ContextLimitError when the first message plus the newest group do not fit.
 */
export function selectContextByTokens(messages: readonly Message[], options: SelectByTokensOptions): Message[] {
  const maxTokens = requireLimit('maxTokens', options?.maxTokens, true);
  const counter = options.counter ?? estimateTokens;
  if (typeof counter !== 'function') throw new ConfigError('counter must be a function (text: string) => number');
  checkTranscript(messages);
  const firstCost = tokenSize(messages[0] as Message, 0, counter);
  const cost = (message: Message, index: number) => tokenSize(message, index, counter);
  const { start, newest } = selectNewestGroups(messages, cost, firstCost, maxTokens);
  if (firstCost > maxTokens)
    throw new ContextLimitError(
      `The context does not fit: the first message alone is ${firstCost} tokens, over maxTokens ${maxTokens}. Raise the token budget to at least ${firstCost}, or shorten the first message.`,
    );
  if (messages.length > 1 && start === messages.length) {
    const needed = firstCost + newest.cost;
    throw new ContextLimitError(
      `The context does not fit: the first message (${firstCost} tokens) plus the newest group (${groupRange(newest.start, messages.length - 1)}, ${newest.cost} tokens) need ${needed} tokens, over maxTokens ${maxTokens}. Raise the token budget to at least ${needed}, or bound tool results lower.`,
    );
  }
  return firstAndTail(messages, start);
}
