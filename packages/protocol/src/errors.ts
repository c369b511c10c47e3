const BASE_MARKER = Symbol.for('bridle.error');
const CONFIG_MARKER = Symbol.for('bridle.error.config');
const TRANSCRIPT_MARKER = Symbol.for('bridle.error.transcript');
const RESPONSE_MARKER = Symbol.for('bridle.error.model_response');
const PROVIDER_MARKER = Symbol.for('bridle.error.provider');
const CONTEXT_MARKER = Symbol.for('bridle.error.context_limit');

function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * The base of every error Bridle throws, with a stable string `code`.
 * Check with `BridleError.isInstance(value)` (works across duplicate installs), not `instanceof`.
 */
export class BridleError extends Error {
  readonly [BASE_MARKER] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BridleError';
    this.code = code;
  }

  /** True for any Bridle error, whichever copy of this package created it. */
  static isInstance(value: unknown): value is BridleError {
    return hasMarker(value, BASE_MARKER);
  }
}

/** Invalid options or setup, found before anything ran. Code `invalid_config`. */
export class ConfigError extends BridleError {
  readonly [CONFIG_MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_config', message, options);
    this.name = 'ConfigError';
  }
  static override isInstance(value: unknown): value is ConfigError {
    return hasMarker(value, CONFIG_MARKER);
  }
}

/** A transcript that breaks the message rules. Code `invalid_transcript`. */
export class TranscriptError extends BridleError {
  readonly [TRANSCRIPT_MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_transcript', message, options);
    this.name = 'TranscriptError';
  }
  static override isInstance(value: unknown): value is TranscriptError {
    return hasMarker(value, TRANSCRIPT_MARKER);
  }
}

/** A model (adapter) returned something that is not a `ModelResponse`. Code `invalid_model_response`. */
export class ModelResponseError extends BridleError {
  readonly [RESPONSE_MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_model_response', message, options);
    this.name = 'ModelResponseError';
  }
  static override isInstance(value: unknown): value is ModelResponseError {
    return hasMarker(value, RESPONSE_MARKER);
  }
}

/** Why a provider call failed. */
export type ProviderErrorCode =
  | 'rate_limited'
  | 'auth'
  | 'bad_request'
  | 'context_length'
  | 'server'
  | 'network'
  | 'timeout';

const RETRYABLE_BY_DEFAULT: Record<ProviderErrorCode, boolean> = {
  rate_limited: true,
  auth: false,
  bad_request: false,
  context_length: false,
  server: true,
  network: true,
  timeout: true,
};

/** Options of {@link ProviderError}. `retryable` defaults by code (rate limits, 5xx, network, timeouts). */
export interface ProviderErrorOptions {
  code: ProviderErrorCode;
  message: string;
  provider: string;
  retryable?: boolean;
  status?: number;
  retryAfterMs?: number;
  cause?: unknown;
}

/** A model provider call failed. The loop retries it when `retryable`. */
export class ProviderError extends BridleError {
  readonly [PROVIDER_MARKER] = true;
  declare readonly code: ProviderErrorCode;
  readonly retryable: boolean;
  declare readonly status?: number;
  declare readonly retryAfterMs?: number;
  readonly provider: string;

  constructor(options: ProviderErrorOptions) {
    super(options.code, options.message, { cause: options.cause });
    this.name = 'ProviderError';
    this.provider = options.provider;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT[options.code];
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
  static override isInstance(value: unknown): value is ProviderError {
    return hasMarker(value, PROVIDER_MARKER);
  }
}

/** Even the newest required part of the conversation does not fit the context budget. Code `context_limit`. */
export class ContextLimitError extends BridleError {
  readonly [CONTEXT_MARKER] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super('context_limit', message, options);
    this.name = 'ContextLimitError';
  }
  static override isInstance(value: unknown): value is ContextLimitError {
    return hasMarker(value, CONTEXT_MARKER);
  }
}
