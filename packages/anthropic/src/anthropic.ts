import type Anthropic from '@anthropic-ai/sdk';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '@bridle/protocol';
import { toAnthropicBody } from './anthropic-request';
import { fromAnthropicMessage } from './anthropic-result';
import { readAnthropicStream } from './anthropic-stream';
import { type AnthropicSdk, loadAnthropicSdk } from './load-anthropic-sdk';
import { mapAnthropicError } from './map-anthropic-error';
import { type AnthropicOptions, resolveAnthropicOptions } from './resolve-anthropic-options';

/** Ten minutes, as the SDK's default; set explicitly so the SDK does not refuse large `maxTokens` without streaming. */
const CLIENT_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * A Bridle `Model` over the official `@anthropic-ai/sdk` Messages API, with id `anthropic:<model>`. `generate` and
 * `stream` pass `request.signal` to the SDK; an abort rejects with the signal's reason, provider failures reject
 * with `ProviderError`s (the SDK's own retries are off: the agent loop retries). Throws `ConfigError` at creation
 * for bad options or a missing API key.
 *
 * Every response has a `finishReason` and `providerData.anthropic` (`{ model, stopReason, thinking? }`): with
 * `thinking`, the thinking blocks are sent back unchanged (signatures included) in the next requests of the tool
 * loop, to the same model only. Prompt-cache breakpoints are placed automatically unless `promptCache: false`;
 * `usage.cacheReadTokens` / `cacheWriteTokens` say what the cache served and stored (both part of `inputTokens`).
 *
 * @example
 * const model = anthropic({ model: 'claude-sonnet-4-6' }); // key from ANTHROPIC_API_KEY
 */
export function anthropic(options: AnthropicOptions): Model {
  const resolved = resolveAnthropicOptions(options);
  const requestOptions = (signal: AbortSignal) => ({ signal, maxRetries: 0 });
  // The SDK is imported with the first request (see loadAnthropicSdk); options were checked above, without it.
  let ready: Promise<{ sdk: AnthropicSdk; client: Anthropic; url: string }> | undefined;
  const connect = () => {
    ready ??= loadAnthropicSdk().then((sdk) => {
      const client =
        options.client ??
        new sdk.default({
          apiKey: resolved.apiKey ?? null,
          baseURL: resolved.baseURL ?? null,
          maxRetries: 0,
          timeout: CLIENT_TIMEOUT_MS,
        });
      return { sdk, client, url: `${client.baseURL.replace(/\/+$/, '')}/v1/messages` };
    });
    return ready;
  };

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const { sdk, client, url } = await connect();
    try {
      const message = await client.messages.create(toAnthropicBody(request, resolved), requestOptions(request.signal));
      return fromAnthropicMessage(message, resolved.model);
    } catch (error) {
      throw mapAnthropicError(error, request.signal, url, sdk);
    }
  }

  async function* stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const { sdk, client, url } = await connect();
    try {
      const body = { ...toAnthropicBody(request, resolved), stream: true as const };
      const events = await client.messages.create(body, requestOptions(request.signal));
      yield* readAnthropicStream(events, request.signal, resolved.model);
    } catch (error) {
      throw mapAnthropicError(error, request.signal, url, sdk);
    }
  }

  return { id: `anthropic:${resolved.model}`, generate, stream };
}
