import type { Model, ModelRequest, ModelStreamPart } from '@bridle/protocol';
import { BridleError } from '@bridle/protocol';

/** Where {@link guardModel} reports the errors it hides from clients. */
export type ModelErrorLogger = (error: unknown, modelId: string) => void;

/** What a client is told instead of an unexpected model failure's own message. */
export const UNEXPECTED_MODEL_ERROR = 'The model failed with an unexpected error: the details are in the server log.';

/**
 * Wraps `model` so that a failure which is not a `BridleError` (a bug, a raw `ENOENT`, an internal address
 * in a network error) reaches the run, and so the HTTP client, only as {@link UNEXPECTED_MODEL_ERROR};
 * the original goes to `log`. Bridle errors (provider errors with their codes, retry hints and safe
 * messages) pass through unchanged, so retries and status mapping are not affected.
 */
export function guardModel(model: Model, log: ModelErrorLogger): Model {
  const hide = (error: unknown, signal: AbortSignal): unknown => {
    // A cancelled call (client gone, deadline, shutdown) is not a model failure: pass its reason on, unlogged.
    if (BridleError.isInstance(error) || signal.aborted) return error;
    log(error, model.id);
    return new Error(UNEXPECTED_MODEL_ERROR, { cause: error });
  };
  const stream = model.stream?.bind(model);
  return {
    id: model.id,
    generate: (request: ModelRequest) =>
      model.generate(request).catch((error: unknown) => {
        throw hide(error, request.signal);
      }),
    ...(stream === undefined
      ? {}
      : {
          async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
            try {
              yield* stream(request);
            } catch (error) {
              throw hide(error, request.signal);
            }
          },
        }),
  };
}
