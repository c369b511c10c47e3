import { ProviderError, type ProviderErrorCode } from '../errors';

/** What to do about each failure, whatever the provider. */
const ADVICE: Record<ProviderErrorCode, string> = {
  rate_limited: 'Wait and retry, or lower the request rate.',
  auth: 'Check the API key (or the apiKey option) and that the key may use this model.',
  bad_request: 'Check the model name, messages and tool schemas.',
  context_length: 'Shorten the conversation (context.maxContextChars) or use a model with a larger context.',
  server: 'The provider failed; retry later.',
  network: 'Check the network and the base URL.',
  timeout: 'The provider did not answer in time; retry, or raise the client timeout.',
};

/** Where a provider's advice says more than {@link ADVICE}, by `ProviderError.provider`. */
const PROVIDER_ADVICE: Record<string, Partial<Record<ProviderErrorCode, string>>> = {
  anthropic: {
    auth: 'Check ANTHROPIC_API_KEY (or the apiKey option), and the account and its billing.',
    context_length: 'Shorten the conversation (context.maxContextChars) or lower maxTokens.',
    server: 'Anthropic failed or is overloaded; retry later.',
    timeout: 'Anthropic did not answer in time; retry, or raise the client timeout.',
  },
  openai: { auth: 'Check OPENAI_API_KEY (or the apiKey option) and that the key may use this model.' },
  'openai-compatible': {
    auth: 'Check OPENAI_API_KEY (or the apiKey option) and that the key may use this model.',
  },
};

/** The advice in a provider error's message for `code`: the provider's own when it has one. */
export function providerAdvice(provider: string, code: ProviderErrorCode): string {
  return (Object.hasOwn(PROVIDER_ADVICE, provider) ? PROVIDER_ADVICE[provider]?.[code] : undefined) ?? ADVICE[code];
}

/** The fields of a provider error besides its code and detail. */
export interface ProviderErrorExtra {
  status?: number;
  retryAfterMs?: number;
  cause?: unknown;
  /** Replaces the advice of the table when the adapter knows better. */
  advice?: string;
}

/**
 * A `ProviderError` with the standard message: what failed, the provider's words, and what to do, e.g.
 * `anthropic request failed (HTTP 529): overloaded_error: Overloaded. Anthropic failed or is overloaded; retry later.`
 */
export function providerError(
  provider: string,
  code: ProviderErrorCode,
  detail: string,
  extra: ProviderErrorExtra = {},
): ProviderError {
  const { advice = providerAdvice(provider, code), ...fields } = extra;
  const status = fields.status === undefined ? '' : ` (HTTP ${fields.status})`;
  return new ProviderError({
    code,
    provider,
    // One period between the detail and the advice, whatever the detail ends with ("Connection error.").
    message: `${provider} request failed${status}: ${detail.replace(/[.\s]+$/, '')}. ${advice}`,
    ...fields,
  });
}

/**
 * The Bridle code for an HTTP status of a failed request (a context-length failure, which providers report
 * as a 400 or 413, is told apart by the adapter from the provider's words).
 */
export function codeForStatus(status: number): ProviderErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 409) return 'server';
  return 'bad_request';
}
