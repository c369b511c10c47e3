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
}

/** Default `max_tokens`: every current Claude model can produce at least this much. */
export const DEFAULT_MAX_TOKENS = 4096;

function env(name: string): string | undefined {
  const value = globalThis.process?.env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Validates options and fills defaults from the environment. Throws `ConfigError` for a bad option or a missing key. */
export function resolveAnthropicOptions(options: AnthropicOptions): {
  model: string;
  maxTokens: number;
  apiKey?: string;
  baseURL?: string;
} {
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
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
  };
}
