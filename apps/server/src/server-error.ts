import { BridleError } from '@bridle/protocol';

/** Codes of the errors the server itself raises (mapped to HTTP statuses in `http-status.ts`). */
export type ServerErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'model_not_found'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'session_busy'
  | 'run_busy'
  | 'run_not_waiting'
  | 'approval_not_pending'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'busy'
  | 'too_many_jobs'
  | 'too_many_streams'
  | 'streams_full'
  | 'shutting_down'
  | 'not_ready'
  | 'run_failed'
  | 'not_implemented'
  | 'internal';

const SERVER_MARKER = Symbol.for('bridle.error.server');

/**
 * An HTTP-facing failure with a stable code. `retryAfterSeconds` becomes a `Retry-After` header. Check
 * with `ServerError.isInstance(value)` (works across duplicate installs), like every Bridle error.
 */
export class ServerError extends BridleError {
  readonly [SERVER_MARKER] = true;
  declare readonly code: ServerErrorCode;
  readonly retryAfterSeconds?: number;

  constructor(code: ServerErrorCode, message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.name = 'ServerError';
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** True for a `ServerError` from any copy of this package. */
  static override isInstance(value: unknown): value is ServerError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SERVER_MARKER] === true;
  }
}
