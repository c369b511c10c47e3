import { EventEmitter } from 'node:events';
import { ProviderError } from '@bridle/protocol';
import type { FakeProviderStep } from '@bridle/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { collect, modelRequest, rejection, serve, until } from './helpers';

const apis = ['responses', 'chat'] as const;
const hi = () => modelRequest([{ role: 'user', content: 'Hi' }]);

async function failure(step: FakeProviderStep, api: 'responses' | 'chat', mode: 'generate' | 'stream' = 'generate') {
  const server = await serve([step]);
  const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api });
  const error = await rejection(mode === 'generate' ? model.generate(hi()) : collect(model.stream!(hi())));
  return { error: error as ProviderError, server };
}

describe.each(apis)('openai errors (%s)', (api) => {
  const provider = api === 'chat' ? 'openai-compatible' : 'openai';

  it('maps 429 with Retry-After seconds to rate_limited with retryAfterMs, and makes one attempt only', async () => {
    const { error, server } = await failure(
      { type: 'http_error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '2' } },
      api,
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'rate_limited', retryable: true, status: 429, retryAfterMs: 2000, provider });
    expect(error.message).toContain('Rate limit reached');
    expect(server.requests).toHaveLength(1);
  });

  it('reads Retry-After as an HTTP date and retry-after-ms', async () => {
    const date = new Date(Date.now() + 60_000).toUTCString();
    const byDate = await failure({ type: 'http_error', status: 429, headers: { 'retry-after': date } }, api);
    expect(byDate.error.retryAfterMs).toBeGreaterThan(50_000);
    expect(byDate.error.retryAfterMs).toBeLessThanOrEqual(60_000);
    const byMs = await failure({ type: 'http_error', status: 429, headers: { 'retry-after-ms': '1500' } }, api);
    expect(byMs.error.retryAfterMs).toBe(1500);
  });

  it.each([
    [401, 'auth', false],
    [403, 'auth', false],
    [400, 'bad_request', false],
    [404, 'bad_request', false],
    [500, 'server', true],
    [503, 'server', true],
  ] as const)('maps HTTP %i to %s (retryable %s)', async (status, code, retryable) => {
    const { error, server } = await failure({ type: 'http_error', status }, api);
    expect(error).toMatchObject({ code, retryable, status, provider });
    expect(server.requests).toHaveLength(1);
  });

  it('names the key variable in auth errors', async () => {
    const { error } = await failure({ type: 'http_error', status: 401, message: 'Incorrect API key provided' }, api);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('OPENAI_API_KEY');
  });

  it('maps a context length 400 to context_length', async () => {
    const { error } = await failure(
      new ProviderError({ code: 'context_length', message: 'too long', provider: 'fake' }),
      api,
    );
    expect(error).toMatchObject({ code: 'context_length', retryable: false, status: 400 });
  });

  it('maps a dropped connection to network, also mid-stream', async () => {
    const dropped = await failure(new ProviderError({ code: 'network', message: 'x', provider: 'fake' }), api);
    expect(dropped.error).toMatchObject({ code: 'network', retryable: true });
    const cut = await failure({ type: 'cut', response: { content: 'one two three four five six' } }, api, 'stream');
    expect(cut.error).toMatchObject({ code: 'network', retryable: true });
  });

  it('maps an error event in the middle of a stream by its type', async () => {
    const { error } = await failure(
      { type: 'stream_error', errorType: 'server_error', message: 'boom', before: { content: 'partial answer' } },
      api,
      'stream',
    );
    expect(error).toMatchObject({ code: 'server', retryable: true, provider });
    expect(error.message).toContain('boom');
  });

  it('maps a client timeout to timeout', async () => {
    const server = await serve([{ type: 'hang' }]);
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, timeout: 200 });
    const model = openai({ model: 'gpt-test', client, api });
    const error = await rejection(model.generate(hi()));
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    // One attempt at most (the SDK's own retries are off). On a loaded machine the 200 ms client timeout can fire
    // before the server has even recorded the request, so none is fine too.
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('rejects with the abort reason, not a ProviderError, when aborted mid-stream', async () => {
    const server = await serve([{ type: 'hang', response: { content: 'one two three four' }, afterEvents: 6 }]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api });
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const seen: string[] = [];

    const error = await rejection(
      (async () => {
        for await (const part of model.stream!(
          modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal }),
        )) {
          if (part.type === 'text_delta') seen.push(part.text);
          controller.abort(reason);
        }
      })(),
    );

    expect(error).toBe(reason);
    expect(seen).toEqual(['one ']);
  });

  it('rejects with the abort reason when aborted while waiting for a JSON answer, or before the call', async () => {
    const server = await serve([{ type: 'hang' }, { content: 'never' }]);
    const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api });
    const controller = new AbortController();
    const pending = model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal }));
    await until(() => server.requests.length === 1);
    controller.abort();
    const error = await rejection(pending);
    expect(ProviderError.isInstance(error)).toBe(false);
    expect((error as Error).name).toBe('AbortError');

    const already = AbortSignal.abort(new Error('too late'));
    const early = await rejection(model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { signal: already })));
    expect(early).toBe(already.reason);
  });
});

describe('openai signal hygiene', () => {
  it('leaves no abort listeners on a long-lived caller signal', async () => {
    const server = await serve(() => ({ content: 'ok' }));
    const controller = new AbortController();
    for (const api of apis) {
      const model = openai({ model: 'gpt-test', apiKey: 'sk-test', baseURL: server.baseURL, api });
      for (let i = 0; i < 12; i++) {
        await model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal }));
        await collect(model.stream!(modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal })));
      }
    }
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
