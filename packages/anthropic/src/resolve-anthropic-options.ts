import type Anthropic from '@anthropic-ai/sdk';
import { ConfigError, describeValue } from '@bridle/protocol';

/** Options of {@link anthropic}. */
export interface AnthropicOptions {
  /** Model name, e.g. `claude-sonnet-4-6`. Required. */
  model: string;
  /** Default: `ANTHROPIC_API_KEY`. Required (unless `client` is given): a missing key is a `ConfigError`. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  baseURL?: string;
  /** Output token cap (`max_tokens`, which the API requires). Default 4096. */
  maxTokens?: number;
  /** A ready `@anthropic-ai/sdk` client (its key, URL, timeout and fetch are used; its retries are still turned off). */
  client?: Anthropic;
  /**
   * Extended thinking: `{ budgetTokens }` sends `thinking: { type: 'enabled', budget_tokens }`. The budget is an integer
   * of at least 1024 and below `maxTokens` (thinking counts against the output limit); otherwise a `ConfigError`.
   * Thinking blocks come back in `providerData` and are returned unchanged in the next requests of the tool loop.
   * Default: off.
   */
  thinking?: { budgetTokens: number };
  /**
   * Automatic prompt-cache breakpoints (`cache_control`) on the tools and system prompt and on the newest turns.
   * Default `true`; `false` sends none.
   */
  promptCache?: boolean;
}

/** Options after defaults and checks. */
export interface ResolvedAnthropicOptions {
  model: string;
  maxTokens: number;
  thinkingBudget?: number;
  promptCache: boolean;
  apiKey?: string;
  baseURL?: string;
}

/** The smallest thinking budget the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** Default `max_tokens`: every current Claude model can produce at least this much. */
export const DEFAULT_MAX_TOKENS = 4096;

function env(name: string): string | undefined {
  const value = globalThis.process?.env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** The thinking budget, checked against `maxTokens`; undefined when thinking is off. */
function checkThinking(thinking: AnthropicOptions['thinking'], maxTokens: number): number | undefined {
  if (thinking === undefined) return undefined;
  if (typeof thinking !== 'object' || thinking === null) {
    throw new ConfigError(
      `anthropic: thinking must be an object like { budgetTokens: 2048 }, got ${describeValue(thinking)}.`,
    );
  }
  const budget = thinking.budgetTokens;
  if (!(Number.isSafeInteger(budget) && budget >= MIN_THINKING_BUDGET)) {
    throw new ConfigError(
      `anthropic: thinking.budgetTokens must be an integer of at least ${MIN_THINKING_BUDGET}, got ${describeValue(budget)}.`,
    );
  }
  if (budget >= maxTokens) {
    throw new ConfigError(
      `anthropic: thinking.budgetTokens (${budget}) must be below maxTokens (${maxTokens}): thinking counts against the output limit. Raise maxTokens or lower the budget.`,
    );
  }
  return budget;
}

/** Validates options and fills defaults from the environment. Throws `ConfigError` for a bad option or a missing key. */
export function resolveAnthropicOptions(options: AnthropicOptions): ResolvedAnthropicOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(
      `anthropic: options must be an object like { model: 'claude-sonnet-4-6' }, got ${describeValue(options)}.`,
    );
  }
  const { model, maxTokens = DEFAULT_MAX_TOKENS } = options;
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ConfigError(
      `anthropic: model must be a non-empty string like 'claude-sonnet-4-6', got ${describeValue(model)}.`,
    );
  }
  if (!(Number.isSafeInteger(maxTokens) && maxTokens > 0)) {
    throw new ConfigError(`anthropic: maxTokens must be a positive integer, got ${describeValue(maxTokens)}.`);
  }
  const thinkingBudget = checkThinking(options.thinking, maxTokens);
  const { promptCache = true } = options;
  if (typeof promptCache !== 'boolean') {
    throw new ConfigError(`anthropic: promptCache must be true or false, got ${describeValue(promptCache)}.`);
  }
  const baseURL = options.baseURL ?? env('ANTHROPIC_BASE_URL');
  if (baseURL !== undefined && !/^https?:\/\/[^/]/i.test(baseURL)) {
    throw new ConfigError(
      `anthropic: baseURL ${describeValue(baseURL)} must be an http(s) URL like "https://api.anthropic.com".`,
    );
  }
  const apiKey = options.apiKey ?? env('ANTHROPIC_API_KEY');
  if (!options.client && (apiKey === undefined || apiKey === '')) {
    throw new ConfigError('anthropic: no API key. Set the ANTHROPIC_API_KEY environment variable or pass { apiKey }.');
  }
  return {
    model,
    maxTokens,
    promptCache,
    ...(thinkingBudget === undefined ? {} : { thinkingBudget }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
  };
}
