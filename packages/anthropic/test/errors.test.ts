import { EventEmitter } from 'node:events';
import Anthropic from '@anthropic-ai/sdk';
import { ProviderError } from '@bridle/protocol';
import type { FakeProviderStep } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { anthropic } from '../src/index';
import { collect, modelRequest, rejection, serve, until } from './helpers';

const hi = () => modelRequest([{ role: 'user', content: 'Hi' }]);

async function failure(step: FakeProviderStep, mode: 'generate' | 'stream' = 'generate') {
  const server = await serve([step]);
  const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
  const error = await rejection(mode === 'generate' ? model.generate(hi()) : collect(model.stream!(hi())));
  return { error: error as ProviderError, server };
}

describe('anthropic errors', () => {
  it('maps 429 with Retry-After to rate_limited with retryAfterMs, in one attempt', async () => {
    const { error, server } = await failure({
      type: 'http_error',
      status: 429,
      message: 'Number of requests has exceeded your rate limit',
      headers: { 'retry-after': '3' },
    });
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      status: 429,
      retryAfterMs: 3000,
      provider: 'anthropic',
    });
    expect(error.message).toContain('rate_limit_error: Number of requests has exceeded your rate limit');
    expect(server.requests).toHaveLength(1);
  });

  it('reads Retry-After as an HTTP date and retry-after-ms', async () => {
    const date = new Date(Date.now() + 30_000).toUTCString();
    const byDate = await failure({ type: 'http_error', status: 429, headers: { 'retry-after': date } });
    expect(byDate.error.retryAfterMs).toBeGreaterThan(20_000);
    expect(byDate.error.retryAfterMs).toBeLessThanOrEqual(30_000);
    const byMs = await failure({ type: 'http_error', status: 429, headers: { 'retry-after-ms': '250' } });
    expect(byMs.error.retryAfterMs).toBe(250);
  });

  it.each([
    [401, 'auth', false],
    [403, 'auth', false],
    [400, 'bad_request', false],
    [404, 'bad_request', false],
    [500, 'server', true],
    [529, 'server', true],
  ] as const)('maps HTTP %i to %s (retryable %s)', async (status, code, retryable) => {
    const { error, server } = await failure({ type: 'http_error', status });
    expect(error).toMatchObject({ code, retryable, status, provider: 'anthropic' });
    expect(server.requests).toHaveLength(1);
  });

  it('names ANTHROPIC_API_KEY in auth errors', async () => {
    const { error } = await failure({ type: 'http_error', status: 401, message: 'invalid x-api-key' });
    expect(error.message).toContain('authentication_error: invalid x-api-key');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });

  it('maps "prompt is too long" to context_length', async () => {
    const { error } = await failure(new ProviderError({ code: 'context_length', message: 'x', provider: 'fake' }));
    expect(error).toMatchObject({ code: 'context_length', retryable: false, status: 400 });
    expect(error.message).toContain('prompt is too long');
  });

  it('maps a mid-stream overloaded_error event (no HTTP status) to a retryable server error', async () => {
    const { error } = await failure(
      { type: 'stream_error', errorType: 'overloaded_error', message: 'Overloaded', before: { content: 'partial' } },
      'stream',
    );
    expect(error).toMatchObject({ code: 'server', retryable: true, provider: 'anthropic' });
    expect(error.status).toBeUndefined();
    expect(error.message).toContain('overloaded_error: Overloaded');
  });

  it('maps a mid-stream rate_limit_error event to rate_limited', async () => {
    const { error } = await failure({ type: 'stream_error', errorType: 'rate_limit_error' }, 'stream');
    expect(error).toMatchObject({ code: 'rate_limited', retryable: true });
  });

  it('maps a dropped connection and a stream cut before message_stop to network', async () => {
    const dropped = await failure(new ProviderError({ code: 'network', message: 'x', provider: 'fake' }));
    expect(dropped.error).toMatchObject({ code: 'network', retryable: true });
    const cut = await failure({ type: 'cut', response: { content: 'one two three four five six' } }, 'stream');
    expect(cut.error).toMatchObject({ code: 'network', retryable: true });
  });

  it('names the URL it tried when it cannot connect, in a message that ends in one period', async () => {
    const server = await serve([]);
    const baseURL = server.baseURL;
    await server.close();
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL });
    for (const call of [() => model.generate(hi()), () => collect(model.stream!(hi()))]) {
      const error = await rejection(call());
      expect(error).toMatchObject({ code: 'network', retryable: true });
      const message = (error as Error).message;
      expect(message).toMatch(
        new RegExp(
          `^anthropic request failed: Connection error \\(${baseURL.replace(/[.]/g, '\\.')}/v1/messages: .*ECONNREFUSED.*\\)\\. Check the network and the base URL\\.$`,
        ),
      );
      expect(message).not.toContain('..');
    }
  });

  it('keeps credentials of the base URL out of the connection error', async () => {
    const server = await serve([]);
    const port = new URL(server.baseURL).port;
    await server.close();
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: `http://user:secret@127.0.0.1:${port}` });
    const message = ((await rejection(model.generate(hi()))) as Error).message;
    expect(message).toContain(`(http://127.0.0.1:${port}/v1/messages: `);
    expect(message).not.toContain('secret');
  });

  it('maps a client timeout to timeout', async () => {
    const server = await serve([{ type: 'hang' }]);
    const client = new Anthropic({ apiKey: 'k', baseURL: server.baseURL, timeout: 200, maxRetries: 4 });
    const error = await rejection(anthropic({ model: 'claude-test', client }).generate(hi()));
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    // One attempt at most (the SDK's own retries are off). On a loaded machine the 200 ms client timeout can fire
    // before the server has even recorded the request, so none is fine too.
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('rejects with the abort reason, not a ProviderError, when aborted mid-stream', async () => {
    const server = await serve([{ type: 'hang', response: { content: 'one two three four' }, afterEvents: 4 }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
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

  it('rejects with the abort reason when aborted while waiting, or before the call', async () => {
    const server = await serve([{ type: 'hang' }]);
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
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

describe('anthropic signal hygiene', () => {
  it('leaves no abort listeners on a long-lived caller signal', async () => {
    const server = await serve(() => ({ content: 'ok' }));
    const controller = new AbortController();
    const model = anthropic({ model: 'claude-test', apiKey: 'k', baseURL: server.baseURL });
    for (let i = 0; i < 12; i++) {
      await model.generate(modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal }));
      await collect(model.stream!(modelRequest([{ role: 'user', content: 'Hi' }], { signal: controller.signal })));
    }
    expect(EventEmitter.getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
