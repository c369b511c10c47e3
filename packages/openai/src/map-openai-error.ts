import {
  abortReason,
  isNetworkFailure,
  ProviderError,
  type ProviderErrorCode,
  parseRetryAfter,
} from '@bridle/protocol';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { connectionDetail } from './connection-detail';

const CONTEXT_LENGTH =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|reduce the length/i;
const ADVICE: Record<ProviderErrorCode, string> = {
  rate_limited: 'Wait and retry, or lower the request rate.',
  auth: 'Check OPENAI_API_KEY (or the apiKey option) and that the key may use this model.',
  bad_request: 'Check the model name, messages and tool schemas.',
  context_length: 'Shorten the conversation (context.maxContextChars) or use a model with a larger context.',
  server: 'The provider failed; retry later.',
  network: 'Check the network and the base URL.',
  timeout: 'The provider did not answer in time; retry, or raise the client timeout.',
};

function codeForStatus(status: number, text: string): ProviderErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 409) return 'server';
  return CONTEXT_LENGTH.test(text) ? 'context_length' : 'bad_request';
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
 * A `ProviderError` with the standard message: what failed, the provider's words, and what to do (the advice for
 * the code unless `advice` says better).
 */
export function providerError(
  provider: string,
  code: ProviderErrorCode,
  detail: string,
  extra: { status?: number; retryAfterMs?: number; cause?: unknown; advice?: string } = {},
): ProviderError {
  const { advice = ADVICE[code], ...fields } = extra;
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
    const code = codeForStatus(error.status, `${error.code ?? ''} ${detail}`);
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
