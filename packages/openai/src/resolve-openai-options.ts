import { ConfigError, describeValue } from '@bridle/protocol';
import type OpenAI from 'openai';

/** Options of {@link openai}. */
export interface OpenAIOptions {
  /** Model name as the server knows it, e.g. `gpt-4o-mini`. Required. */
  model: string;
  /** Default: `OPENAI_API_KEY`. Required (unless `client` is given): a missing key is a `ConfigError`. */
  apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else OpenAI's own `https://api.openai.com/v1`. */
  baseURL?: string;
  /**
   * Which API to call. Default: `responses`, whatever `baseURL` is (a proxy or gateway in front of OpenAI speaks it
   * too). For a server that speaks only Chat Completions (Ollama, vLLM, llama.cpp, LM Studio) use `openaiCompatible`,
   * or pass `chat`.
   */
  api?: 'responses' | 'chat';
  /** A ready `openai` client (its key, URL, timeout and fetch are used; its own retries are still turned off). */
  client?: OpenAI;
  /** Output token cap: `max_output_tokens` (Responses), `max_completion_tokens` (Chat on OpenAI) or `max_tokens` (Chat elsewhere). Default: the server's. */
  maxOutputTokens?: number;
  /** Sampling temperature, 0 to 2. Default: the server's. */
  temperature?: number;
  /** Extra body fields sent as they are (e.g. `{ service_tier: 'flex' }`); cannot replace model, input or tools. */
  providerOptions?: Record<string, unknown>;
  /**
   * Reasoning models: `effort` (`none`, `minimal`, `low`, `medium`, `high`, `xhigh`) and, for the Responses API,
   * `summary` (`auto`, `concise`, `detailed`). Sent as `reasoning` (Responses) or `reasoning_effort` (Chat). With the
   * Responses API, giving it also asks for `reasoning.encrypted_content` (done by default for o-series, gpt-5 and codex
   * models) so reasoning items go back to the model on the next request. Default: the server's.
   */
  reasoning?: { effort?: ReasoningEffort; summary?: 'auto' | 'concise' | 'detailed' };
  /** `prompt_cache_key`: requests that share it are routed to the same prompt cache (raise hit rates on long prefixes). */
  promptCacheKey?: string;
}

/** How hard a reasoning model thinks. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

const EFFORTS = new Set<string>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const SUMMARIES = new Set<string>(['auto', 'concise', 'detailed']);

/** The checked `reasoning` option. */
function checkReasoning(reasoning: unknown): { effort?: string; summary?: string } | undefined {
  if (reasoning === undefined) return undefined;
  if (typeof reasoning !== 'object' || reasoning === null) {
    throw new ConfigError(
      `openai: reasoning must be an object like { effort: 'low' }, got ${describeValue(reasoning)}.`,
    );
  }
  const { effort, summary } = reasoning as { effort?: unknown; summary?: unknown };
  if (effort !== undefined && !EFFORTS.has(effort as string)) {
    throw new ConfigError(
      `openai: reasoning.effort must be one of ${[...EFFORTS].join(', ')}, got ${describeValue(effort)}.`,
    );
  }
  if (summary !== undefined && !SUMMARIES.has(summary as string)) {
    throw new ConfigError(
      `openai: reasoning.summary must be one of ${[...SUMMARIES].join(', ')}, got ${describeValue(summary)}.`,
    );
  }
  return {
    ...(effort === undefined ? {} : { effort: effort as string }),
    ...(summary === undefined ? {} : { summary: summary as string }),
  };
}

/** Options after defaults and checks. */
export interface ResolvedOpenAIOptions {
  id: string;
  provider: 'openai' | 'openai-compatible';
  api: 'responses' | 'chat';
  model: string;
  apiKey?: string;
  baseURL?: string;
  maxOutputTokens?: number;
  temperature?: number;
  providerOptions?: Record<string, unknown>;
  reasoning?: { effort?: string; summary?: string };
  promptCacheKey?: string;
}

const OFFICIAL_HOST = 'api.openai.com';

function env(name: string): string | undefined {
  const value = globalThis.process?.env?.[name];
  return value === undefined || value === '' ? undefined : value;
}

function checkBaseURL(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `openai: baseURL ${describeValue(value)} is not a URL; use e.g. "http://localhost:11434/v1".`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`openai: baseURL ${describeValue(value)} must use http: or https:.`);
  }
  return value.replace(/\/+$/, '');
}

/**
 * Validates options and fills defaults from the environment. The API is the Responses API unless `api: 'chat'` is
 * asked for: a base URL never switches it. The model id is `openai:<model>`, except for Chat Completions (asked for)
 * against a server other than OpenAI's: `openai-compatible:<baseURL>#<model>` (baseURL without a trailing slash).
 * Throws `ConfigError` for a bad option or a missing key.
 */
export function resolveOpenAIOptions(options: OpenAIOptions): ResolvedOpenAIOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError(
      `openai: options must be an object like { model: 'gpt-4o-mini' }, got ${describeValue(options)}.`,
    );
  }
  const { model, api, maxOutputTokens, temperature, providerOptions } = options;
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ConfigError(`openai: model must be a non-empty string like 'gpt-4o-mini', got ${describeValue(model)}.`);
  }
  if (api !== undefined && api !== 'responses' && api !== 'chat') {
    throw new ConfigError(`openai: api must be 'responses' or 'chat', got ${describeValue(api)}.`);
  }
  if (maxOutputTokens !== undefined && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    throw new ConfigError(`openai: maxOutputTokens must be a positive integer, got ${describeValue(maxOutputTokens)}.`);
  }
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature >= 0 && temperature <= 2)) {
    throw new ConfigError(`openai: temperature must be a number from 0 to 2, got ${describeValue(temperature)}.`);
  }
  if (providerOptions !== undefined && (typeof providerOptions !== 'object' || providerOptions === null)) {
    throw new ConfigError(
      `openai: providerOptions must be an object of body fields, got ${describeValue(providerOptions)}.`,
    );
  }
  const reasoning = checkReasoning(options.reasoning);
  const { promptCacheKey } = options;
  if (promptCacheKey !== undefined && (typeof promptCacheKey !== 'string' || promptCacheKey.trim() === '')) {
    throw new ConfigError(`openai: promptCacheKey must be a non-empty string, got ${describeValue(promptCacheKey)}.`);
  }
  const rawBaseURL = options.client ? options.client.baseURL : (options.baseURL ?? env('OPENAI_BASE_URL'));
  const baseURL = rawBaseURL === undefined ? undefined : checkBaseURL(rawBaseURL);
  const official = baseURL === undefined || new URL(baseURL).hostname === OFFICIAL_HOST;
  const apiKey = options.apiKey ?? env('OPENAI_API_KEY');
  if (!options.client && (apiKey === undefined || apiKey === '')) {
    throw new ConfigError(
      'openai: no API key. Set the OPENAI_API_KEY environment variable or pass { apiKey }. ' +
        'For a local server that needs no key, use openaiCompatible({ baseURL, model }).',
    );
  }
  // Never chosen from the base URL: OPENAI_BASE_URL pointing at a proxy must not silently change the wire API.
  const resolvedApi = api ?? 'responses';
  const compatible = resolvedApi === 'chat' && !official;
  return {
    id: compatible ? `openai-compatible:${baseURL}#${model}` : `openai:${model}`,
    provider: compatible ? 'openai-compatible' : 'openai',
    api: resolvedApi,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(temperature === undefined ? {} : { temperature }),
    ...(providerOptions === undefined ? {} : { providerOptions }),
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(promptCacheKey === undefined ? {} : { promptCacheKey }),
  };
}
