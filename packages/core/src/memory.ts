import { compact, selectContext, selectContextByTokens, type TokenCounter } from '@bridle/context';
import { ConfigError, ContextLimitError, type Message, type Model } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { functionOption, objectOption } from './option-checks';

/** A custom memory: given the conversation (with the new user message last), returns what to keep. */
export type MemoryStrategy = (
  messages: readonly Message[],
  context: { model: Model; signal?: AbortSignal },
) => readonly Message[] | Promise<readonly Message[]>;

/**
 * Built-in memory of an `Agent`: before each run, the stored conversation is cut to a budget, keeping
 * the first user message and the newest message groups (a tool batch is never split). With `compact`,
 * the part that does not fit is summarized by one call to the agent's model instead of being dropped
 * (if that call fails, the part is dropped; the summary call's usage is not part of the run's usage).
 * Give one budget: `maxContextChars` or `maxTokens`.
 */
export interface MemoryOptions {
  /** Budget in characters (length of the JSON of the kept messages). */
  maxContextChars?: number;
  /** Budget in tokens, counted by `counter` (default: `estimateTokens` of @bridle/context). */
  maxTokens?: number;
  counter?: TokenCounter;
  /** Summarize the dropped part with one model call instead of dropping it. Default false. */
  compact?: boolean;
}

/** A validated memory option, ready to apply. */
export type Memory = (messages: Message[], model: Model, signal: AbortSignal | undefined) => Promise<Message[]>;

function windowed(options: MemoryOptions, messages: Message[]): Message[] {
  try {
    return options.maxTokens === undefined
      ? selectContext(messages, options.maxContextChars as number)
      : selectContextByTokens(messages, {
          maxTokens: options.maxTokens,
          ...(options.counter ? { counter: options.counter } : {}),
        });
  } catch (error) {
    // Even the newest part alone does not fit: keep everything and let the run's own context limit decide.
    if (ContextLimitError.isInstance(error)) return messages;
    throw error;
  }
}

/** Validates the `memory` option of `Agent`; throws `ConfigError`. */
export function resolveMemory(value: unknown): Memory | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'function') {
    const strategy = functionOption<MemoryStrategy>('memory', value) as MemoryStrategy;
    return async (messages, model, signal) => [...(await strategy(messages, signal ? { model, signal } : { model }))];
  }
  const options = objectOption<MemoryOptions>('memory', value, ['maxContextChars', 'maxTokens', 'counter', 'compact']);
  if (!options) return undefined;
  integerOption('memory.maxContextChars', options.maxContextChars, 1, { min: 1 });
  integerOption('memory.maxTokens', options.maxTokens, 1, { min: 1 });
  functionOption('memory.counter', options.counter);
  if ((options.maxContextChars === undefined) === (options.maxTokens === undefined))
    throw new ConfigError(
      'Invalid option memory: give exactly one budget, memory.maxContextChars or memory.maxTokens.',
    );
  return async (messages, model, signal) => {
    if (!options.compact) return windowed(options, messages);
    try {
      const kept = await compact({
        model,
        messages,
        ...(options.maxTokens === undefined
          ? { keepChars: options.maxContextChars }
          : { keepTokens: options.maxTokens }),
        ...(options.counter ? { counter: options.counter } : {}),
        ...(signal ? { signal } : {}),
      });
      return kept.messages;
    } catch {
      // The summary call failed (or was aborted): fall back to dropping, so the run can still go ahead.
      return windowed(options, messages);
    }
  };
}
