import { type ModelRequest, ProviderError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { faultyModel, scriptedModel } from '../src/index';

const request = (signal = new AbortController().signal): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal,
});

describe('faultyModel', () => {
  it('fails on the scheduled calls and passes the others to the inner model in its own order', async () => {
    const inner = scriptedModel([{ content: 'first' }, { content: 'second' }]);
    const model = faultyModel(inner, { 1: { type: 'throw', message: 'kaput' } });
    expect(await model.generate(request())).toEqual({ content: 'first' });
    await expect(model.generate(request())).rejects.toThrow('kaput');
    expect(await model.generate(request())).toEqual({ content: 'second' });
    expect(model.faults).toEqual([undefined, { type: 'throw', message: 'kaput' }, undefined]);
    expect(model.requests).toHaveLength(3);
    expect(inner.requests).toHaveLength(2);
    expect(model.id).toBe('faulty:scripted:model');
  });

  it('throws ProviderErrors with code, retryability and retry-after', async () => {
    const model = faultyModel(scriptedModel([]), (index) =>
      index === 0
        ? { type: 'provider_error', code: 'rate_limited', retryAfterMs: 250, status: 429 }
        : { type: 'provider_error', code: 'server', retryable: false },
    );
    const first = await model.generate(request()).catch((error: unknown) => error);
    expect(ProviderError.isInstance(first)).toBe(true);
    expect(first).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: 250,
      status: 429,
      provider: 'faulty',
    });
    const second = await model.generate(request()).catch((error: unknown) => error);
    expect(second).toMatchObject({ code: 'server', retryable: false });
  });

  it('returns malformed responses', async () => {
    const model = faultyModel(scriptedModel([]), { 0: { type: 'malformed' }, 1: { type: 'malformed', value: null } });
    expect(await model.generate(request())).toEqual({ content: 42 });
    expect(await model.generate(request())).toBeNull();
  });

  it('hangs until the signal aborts, then rejects with its reason', async () => {
    const model = faultyModel(scriptedModel([]), { 0: { type: 'hang' } });
    const controller = new AbortController();
    const pending = model.generate(request(controller.signal));
    controller.abort(new Error('cancelled by test'));
    await expect(pending).rejects.toThrow('cancelled by test');
  });

  it('can hang ignoring the signal entirely', async () => {
    const model = faultyModel(scriptedModel([]), { 0: { type: 'hang', ignoreSignal: true } });
    const controller = new AbortController();
    let settled = false;
    model.generate(request(controller.signal)).then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
  });

  it('delays abort-aware, then answers', async () => {
    const model = faultyModel(scriptedModel([{ content: 'late' }]), {
      0: { type: 'delay', ms: 5 },
      1: { type: 'delay', ms: 10_000 },
    });
    expect(await model.generate(request())).toEqual({ content: 'late' });
    const controller = new AbortController();
    const pending = model.generate(request(controller.signal));
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
  });
});
