import type { ModelResponse } from '@bridle/protocol';

/** One request received by a fake provider server (model calls only: `GET /v1/models` is not recorded). */
export interface FakeProviderRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/responses`. */
  path: string;
  /** Lower-case header names, as Node receives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (the raw text when it was not JSON). */
  body: unknown;
}

/** The provider answers with an HTTP error in its own error-body format. */
export interface FakeHttpError {
  type: 'http_error';
  status: number;
  message?: string;
  /** Provider error type, e.g. `rate_limit_error` (Anthropic), `invalid_request_error` (OpenAI). Defaults by status. */
  errorType?: string;
  /** OpenAI's `error.code`, e.g. `context_length_exceeded`. */
  code?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '2' }`. */
  headers?: Record<string, string>;
}

/** A streamed answer that starts normally (the text of `before`, if any) and then sends the provider's error event. */
export interface FakeStreamError {
  type: 'stream_error';
  /** e.g. `overloaded_error` (Anthropic) or `server_error` (OpenAI). */
  errorType: string;
  message?: string;
  before?: ModelResponse;
}

/**
 * The server never finishes answering, until the client goes away or the server closes. With `response`, it
 * first sends the first `afterEvents` SSE events of it (default half), so a client can be cut off mid-stream.
 */
export interface FakeHang {
  type: 'hang';
  response?: ModelResponse;
  afterEvents?: number;
}

/** The server sends the first `afterEvents` SSE events of `response` (or half the JSON body) and drops the connection. */
export interface FakeCut {
  type: 'cut';
  response: ModelResponse;
  /** Streaming only: events sent before the cut; default half of them. */
  afterEvents?: number;
}

/**
 * A reasoning step sent before the answer: an Anthropic `thinking` block (`text` and `signature`) or
 * `redacted_thinking` block (`redacted`), or a Responses API `reasoning` item (`text` as its summary, `signature` as
 * its `encrypted_content`, sent only when the request's `include` asks for `reasoning.encrypted_content`).
 * Chat Completions has no such shape and ignores it.
 */
export interface FakeReasoning {
  /** The thinking text (Anthropic `thinking`; a Responses `summary_text`). */
  text?: string;
  /** Anthropic's `signature`; the Responses item's `encrypted_content`. */
  signature?: string;
  /** Anthropic only: a `redacted_thinking` block with this `data` instead of a thinking block. */
  redacted?: string;
}

/**
 * A response with wire options. `interleave` (OpenAI only) sends the argument deltas of several tool calls
 * round-robin instead of one call after the other, which the formats allow and clients must assemble.
 */
export interface FakeResponse {
  type: 'response';
  response: ModelResponse;
  interleave?: boolean;
  /**
   * Anthropic `stop_reason` / Chat `finish_reason` to report instead of the natural one (e.g. `max_tokens`,
   * `length`); for the Responses API the `incomplete_details.reason` of an incomplete response (`max_output_tokens`).
   */
  stopReason?: string;
  /** Thinking blocks / reasoning items sent before the answer, in order (see {@link FakeReasoning}). */
  reasoning?: readonly FakeReasoning[];
}

/**
 * Exact wire data, replayed as it is: `json` answers a request that does not stream (HTTP 200), `events` one that
 * does (each item one SSE `data:` line, JSON-encoded unless it is a string such as `'[DONE]'`; Anthropic and
 * Responses events also get an `event:` line named after their `type`). Use it for shapes the `ModelResponse`
 * rendering cannot produce: refusals, reasoning items, thinking blocks, truncated answers, servers' quirks.
 */
export interface FakeRaw {
  type: 'raw';
  json?: unknown;
  events?: readonly unknown[];
}

/**
 * One scripted step: a Bridle-level `ModelResponse` (rendered in the provider's wire format, JSON or SSE as the
 * request asks), an `Error` (a `ProviderError` becomes the matching wire error: see the README; any other error a
 * 500), a wire-level fault, or a function of the request that returns a step.
 */
export type FakeProviderStep =
  | ModelResponse
  | Error
  | FakeHttpError
  | FakeStreamError
  | FakeHang
  | FakeCut
  | FakeResponse
  | FakeRaw
  | ((request: FakeProviderRequest, callIndex: number) => FakeProviderStep | Promise<FakeProviderStep>);

/** Steps taken in order (one per model call), or one function called for every model call. */
export type FakeProviderScript =
  | readonly FakeProviderStep[]
  | ((request: FakeProviderRequest, callIndex: number) => FakeProviderStep | Promise<FakeProviderStep>);

/** What the wire renderers act on: a step with functions called and errors normalised. */
export type FakeOutcome =
  | FakeResponse
  | FakeHttpError
  | FakeStreamError
  | FakeHang
  | FakeCut
  | FakeRaw
  | { type: 'network_drop' };

const STATUS_BY_CODE: Record<string, number> = {
  rate_limited: 429,
  auth: 401,
  bad_request: 400,
  context_length: 400,
  server: 500,
};

function isProviderErrorLike(
  value: Error,
): value is Error & { code: string; status?: number; retryAfterMs?: number; provider?: string } {
  return typeof (value as { code?: unknown }).code === 'string' && 'retryable' in value;
}

/** Turns a thrown-style `Error` step into the wire outcome a real provider would produce for it. */
function errorOutcome(error: Error, contextLengthMessage: string): FakeOutcome {
  if (!isProviderErrorLike(error)) return { type: 'http_error', status: 500, message: error.message };
  if (error.code === 'network') return { type: 'network_drop' };
  if (error.code === 'timeout') return { type: 'hang' };
  const status = error.status ?? STATUS_BY_CODE[error.code] ?? 500;
  const outcome: FakeHttpError = { type: 'http_error', status, message: error.message };
  if (error.code === 'context_length') {
    outcome.message = contextLengthMessage;
    outcome.code = 'context_length_exceeded';
  }
  if (error.retryAfterMs !== undefined) {
    outcome.headers = { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) };
  }
  return outcome;
}

/** Resolves the step for one call: takes the script entry, calls functions, normalises errors and bare responses. */
export async function resolveFakeStep(
  script: FakeProviderScript,
  request: FakeProviderRequest,
  callIndex: number,
  options: { serverName: string; contextLengthMessage: string },
): Promise<FakeOutcome> {
  let step: FakeProviderStep | undefined = typeof script === 'function' ? script : script[callIndex];
  if (step === undefined) {
    const length = (script as readonly FakeProviderStep[]).length;
    return {
      type: 'http_error',
      status: 400,
      message: `${options.serverName}: no response scripted for call ${callIndex + 1} (the script has ${length} step${length === 1 ? '' : 's'})`,
    };
  }
  while (typeof step === 'function') step = await step(request, callIndex);
  if (step instanceof Error) return errorOutcome(step, options.contextLengthMessage);
  if ('type' in step) return step;
  return { type: 'response', response: step };
}
