import { faultyModel, scriptedModel } from '@bridle/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runAgent } from '../src/index';
import { recorder } from './helpers';

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('retries with fake timers', () => {
  it('waits an exponential, jittered backoff between attempts', async () => {
    const model = faultyModel(scriptedModel([{ content: 'ok' }]), {
      0: { type: 'provider_error', code: 'server' },
      1: { type: 'provider_error', code: 'network' },
    });
    const running = runAgent({ model, prompt: 'x', retry: { baseDelayMs: 100, maxDelayMs: 1_000 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(74); // first wait: half the 100 ms step + 0.5 of the other half
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(model.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(149); // second wait: 0.75 * 200 ms
    expect(model.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    const result = await running;
    expect(result).toMatchObject({ status: 'completed', steps: 1, answer: 'ok' });
    expect(model.requests).toHaveLength(3);
  });

  it('honours retryAfterMs as the least wait', async () => {
    const model = faultyModel(scriptedModel([{ content: 'ok' }]), {
      0: { type: 'provider_error', code: 'rate_limited', retryAfterMs: 3_000 },
    });
    const running = runAgent({ model, prompt: 'x', retry: { baseDelayMs: 100 } });
    await vi.advanceTimersByTimeAsync(2_999);
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await running).status).toBe('completed');
  });

  it('defaults: 2 retries, 500 ms base', async () => {
    const model = faultyModel(scriptedModel([]), () => ({ type: 'provider_error', code: 'timeout' }));
    const events = recorder();
    const running = runAgent({ model, prompt: 'x', onEvent: events.onEvent });
    await vi.advanceTimersByTimeAsync(374); // 0.75 * 500 ms
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(model.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(750); // 0.75 * 1,000 ms
    const result = await running;
    expect(result.status).toBe('model_error');
    expect(model.requests).toHaveLength(3);
    expect(events.ofType('model_error').map((event) => event.code)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('maxRetries 0 never retries', async () => {
    const model = faultyModel(scriptedModel([{ content: 'ok' }]), { 0: { type: 'provider_error', code: 'server' } });
    const result = await runAgent({ model, prompt: 'x', retry: { maxRetries: 0 } });
    expect(result).toMatchObject({
      status: 'model_error',
      error: 'faultyModel: scripted server on call 1 (gave up after 1 attempts)',
    });
  });

  it('a plain Error and a malformed response are not retried', async () => {
    const thrown = faultyModel(scriptedModel([{ content: 'ok' }]), { 0: { type: 'throw', message: 'kaput' } });
    expect(await runAgent({ model: thrown, prompt: 'x' })).toMatchObject({ status: 'model_error', error: 'kaput' });
    expect(thrown.requests).toHaveLength(1);
    const malformed = faultyModel(scriptedModel([{ content: 'ok' }]), { 0: { type: 'malformed' } });
    expect((await runAgent({ model: malformed, prompt: 'x' })).status).toBe('model_error');
    expect(malformed.requests).toHaveLength(1);
  });

  it('each step has its own retry budget', async () => {
    const model = faultyModel(
      scriptedModel([{ content: '', toolCalls: [{ id: 'a', name: 'nope', arguments: {} }] }, { content: 'done' }]),
      { 0: { type: 'provider_error', code: 'server' }, 2: { type: 'provider_error', code: 'server' } },
    );
    const running = runAgent({ model, prompt: 'x', retry: { maxRetries: 1, baseDelayMs: 10 } });
    await vi.advanceTimersByTimeAsync(100);
    expect(await running).toMatchObject({ status: 'completed', steps: 2 });
    expect(model.requests).toHaveLength(4);
  });
});
