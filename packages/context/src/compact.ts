import {
  ConfigError,
  type Message,
  type Model,
  ModelResponseError,
  type Usage,
  validateModelResponse,
} from '@bridle/protocol';
import { checkTranscript } from './check-transcript';
import { estimateTokens, type TokenCounter } from './estimate-tokens';
import { charSize } from './message-size';
import { renderForSummary } from './render-for-summary';
import { requireLimit } from './require-limit';
import { selectNewestGroups } from './select-newest-groups';
import { tokenSize } from './token-size';

/** The first line of the summary message {@link compact} writes. */
export const SUMMARY_PREFIX = '[Summary of earlier conversation]';

/** The default system prompt of the summary call. */
export const DEFAULT_SUMMARY_INSTRUCTIONS =
  'You summarize the earlier part of a conversation between a user and an AI assistant that uses tools, so that ' +
  'the assistant can continue the task without it. Keep the user goals and constraints, decisions made, facts ' +
  'learned from tool results (names, paths, values, errors), work done and what remains to do. Be concise and ' +
  'factual, invent nothing, and answer with the summary only.';

/** Default `keepTokens` when neither `keepChars` nor `keepTokens` is given. */
export const DEFAULT_KEEP_TOKENS = 20_000;

/** Options of {@link compact}. */
export interface CompactOptions {
  /** The model that writes the summary (one call, no tools). */
  model: Model;
  /** A valid transcript. */
  messages: readonly Message[];
  /** Keep the newest groups whose JSON sizes sum to at most this many characters. */
  keepChars?: number;
  /** Keep the newest groups whose token counts sum to at most this many. Default 20,000 (when no `keepChars`). */
  keepTokens?: number;
  /** Counts tokens for `keepTokens`. Default {@link estimateTokens}. */
  counter?: TokenCounter;
  /** Cancels the summary call. */
  signal?: AbortSignal;
  /** The system prompt of the summary call. Default {@link DEFAULT_SUMMARY_INSTRUCTIONS}. */
  instructions?: string;
  /** Each message's content is cut to this many characters (head and tail kept) for the summarizer. Default 4,000. */
  maxMessageChars?: number;
}

/** What {@link compact} returns. */
export interface CompactResult {
  /** `[first, summary, ...kept]`, or a copy of the input when nothing had to be summarized. */
  messages: Message[];
  /** How many messages the summary replaced (0 when nothing was summarized and no model call was made). */
  summarized: number;
  /** The summary call's usage, when the model reported it. */
  usage?: Usage;
}

/**
 * Compacts a transcript: keeps the first user message and the newest groups that fit the keep budget
 * (`keepChars` or `keepTokens`; the newest group is kept even when it alone is larger, and a tool batch is
 * never split), and replaces everything between them with ONE user message written by ONE model call:
 * `"[Summary of earlier conversation]\n<summary>"`, placed right after the first message. The result is a
 * valid transcript `[first, summary, ...kept]` made of the original message objects plus the summary.
 * Compacting again later folds the old summary into the new one.
 *
 * The model receives `{ system: instructions, messages: [one user message], tools: [] }`: the dropped
 * messages rendered as text (see the README for the exact format).
 *
 * @throws ConfigError for bad options (both `keepChars` and `keepTokens`, a non-positive budget, ...).
 * @throws TranscriptError for an invalid transcript.
 * @throws whatever the model throws (e.g. `ProviderError`), the abort reason when `signal` is aborted, and
 *   `ModelResponseError` for an invalid or empty response. Nothing is changed in that case.
 */
export async function compact(options: CompactOptions): Promise<CompactResult> {
  const { model, messages } = options;
  if (typeof model?.generate !== 'function') throw new ConfigError('compact needs a model with a generate() method');
  if (options.keepChars !== undefined && options.keepTokens !== undefined)
    throw new ConfigError('compact takes keepChars or keepTokens, not both');
  const maxMessageChars = requireLimit('maxMessageChars', options.maxMessageChars ?? 4000);
  checkTranscript(messages);

  let cost: (message: Message, index: number) => number;
  let budget: number;
  if (options.keepChars !== undefined) {
    budget = requireLimit('keepChars', options.keepChars, true);
    cost = charSize;
  } else {
    budget = requireLimit('keepTokens', options.keepTokens ?? DEFAULT_KEEP_TOKENS, true);
    const counter = options.counter ?? estimateTokens;
    if (typeof counter !== 'function') throw new ConfigError('counter must be a function (text: string) => number');
    cost = (message, index) => tokenSize(message, index, counter);
  }
  const { start } = selectNewestGroups(messages, cost, 0, budget, true);
  if (start <= 1) return { messages: [...messages], summarized: 0 };

  const first = messages[0] as Message;
  const dropped = messages.slice(1, start);
  options.signal?.throwIfAborted();
  const request = {
    system: options.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS,
    messages: [{ role: 'user' as const, content: summaryPrompt(first, dropped, maxMessageChars) }],
    tools: [],
    signal: options.signal ?? new AbortController().signal,
  };
  const response: unknown = await model.generate(request);
  validateModelResponse(response);
  const summary = response.content.trim();
  if (summary === '')
    throw new ModelResponseError(
      `The model ${model.id} returned an empty summary; nothing was compacted. Try again or use another model.`,
    );
  const result: CompactResult = {
    messages: [first, { role: 'user', content: `${SUMMARY_PREFIX}\n${summary}` }, ...messages.slice(start)],
    summarized: dropped.length,
  };
  if (response.usage) result.usage = response.usage;
  return result;
}

function summaryPrompt(first: Message, dropped: readonly Message[], maxMessageChars: number): string {
  return [
    'Summarize the conversation below. Its first user message is kept verbatim, so it is shown only for context.',
    '',
    '<first_message>',
    renderForSummary([first], maxMessageChars),
    '</first_message>',
    '',
    '<conversation>',
    renderForSummary(dropped, maxMessageChars),
    '</conversation>',
  ].join('\n');
}
