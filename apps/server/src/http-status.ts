import { BridleError, ProviderError, type ProviderErrorCode } from '@bridle/protocol';
import { ServerError, type ServerErrorCode } from './server-error';

/** The `BridleError` codes of other packages that reach HTTP clients with a status of their own. */
type ForeignCode =
  | 'invalid_config'
  | 'context_limit'
  | 'invalid_transcript'
  | 'invalid_model_response'
  | 'run_ended'
  | 'fenced';

/**
 * The one table from error codes to HTTP statuses (server errors and `BridleError` codes). Keyed by code
 * type: a new `ServerErrorCode` without a status here does not compile.
 */
const STATUS_BY_CODE: Readonly<Record<ServerErrorCode | ForeignCode, number>> = {
  bad_request: 400,
  invalid_config: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  model_not_found: 404,
  rate_limited: 429,
  quota_exceeded: 429,
  too_many_streams: 429,
  session_busy: 409,
  run_busy: 409,
  run_not_waiting: 409,
  approval_not_pending: 409,
  run_ended: 409,
  // This server lost the run (paused past its lease): another process owns it and goes on with it.
  fenced: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  context_limit: 413,
  busy: 503,
  too_many_jobs: 503,
  streams_full: 503,
  shutting_down: 503,
  not_ready: 503,
  invalid_transcript: 500,
  internal: 500,
  invalid_model_response: 502,
  run_failed: 502,
  not_implemented: 501,
};

/** A provider failed: the fault is upstream, never the HTTP client's (except when it is rate limited). */
const STATUS_BY_PROVIDER_CODE: Readonly<Partial<Record<ProviderErrorCode, number>>> = {
  rate_limited: 429,
  timeout: 504,
};

/** Fastify's own request errors, renamed to stable codes. */
const CODE_BY_FASTIFY_CODE: Readonly<Record<string, ServerErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
  FST_ERR_VALIDATION: 'bad_request',
};

/** What a client is told about a failure: status, stable code, safe message, optional Retry-After. */
export interface HttpFailure {
  status: number;
  code: string;
  message: string;
  retryAfterSeconds?: number;
}

/**
 * Maps any thrown value to an HTTP failure. Bridle errors keep their code and message; Fastify's 4xx
 * request errors get stable codes; anything else is a 500 whose message says nothing about internals.
 */
export function httpFailure(error: unknown): HttpFailure {
  if (ProviderError.isInstance(error)) {
    return {
      status: STATUS_BY_PROVIDER_CODE[error.code] ?? 502,
      code: `provider_${error.code}`,
      message: error.message,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(error.retryAfterMs / 1000) }),
    };
  }
  if (BridleError.isInstance(error)) {
    const retry = ServerError.isInstance(error) ? error.retryAfterSeconds : undefined;
    return {
      status: (STATUS_BY_CODE as Readonly<Record<string, number>>)[error.code] ?? 500,
      code: error.code,
      message: error.message,
      ...(retry === undefined ? {} : { retryAfterSeconds: retry }),
    };
  }
  const candidate = error as { code?: unknown; statusCode?: unknown; message?: unknown; validation?: unknown } | null;
  const statusCode = typeof candidate?.statusCode === 'number' ? candidate.statusCode : 500;
  if (statusCode >= 400 && statusCode < 500 && typeof candidate?.message === 'string') {
    const mapped = CODE_BY_FASTIFY_CODE[String(candidate.code)];
    const code = mapped ?? (statusCode === 404 ? 'not_found' : 'bad_request');
    const message =
      code === 'unsupported_media_type'
        ? `${candidate.message}: send the body as JSON with the header "Content-Type: application/json".`
        : candidate.message;
    return { status: mapped ? STATUS_BY_CODE[mapped] : statusCode, code, message };
  }
  return {
    status: 500,
    code: 'internal',
    message: 'Internal server error: the failure was logged with this request id.',
  };
}
