import { describeValue, type Model, type ModelRequest, type ModelResponse, ModelResponseError } from '@bridle/protocol';
import { isThenable } from '@bridle/protocol/internal';
import type { RunScope } from './run-scope';

function closeQuietly(iterator: AsyncIterator<unknown>): void {
  // Ask the producer to stop, but never wait for it: a stream that ignores its signal must not hold the run.
  try {
    Promise.resolve(iterator.return?.()).catch(() => {});
  } catch {
    // A throwing return() changes nothing: the response (or the failure) is already decided.
  }
}

async function streamResponse(
  model: Model & { stream: NonNullable<Model['stream']> },
  request: ModelRequest,
  scope: RunScope,
  onTextDelta: (text: string) => void,
): Promise<unknown> {
  const iterator = model.stream(request)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await scope.race(iterator.next());
      if (next.done) throw new ModelResponseError('The model stream ended without a final { type: "response" } part.');
      const part = next.value as { type?: unknown; text?: unknown; response?: unknown } | null;
      if (part?.type === 'text_delta' && typeof part.text === 'string') onTextDelta(part.text);
      else if (part?.type === 'response') return part.response;
      else
        throw new ModelResponseError(
          `The model stream yielded an invalid part (${describeValue(part)}): expected { type: "text_delta", text } or { type: "response", response }.`,
        );
    }
  } finally {
    closeQuietly(iterator);
  }
}

/**
 * One model call: `stream` when asked for and available (text deltas go to `onTextDelta`), else
 * `generate`. Raced against the run's cancellation, so a model that ignores its signal cannot hold the
 * run. Resolves with whatever the model returned (the caller validates it).
 */
export function callModel(
  model: Model,
  request: ModelRequest,
  options: { scope: RunScope; stream: boolean; onTextDelta: (text: string) => void },
): Promise<unknown> {
  if (options.stream && typeof model.stream === 'function')
    return streamResponse(
      model as Model & { stream: NonNullable<Model['stream']> },
      request,
      options.scope,
      options.onTextDelta,
    );
  let pending: Promise<ModelResponse>;
  try {
    pending = model.generate(request);
  } catch (error) {
    // A synchronous throw from generate() is a model failure like any other.
    return Promise.reject(error);
  }
  return options.scope.race(isThenable(pending) ? pending : Promise.resolve(pending));
}
