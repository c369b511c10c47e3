import { type ProviderErrorCode, parseRetryAfter } from '@bridle/protocol';
import { codeForStatus, mapClientError, providerError } from '@bridle/protocol/internal';
import type { APIError } from 'openai';

const CONTEXT_LENGTH =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|reduce the length/i;
/** The Bridle code for a failed request's HTTP status; `text` (the error code and message) tells context length apart. */
function codeFor(status: number, text: string): ProviderErrorCode {
  const code = codeForStatus(status);
  return code === 'bad_request' && CONTEXT_LENGTH.test(text) ? 'context_length' : code;
}

/** The Bridle code for an error reported without an HTTP status (a stream `error` event or a failed response). */
export function codeForErrorType(type: string | null | undefined, message: string): ProviderErrorCode {
  const text = `${type ?? ''} ${message}`;
  if (/rate_limit/i.test(text)) return 'rate_limited';
  if (CONTEXT_LENGTH.test(text)) return 'context_length';
  if (/invalid_request|invalid_prompt|bad_request/i.test(text)) return 'bad_request';
  if (/authentication|permission|invalid_api_key/i.test(text)) return 'auth';
  return 'server';
}

/** The SDK's error classes (its module, loaded with the first request). */
export type OpenAIErrorClasses = Pick<
  typeof import('openai'),
  'APIUserAbortError' | 'APIConnectionTimeoutError' | 'APIConnectionError' | 'APIError'
>;

/**
 * Turns whatever the SDK threw into what the adapter rejects with: the abort reason when `signal` is aborted
 * (never a ProviderError), a `ProviderError` for API, connection and stream failures, anything else unchanged.
 * Connection failures name `url`, the endpoint that was tried (without credentials). `sdk` gives the SDK's error
 * classes.
 */
export function mapOpenAIError(
  error: unknown,
  signal: AbortSignal,
  provider: string,
  url: string,
  sdk: OpenAIErrorClasses,
): unknown {
  const { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError } = sdk;
  return mapClientError(error, {
    signal,
    provider,
    url,
    classes: { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError },
    apiError: (failure: APIError) => {
      const detail = failure.message;
      if (failure.status === undefined) {
        // A stream error event: its type (`invalid_request_error`) and code (`context_length_exceeded`) both count.
        const kind = [failure.type, failure.code].filter(Boolean).join(' ');
        return providerError(provider, codeForErrorType(kind, detail), detail, { cause: failure });
      }
      const code = codeFor(failure.status, `${failure.code ?? ''} ${detail}`);
      const retryAfterMs = code === 'rate_limited' || code === 'server' ? parseRetryAfter(failure.headers) : undefined;
      return providerError(provider, code, detail, {
        status: failure.status,
        cause: failure,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
  });
}
