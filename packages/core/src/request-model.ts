import {
  type Message,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolDefinition,
  validateModelResponse,
} from '@bridle/protocol';
import { backoffDelay, errorMessage } from '@bridle/protocol/internal';
import { callModel } from './call-model';
import type { RunContext } from './run-context';
import { type CallSignal, Cancelled } from './run-scope';

/** A step's model response, or why there is none (cancellation is thrown as {@link Cancelled}). */
export type ModelOutcome = { ok: true; response: ModelResponse } | { ok: false; error: string };

/** What one step sends to the model. */
export interface StepRequest {
  step: number;
  system: string | undefined;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
}

/**
 * The request of one attempt; its `signal` (a per-call signal) is created only if the model reads it. A
 * class rather than an object literal with a getter: one is made per model call.
 */
class AttemptRequest implements ModelRequest {
  readonly system: string | undefined;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly #call: CallSignal;

  constructor(request: StepRequest, call: CallSignal) {
    this.system = request.system;
    this.messages = request.messages;
    this.tools = request.tools;
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }
}

/**
 * Gets one valid response for a step: calls the model, validates the response, and retries retryable
 * `ProviderError`s after a backoff (abort-aware; a wait that would pass the deadline is not started).
 * Emits `model_start` per attempt and `model_error` per failure. Throws {@link Cancelled} when the run
 * is cancelled; every other failure resolves as `{ ok: false }`.
 */
export async function requestModel(run: RunContext, request: StepRequest): Promise<ModelOutcome> {
  const { options, scope, emitter } = run;
  const { step } = request;
  // Only a streamed call hears text deltas: no closure made for the others.
  const onTextDelta = options.stream ? (text: string) => emitter.emit({ type: 'text_delta', step, text }) : ignore;
  for (let attempt = 1; ; attempt++) {
    emitter.emitOwned({ type: 'model_start', runId: '', sequence: 0, timestamp: '', step, attempt });
    const call = scope.child();
    let failure: unknown;
    try {
      const response = await callModel(options.model, new AttemptRequest(request, call), {
        scope,
        stream: options.stream,
        onTextDelta,
      });
      validateModelResponse(response);
      return { ok: true, response };
    } catch (error) {
      if (error instanceof Cancelled) throw error;
      // A model that rejects because its signal aborted reports the cancellation, not a model error.
      if (scope.reason) throw new Cancelled(scope.reason);
      failure = error;
    } finally {
      call.release();
    }
    const retryable = ProviderError.isInstance(failure) && failure.retryable;
    let message = errorMessage(failure, 'The model call failed');
    let wait = 0;
    let willRetry = retryable && attempt <= options.retry.maxRetries;
    if (willRetry) {
      wait = backoffDelay(options.retry, attempt, { retryAfterMs: (failure as ProviderError).retryAfterMs });
      if (wait >= scope.remainingMs()) {
        willRetry = false;
        message += ` (not retried: the ${Math.ceil(wait)} ms backoff would pass the run's deadline)`;
      }
    } else if (retryable) message += ` (gave up after ${attempt} attempts)`;
    const code = (failure as { code?: unknown } | null)?.code;
    emitter.emit({
      type: 'model_error',
      step,
      attempt,
      error: message,
      ...(typeof code === 'string' ? { code } : {}),
      retryable,
      willRetry,
    });
    if (!willRetry) return { ok: false, error: message };
    await scope.sleep(wait);
  }
}

function ignore(): void {}
