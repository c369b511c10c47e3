import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '@bridle/protocol';
import type OpenAI from 'openai';
import { callSignal } from './call-signal';
import { toChatBody } from './chat-request';
import { fromChatResult } from './chat-result';
import { readChatStream } from './chat-stream';
import { loadOpenAISdk, type OpenAISdk } from './load-openai-sdk';
import { mapOpenAIError } from './map-openai-error';
import { type OpenAIOptions, resolveOpenAIOptions } from './resolve-openai-options';
import { toResponsesBody } from './responses-request';
import { fromResponsesResult } from './responses-result';
import { readResponsesStream } from './responses-stream';

/**
 * A Bridle `Model` over the official `openai` SDK: the Responses API (stateless, `store: false`) or Chat
 * Completions (any OpenAI-compatible server). `generate` and `stream` pass `request.signal` to the SDK; an abort
 * rejects with the signal's reason, provider failures reject with `ProviderError`s (the SDK's own retries are off:
 * the agent loop retries). Throws `ConfigError` at creation for bad options or a missing API key.
 *
 * Every response has a `finishReason` and `providerData[provider]` (`{ model, api, ... }`, provider `openai` or
 * `openai-compatible`): the raw finish reason, and for the Responses API the reasoning items with
 * `encrypted_content`, which are sent back in the next requests of the tool loop (same provider and model only).
 *
 * @example
 * const model = openai({ model: 'gpt-4o-mini' }); // id "openai:gpt-4o-mini", key from OPENAI_API_KEY
 */
export function openai(options: OpenAIOptions): Model {
  const resolved = resolveOpenAIOptions(options);
  const { provider } = resolved;
  const settings = { provider, model: resolved.model };
  // The SDK is imported with the first request (see loadOpenAISdk); options were checked above, without it.
  let ready: Promise<{ sdk: OpenAISdk; client: OpenAI; url: string }> | undefined;
  const connect = () => {
    ready ??= loadOpenAISdk().then((sdk) => {
      const client =
        options.client ??
        new sdk.default({ apiKey: resolved.apiKey ?? null, baseURL: resolved.baseURL ?? null, maxRetries: 0 });
      const baseURL = client.baseURL.replace(/\/+$/, '');
      return { sdk, client, url: `${baseURL}/${resolved.api === 'responses' ? 'responses' : 'chat/completions'}` };
    });
    return ready;
  };

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const { sdk, client, url } = await connect();
    const call = callSignal(request.signal);
    const requestOptions = { signal: call.signal, maxRetries: 0 };
    try {
      if (resolved.api === 'responses') {
        const result = await client.responses.create(toResponsesBody(request, resolved), requestOptions);
        return fromResponsesResult(result, settings);
      }
      const result = await client.chat.completions.create(toChatBody(request, resolved), requestOptions);
      return fromChatResult(result, settings);
    } catch (error) {
      throw mapOpenAIError(error, request.signal, provider, url, sdk);
    } finally {
      call.release();
    }
  }

  async function* stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const { sdk, client, url } = await connect();
    const call = callSignal(request.signal);
    const requestOptions = { signal: call.signal, maxRetries: 0 };
    try {
      if (resolved.api === 'responses') {
        const body = { ...toResponsesBody(request, resolved), stream: true as const };
        const events = await client.responses.create(body, requestOptions);
        yield* readResponsesStream(events, request.signal, settings);
      } else {
        const body = {
          ...toChatBody(request, resolved),
          stream: true as const,
          stream_options: { include_usage: true },
        };
        const chunks = await client.chat.completions.create(body, requestOptions);
        yield* readChatStream(chunks, request.signal, settings);
      }
    } catch (error) {
      throw mapOpenAIError(error, request.signal, provider, url, sdk);
    } finally {
      call.release();
    }
  }

  return { id: resolved.id, generate, stream };
}
