import { anthropic } from '@bridle/anthropic';
import { openai, openaiCompatible } from '@bridle/openai';
import { ConfigError, type Model } from '@bridle/protocol';
import { defaultModelId, type Environment } from './default-model-id';
import type { ModelPrice } from './model-prices';
import { type ModelSpec, parseModelId } from './parse-model-id';
import { priceTable, withCost } from './with-cost';

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  /** Where keys and base URLs are read from; default `process.env`. */
  env?: Environment;
  /** Anthropic's `max_tokens` per response (the adapter's default when omitted). */
  maxTokens?: number;
  /**
   * Prices by model id (per million tokens) that add to or override `modelPrices`. Responses carry `usage.costUsd`
   * when the model's price is known. A negative or non-finite price is a `ConfigError`.
   */
  prices?: Readonly<Record<string, ModelPrice>>;
}

function read(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The server of a short `openai-compatible:<model>` id: `OPENAI_COMPATIBLE_BASE_URL`, checked. */
function compatibleBaseURL(env: Environment, model: string): string {
  const value = read(env, 'OPENAI_COMPATIBLE_BASE_URL');
  const id = `openai-compatible:${model}`;
  if (value === undefined)
    throw new ConfigError(
      `Model ${id} needs OPENAI_COMPATIBLE_BASE_URL, the server's base URL (e.g. http://localhost:11434/v1): set it in your shell or an --env-file, or write the id as openai-compatible:<baseURL>#${model}.`,
    );
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ConfigError(
      `OPENAI_COMPATIBLE_BASE_URL "${value}" (for model ${id}) is not an http or https URL: set it to the server's base URL, e.g. http://localhost:11434/v1.`,
    );
  return value;
}

function requireKey(env: Environment, name: string, id: string): string {
  const key = read(env, name);
  if (key === undefined) {
    throw new ConfigError(
      `Model ${id} needs ${name}: set it in the environment or in .env in the working directory, or choose another model with --model / BRIDLE_MODEL.`,
    );
  }
  return key;
}

/**
 * Builds the `Model` named by `id` (default: {@link defaultModelId}) with the provider adapters.
 * `openai:` reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` and always speaks the Responses API (its id stays
 * `openai:<model>` whatever the base URL); `anthropic:` reads `ANTHROPIC_API_KEY` and
 * `ANTHROPIC_BASE_URL`; `openai-compatible:<baseURL>#<model>` (or `openai-compatible:<model>` with the URL in
 * `OPENAI_COMPATIBLE_BASE_URL`, a form that survives an unquoted `.env` line) uses Chat Completions at that URL with
 * `OPENAI_COMPATIBLE_API_KEY` when set (never your `OPENAI_API_KEY`: it is not sent to other servers).
 * Responses carry `usage.costUsd` when the model's price is known (`modelPrices`, or `options.prices`).
 * Throws `ConfigError` for a bad id, a missing key (naming the variable to set) or a bad price. Makes no request.
 */
export function resolveModel(id?: string, options: ResolveModelOptions = {}): Model {
  const prices = priceTable(options.prices);
  const env = options.env ?? process.env;
  const spec = parseModelId(id ?? defaultModelId(env));
  const label = `${spec.provider}:${spec.provider === 'openai-compatible' && spec.baseURL !== undefined ? `${spec.baseURL}#` : ''}${spec.model}`;
  // Priced by the id asked for: `openai:gpt-4o-mini` through OPENAI_BASE_URL (a proxy) still costs what gpt-4o-mini costs.
  return withCost(adapterFor(spec, label, env, options), { prices, priceId: label });
}

function adapterFor(spec: ModelSpec, label: string, env: Environment, options: ResolveModelOptions): Model {
  switch (spec.provider) {
    case 'openai': {
      const baseURL = read(env, 'OPENAI_BASE_URL');
      // Always the Responses API, labelled openai: OPENAI_BASE_URL is a proxy or gateway in front of OpenAI.
      // A server that speaks only Chat Completions is `openai-compatible:` (with OPENAI_COMPATIBLE_BASE_URL).
      return openai({
        model: spec.model,
        api: 'responses',
        apiKey: requireKey(env, 'OPENAI_API_KEY', label),
        ...(baseURL ? { baseURL } : {}),
      });
    }
    case 'anthropic': {
      const baseURL = read(env, 'ANTHROPIC_BASE_URL');
      return anthropic({
        model: spec.model,
        apiKey: requireKey(env, 'ANTHROPIC_API_KEY', label),
        ...(baseURL ? { baseURL } : {}),
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      });
    }
    case 'openai-compatible': {
      const apiKey = read(env, 'OPENAI_COMPATIBLE_API_KEY');
      const baseURL = spec.baseURL ?? compatibleBaseURL(env, spec.model);
      return openaiCompatible({ model: spec.model, baseURL, ...(apiKey ? { apiKey } : {}) });
    }
  }
}
