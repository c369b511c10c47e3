import {
  ConfigError,
  describeValue,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  ProviderError,
} from '@bridle/protocol';

/** A response of a {@link fallback} model: `model` is the id of the model that answered. */
export type FallbackResponse = ModelResponse & { model: string };

/** The failures that move a fallback on to the next model: the provider, not the request, is at fault. */
const FALLBACK_CODES = new Set(['server', 'network', 'timeout', 'rate_limited']);

/** True when `error` is a `ProviderError` with code `server`, `network`, `timeout` or `rate_limited`. */
export function shouldFallBack(error: unknown): boolean {
  return ProviderError.isInstance(error) && FALLBACK_CODES.has(error.code);
}

function checkModels(models: unknown): asserts models is readonly Model[] {
  if (!Array.isArray(models) || models.length === 0) {
    throw new ConfigError(
      `fallback: expected a non-empty list of models, like fallback([primary, secondary]); got ${describeValue(models)}.`,
    );
  }
  const ids = new Set<string>();
  models.forEach((model: unknown, index) => {
    const candidate = model as Partial<Model> | null;
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.generate !== 'function') {
      throw new ConfigError(
        `fallback: models[${index}] is not a Model (an object with generate()); got ${describeValue(model)}.`,
      );
    }
    if (typeof candidate.id !== 'string' || candidate.id === '') {
      throw new ConfigError(`fallback: models[${index}] has no id; every model needs a non-empty string id.`);
    }
    if (ids.has(candidate.id)) {
      throw new ConfigError(
        `fallback: ${candidate.id} appears twice in the list; a model that failed would only be asked again. List each model once.`,
      );
    }
    ids.add(candidate.id);
  });
}

/**
 * A `Model` that asks `models` in order: when one fails with a `server`, `network`, `timeout` or `rate_limited`
 * `ProviderError`, the next one is asked; any other failure (`bad_request`, `auth`, `context_length`, an invalid
 * response, an abort) is thrown at once, since another model would only hide it. When the last one fails too, its
 * error is thrown (a retryable one lets the agent loop retry the whole list, starting again with the first model).
 * Every response says which model answered in `model` (see {@link FallbackResponse}); it is the field core copies to
 * `model_end` events and the result. A stream moves on only while the failing model has yielded nothing: text
 * already shown cannot be taken back, so a failure after the first part is thrown.
 *
 * The id is `fallback(<id>, <id>, ...)`. Throws `ConfigError` for an empty list, something that is not a model,
 * or the same model id twice.
 *
 * @example
 * const model = fallback([resolveModel('anthropic:claude-sonnet-4-6'), resolveModel('openai:gpt-4.1')]);
 */
export function fallback(models: readonly Model[]): Model {
  checkModels(models);
  const list = [...models];

  async function generate(request: ModelRequest): Promise<FallbackResponse> {
    let last: unknown;
    for (const [index, model] of list.entries()) {
      try {
        return { ...(await model.generate(request)), model: model.id };
      } catch (error) {
        if (request.signal.aborted || !shouldFallBack(error) || index === list.length - 1) throw error;
        last = error;
      }
    }
    throw last;
  }

  async function* streamOne(model: Model, request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    if (!model.stream) {
      const response = await model.generate(request);
      if (response.content !== '') yield { type: 'text_delta', text: response.content };
      yield { type: 'response', response };
      return;
    }
    yield* model.stream(request);
  }

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    for (const [index, model] of list.entries()) {
      let yielded = false;
      try {
        for await (const part of streamOne(model, request)) {
          yielded = true;
          if (part.type === 'response') {
            const response: FallbackResponse = { ...part.response, model: model.id };
            yield { type: 'response', response };
          } else yield part;
        }
        return;
      } catch (error) {
        if (yielded || request.signal.aborted || !shouldFallBack(error) || index === list.length - 1) throw error;
      }
    }
  }

  return { id: `fallback(${list.map((model) => model.id).join(', ')})`, generate, stream };
}
