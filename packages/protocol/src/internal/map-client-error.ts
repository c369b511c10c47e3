import { ProviderError } from '../errors';
import { abortReason, isNetworkFailure } from '../provider-helpers';
import { connectionDetail } from './connection-detail';
import { providerError } from './provider-error';

// biome-ignore lint/suspicious/noExplicitAny: any constructor of an SDK's error class, whatever its parameters
type ErrorClass = abstract new (...args: any[]) => Error;

/** The error classes a provider SDK throws (the official OpenAI and Anthropic SDKs share these names). */
export interface ClientErrorClasses<E extends Error> {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: abstract new (...args: never[]) => E;
}

/**
 * Turns whatever a provider SDK threw into what the adapter rejects with, the same way for every adapter: the
 * abort reason when `signal` is aborted (never a ProviderError); a ProviderError as it is; the SDK's user abort
 * as a standard `AbortError`; connection timeouts and failures (and socket errors outside the SDK) as `timeout`
 * and `network` errors naming `url` without credentials; the SDK's API errors through `apiError` (the
 * adapter's own mapping of statuses and error types); malformed JSON as a `server` error; anything else unchanged.
 */
export function mapClientError<E extends Error>(
  error: unknown,
  options: {
    signal: AbortSignal;
    provider: string;
    url: string;
    classes: ClientErrorClasses<E>;
    apiError: (error: E) => ProviderError;
  },
): unknown {
  const { signal, provider, url, classes } = options;
  if (signal.aborted) return abortReason(signal);
  if (ProviderError.isInstance(error)) return error;
  if (error instanceof classes.APIUserAbortError) return new DOMException('This operation was aborted', 'AbortError');
  if (error instanceof classes.APIConnectionTimeoutError)
    return providerError(provider, 'timeout', connectionDetail(error, url), { cause: error });
  if (error instanceof classes.APIConnectionError)
    return providerError(provider, 'network', connectionDetail(error, url), { cause: error });
  if (error instanceof classes.APIError) return options.apiError(error);
  if (isNetworkFailure(error))
    return providerError(provider, 'network', connectionDetail(error as Error, url), { cause: error });
  if (error instanceof SyntaxError)
    return providerError(provider, 'server', `malformed data in the response (${error.message})`, { cause: error });
  return error;
}
