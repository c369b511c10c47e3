import {
  abortReason,
  isNetworkFailure,
  ProviderError,
  type ProviderErrorCode,
  parseRetryAfter,
} from '@bridle/protocol';
import { codeForStatus, connectionDetail, providerError } from '@bridle/protocol/internal';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';

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

/**
 * Turns whatever the SDK threw into what the adapter rejects with: the abort reason when `signal` is aborted
 * (never a ProviderError), a `ProviderError` for API, connection and stream failures, anything else unchanged.
 * Connection failures name `url`, the endpoint that was tried (without credentials).
 */
export function mapOpenAIError(error: unknown, signal: AbortSignal, provider: string, url: string): unknown {
  if (signal.aborted) return abortReason(signal);
  if (ProviderError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError) return new DOMException('This operation was aborted', 'AbortError');
  if (error instanceof APIConnectionTimeoutError)
    return providerError(provider, 'timeout', connectionDetail(error, url), { cause: error });
  if (error instanceof APIConnectionError)
    return providerError(provider, 'network', connectionDetail(error, url), { cause: error });
  if (error instanceof APIError) {
    const detail = error.message;
    if (error.status === undefined) {
      // A stream error event: its type (`invalid_request_error`) and code (`context_length_exceeded`) both count.
      const kind = [error.type, error.code].filter(Boolean).join(' ');
      return providerError(provider, codeForErrorType(kind, detail), detail, { cause: error });
    }
    const code = codeFor(error.status, `${error.code ?? ''} ${detail}`);
    const retryAfterMs = code === 'rate_limited' || code === 'server' ? parseRetryAfter(error.headers) : undefined;
    return providerError(provider, code, detail, {
      status: error.status,
      cause: error,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (isNetworkFailure(error))
    return providerError(provider, 'network', connectionDetail(error as Error, url), { cause: error });
  if (error instanceof SyntaxError) {
    return providerError(provider, 'server', `malformed data in the response (${error.message})`, { cause: error });
  }
  return error;
}
