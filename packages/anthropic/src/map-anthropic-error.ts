import type { APIError } from '@anthropic-ai/sdk';
import { type ProviderErrorCode, parseRetryAfter } from '@bridle/protocol';
import { codeForStatus, mapClientError, providerError } from '@bridle/protocol/internal';

/** The SDK's error classes (its module, loaded with the first request). */
export type AnthropicErrorClasses = Pick<
  typeof import('@anthropic-ai/sdk'),
  'APIUserAbortError' | 'APIConnectionTimeoutError' | 'APIConnectionError' | 'APIError'
>;

const PROVIDER = 'anthropic';
const CONTEXT_LENGTH = /prompt is too long|context window|context length|too many tokens/i;
/** Bridle codes for Anthropic error types (used when there is no HTTP status, as in a stream `error` event). */
const CODE_BY_TYPE: Record<string, ProviderErrorCode> = {
  invalid_request_error: 'bad_request',
  not_found_error: 'bad_request',
  request_too_large: 'bad_request',
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'auth',
  rate_limit_error: 'rate_limited',
  timeout_error: 'timeout',
  api_error: 'server',
  overloaded_error: 'server',
};

function codeFor(status: number | undefined, type: string | null, message: string): ProviderErrorCode {
  if (CONTEXT_LENGTH.test(message) && (status === undefined || status === 400 || status === 413))
    return 'context_length';
  if (status === undefined) return (type && CODE_BY_TYPE[type]) || 'server';
  return codeForStatus(status);
}

/**
 * Turns whatever the SDK threw into what the adapter rejects with: the abort reason when `signal` is aborted
 * (never a ProviderError), a `ProviderError` for API, connection and stream failures (a mid-stream `error` event has
 * no HTTP status, so it is mapped by its error type: `overloaded_error` is a retryable `server` error), anything
 * else unchanged. Connection failures name `url`, the endpoint that was tried (without credentials). `sdk` gives the
 * SDK's error classes.
 */
export function mapAnthropicError(
  error: unknown,
  signal: AbortSignal,
  url: string,
  sdk: AnthropicErrorClasses,
): unknown {
  const { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError } = sdk;
  return mapClientError(error, {
    signal,
    provider: PROVIDER,
    url,
    classes: { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError },
    apiError: (failure: APIError) => {
      const words = failure.apiMessage ?? failure.message;
      const detail = failure.type ? `${failure.type}: ${words}` : failure.message;
      const code = codeFor(failure.status, failure.type, words);
      const retryAfterMs = code === 'rate_limited' || code === 'server' ? parseRetryAfter(failure.headers) : undefined;
      return providerError(PROVIDER, code, detail, {
        cause: failure,
        ...(failure.status === undefined ? {} : { status: failure.status }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
  });
}
