import { ConfigError, describeValue, type Model } from '@bridle/protocol';
import { openai } from './openai';
import type { OpenAIOptions } from './resolve-openai-options';

/** Options of {@link openaiCompatible}. */
export interface OpenAICompatibleOptions
  extends Pick<OpenAIOptions, 'maxOutputTokens' | 'temperature' | 'providerOptions' | 'reasoning' | 'promptCacheKey'> {
  /** The server's OpenAI-style base URL, usually ending in `/v1` (e.g. `http://localhost:11434/v1` for Ollama). */
  baseURL: string;
  /** Model name as the server knows it, e.g. `llama3.2`. */
  model: string;
  /** The server's key, if it wants one. `OPENAI_API_KEY` is never sent to another server. */
  apiKey?: string;
}

/** Sent when the server needs no key: the SDK insists on one, and local servers ignore it. */
const NO_KEY = 'not-needed';

/**
 * A `Model` for an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, ...) over Chat Completions.
 * Its id is `openai-compatible:<baseURL>#<model>`. No API key is needed; `OPENAI_API_KEY` is not read.
 *
 * @example
 * const model = openaiCompatible({ baseURL: 'http://localhost:11434/v1', model: 'llama3.2' });
 */
export function openaiCompatible(options: OpenAICompatibleOptions): Model {
  if (typeof options?.baseURL !== 'string' || options.baseURL === '') {
    throw new ConfigError(
      `openaiCompatible: baseURL must be the server's URL, like "http://localhost:11434/v1"; got ${describeValue(options?.baseURL)}.`,
    );
  }
  return openai({ ...options, api: 'chat', apiKey: options.apiKey ?? NO_KEY });
}
