import type { Model, ModelResponse, ModelStreamPart } from '@bridle/protocol';
import { checkModelPrice, type ModelPrice, modelPrices, priceOf } from './model-prices';
import { usageCost } from './usage-cost';

/** Options of {@link withCost}. */
export interface WithCostOptions {
  /** Prices by model id that add to or override {@link modelPrices}. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** The id to look the price up by; default `model.id` (e.g. price a proxied `openai:gpt-4o-mini` as OpenAI's). */
  priceId?: string;
}

/** `modelPrices` with `prices` over it, every entry of `prices` checked (a bad one is a `ConfigError`). */
export function priceTable(prices: WithCostOptions['prices']): Readonly<Record<string, ModelPrice>> {
  if (prices === undefined) return modelPrices;
  for (const [id, price] of Object.entries(prices)) checkModelPrice(id, price);
  return { ...modelPrices, ...prices };
}

function priced(response: ModelResponse, price: ModelPrice): ModelResponse {
  if (!response.usage) return response;
  return { ...response, usage: { ...response.usage, costUsd: usageCost(response.usage, price) } };
}

/**
 * `model` with `usage.costUsd` on every response that has usage, when its id (or `priceId`) has a price (in
 * {@link modelPrices} or `prices`); `model` itself when it has none. The id, the errors and the stream parts are unchanged. Throws
 * `ConfigError` for a negative or non-finite price in `prices`.
 */
export function withCost(model: Model, options: WithCostOptions = {}): Model {
  const price = priceOf(options.priceId ?? model.id, priceTable(options.prices));
  if (!price) return model;
  const stream = model.stream?.bind(model);
  return {
    id: model.id,
    generate: async (request) => priced(await model.generate(request), price),
    ...(stream
      ? {
          async *stream(request): AsyncIterable<ModelStreamPart> {
            for await (const part of stream(request)) {
              yield part.type === 'response' ? { type: 'response', response: priced(part.response, price) } : part;
            }
          },
        }
      : {}),
  };
}
