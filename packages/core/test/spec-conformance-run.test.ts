// Black-box conformance to SPEC "@bridle/core", continued: retries (fake timers), events, cancellation
// and leaks. Only the public API is used.
import { getEventListeners } from 'node:events';
import type { RunEvent } from '@bridle/events';
import type { Message, Model } from '@bridle/protocol';
import { expectValidTranscript, faultyModel, scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AgentStatus, runAgent } from '../src/index';
import { ask, deferred, doubleTool, expectEventInvariants, probeTool, recorder, settle } from './conformance-helpers';

const answer = { content: 'done' };

describe('SPEC: retries (fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('retryAfterMs is honoured as the least wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const model = faultyModel(scriptedModel([answer]), {
      0: { type: 'provider_error', code: 'rate_limited', retryAfterMs: 5000 },
    });
    const run = runAgent({ model, prompt: 'hi', retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    await vi.advanceTimersByTimeAsync(4999);
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(model.requests).toHaveLength(2);
    expect(await run).toMatchObject({ status: 'completed', steps: 1 });
  });

  it('a wait that would pass the deadline is not started: the run ends at once with model_error', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const model = faultyModel(scriptedModel([answer]), {
      0: { type: 'provider_error', code: 'rate_limited', retryAfterMs: 5000 },
    });
    let settled = false;
    const run = runAgent({ model, prompt: 'hi', timeoutMs: 1000 }).finally(() => {
      settled = true;
    });
    await settle();
    // No fake time has passed: the run did not wait for a backoff it could never finish.
    expect(settled).toBe(true);
    const result = await run;
    // Decision: the deadline has not passed, the model failed: model_error (README says so), not timeout.
    expect(result.status).toBe('model_error');
    expect(model.requests).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort during a backoff ends the run at once with aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const model = faultyModel(scriptedModel([answer]), {
      0: { type: 'provider_error', code: 'rate_limited', retryAfterMs: 60_000 },
    });
    const controller = new AbortController();
    const run = runAgent({ model, prompt: 'hi', signal: controller.signal });
    await settle();
    controller.abort();
    const result = await run;
    expect(result.status).toBe('aborted');
    expect(model.requests).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('SPEC: events', () => {
  const double = doubleTool();
  const paths: [AgentStatus, () => Parameters<typeof runAgent>[0]][] = [
    ['completed', () => ({ model: scriptedModel([ask(['c1', 'double', { a: 1 }]), answer]), prompt: 'hi' })],
    ['step_limit', () => ({ model: scriptedModel([ask(['c1', 'double', { a: 1 }])]), prompt: 'hi', maxSteps: 1 })],
    ['tool_limit', () => ({ model: scriptedModel([ask(['c1', 'double', { a: 1 }])]), prompt: 'hi', maxToolCalls: 0 })],
    ['model_error', () => ({ model: faultyModel(scriptedModel([]), { 0: { type: 'malformed' } }), prompt: 'hi' })],
    [
      'timeout',
      () => ({
        model: faultyModel(scriptedModel([]), { 0: { type: 'hang', ignoreSignal: true } }),
        prompt: 'hi',
        timeoutMs: 5,
      }),
    ],
    [
      'aborted',
      () => ({ model: scriptedModel([answer]), prompt: 'hi', signal: AbortSignal.abort(new Error('caller stop')) }),
    ],
    [
      'context_limit',
      () => ({ model: scriptedModel([answer]), prompt: 'x'.repeat(100), context: { maxContextChars: 10 } }),
    ],
  ];
  for (const [status, options] of paths) {
    it(`increasing sequence, ISO timestamps, run_end exactly once and last (${status})`, async () => {
      const events = recorder();
      const result = await runAgent({ tools: [double], ...options(), onEvent: events.onEvent });
      expect(result.status).toBe(status);
      expectEventInvariants(events.events, status);
      expect(events.events[0]?.type).toBe('run_start');
      expect(new Set(events.events.map((event) => event.runId))).toEqual(new Set([result.runId]));
      expectValidTranscript(result.messages);
    });
  }

  it('model_end carries durationMs and usage; tool_end durationMs and isError', async () => {
    const events = recorder();
    const model = scriptedModel([
      { ...ask(['c1', 'double', { a: 1 }], ['c2', 'nope']), usage: { inputTokens: 3, outputTokens: 4 } },
      { content: 'done', usage: { inputTokens: 5, outputTokens: 6 } },
    ]);
    const result = await runAgent({ model, tools: [doubleTool()], prompt: 'hi', onEvent: events.onEvent });
    const ends = events.events.filter((event) => event.type === 'model_end');
    expect(ends.map((event) => event.usage)).toEqual([
      { inputTokens: 3, outputTokens: 4 },
      { inputTokens: 5, outputTokens: 6 },
    ]);
    for (const event of ends) expect(event.durationMs).toBeGreaterThanOrEqual(0);
    const toolEnds = events.events.filter((event) => event.type === 'tool_end');
    expect(toolEnds.map((event) => [event.callId, event.isError])).toEqual([
      ['c1', false],
      ['c2', true],
    ]);
    expect(result.usage).toEqual({ inputTokens: 8, outputTokens: 10 });
  });

  it('a throwing observer changes nothing; onObserverError hears about every throw', async () => {
    const script = () => scriptedModel([ask(['c1', 'double', { a: 2 }]), answer]);
    const quiet = await runAgent({ model: script(), tools: [doubleTool()], prompt: 'hi' });
    const heard: [unknown, RunEvent][] = [];
    const noisy = await runAgent({
      model: script(),
      tools: [doubleTool()],
      prompt: 'hi',
      onEvent: () => {
        throw new Error('observer broke');
      },
      onObserverError: (error, event) => {
        heard.push([error, event]);
        throw new Error('and the error hook broke too');
      },
    });
    expect({ ...noisy, runId: '' }).toEqual({ ...quiet, runId: '' });
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.every(([error]) => (error as Error).message === 'observer broke')).toBe(true);
    expect(heard.at(-1)?.[1].type).toBe('run_end');
  });

  it('an async observer that rejects changes nothing either (no unhandled rejection)', async () => {
    const heard: string[] = [];
    const result = await runAgent({
      model: scriptedModel([answer]),
      prompt: 'hi',
      onEvent: async () => {
        throw new Error('async observer broke');
      },
      onObserverError: (error, event) => {
        heard.push(`${(error as Error).message} at ${event.type}`);
      },
    });
    expect(result.status).toBe('completed');
    await settle();
    expect(heard).toEqual(
      ['run_start', 'model_start', 'model_end', 'run_end'].map((type) => `async observer broke at ${type}`),
    );
  });

  it('a batch rejected for the tool budget emits no tool_start or tool_end', async () => {
    const events = recorder();
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }], ['c2', 'double', { a: 2 }])]);
    await runAgent({ model, tools: [doubleTool()], prompt: 'hi', maxToolCalls: 1, onEvent: events.onEvent });
    expect(events.types()).toEqual(['run_start', 'model_start', 'model_end', 'run_end']);
  });

  it('text_delta is emitted only when streaming, and the deltas make up the answer', async () => {
    const streaming = recorder();
    const streamed = await runAgent({
      model: scriptedModel([{ content: 'one two three' }], { stream: true }),
      prompt: 'hi',
      stream: true,
      onEvent: streaming.onEvent,
    });
    const deltas = streaming.events.filter((event) => event.type === 'text_delta');
    expect(deltas.map((event) => event.text).join('')).toBe('one two three');
    expect(streamed.answer).toBe('one two three');

    const plain = recorder();
    await runAgent({
      model: scriptedModel([{ content: 'one two three' }], { stream: true }),
      prompt: 'hi',
      onEvent: plain.onEvent,
    });
    expect(plain.types()).not.toContain('text_delta');
  });

  it('stream: true with a model that has no stream() uses generate and emits no text_delta', async () => {
    const events = recorder();
    const result = await runAgent({
      model: scriptedModel([answer]),
      prompt: 'hi',
      stream: true,
      onEvent: events.onEvent,
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(events.types()).not.toContain('text_delta');
  });
});

describe('SPEC: timeout and aborted reach in-flight work; messages always pass assertTranscript', () => {
  it('an abort mid-batch aborts the tool signal and fills the missing results', async () => {
    const controller = new AbortController();
    const toolSignals: AbortSignal[] = [];
    const gate = deferred<string>();
    const hanging = probeTool('hang', (_args, { signal }) => {
      toolSignals.push(signal);
      return gate.promise;
    });
    const model = scriptedModel([ask(['c1', 'hang'], ['c2', 'hang']), answer]);
    const run = runAgent({ model, tools: [hanging], prompt: 'hi', signal: controller.signal });
    await settle();
    controller.abort();
    const result = await run;
    expect(result.status).toBe('aborted');
    expect(toolSignals).toHaveLength(1);
    expect(toolSignals[0]?.aborted).toBe(true);
    expectValidTranscript(result.messages);
    const results = result.messages.slice(2) as Extract<Message, { role: 'tool' }>[];
    expect(results.map((message) => [message.callId, message.isError])).toEqual([
      ['c1', true],
      ['c2', true],
    ]);
    expect(result.toolCalls).toBe(2);
  });

  it('a tool that ignores its signal does not hold the run past its deadline', async () => {
    const stubborn = probeTool('stubborn', () => new Promise(() => {}));
    const model = scriptedModel([ask(['c1', 'stubborn']), answer]);
    const result = await runAgent({ model, tools: [stubborn], prompt: 'hi', timeoutMs: 20 });
    expect(result.status).toBe('timeout');
    expectValidTranscript(result.messages);
    expect((result.messages[2] as { content: string }).content).toMatch(/time/i);
  });

  it('the model call gets a signal that aborts on timeout', async () => {
    let modelSignal: AbortSignal | undefined;
    const model: Model = {
      id: 'probe',
      generate: (request) => {
        modelSignal = request.signal;
        return new Promise(() => {});
      },
    };
    const result = await runAgent({ model, prompt: 'hi', timeoutMs: 10 });
    expect(result.status).toBe('timeout');
    expect(modelSignal?.aborted).toBe(true);
  });

  it('a signal aborted before the run: aborted, no model call', async () => {
    const model = scriptedModel([answer]);
    const result = await runAgent({ model, prompt: 'hi', signal: AbortSignal.abort() });
    expect(result).toMatchObject({ status: 'aborted', steps: 0, messages: [{ role: 'user', content: 'hi' }] });
    expect(model.requests).toHaveLength(0);
  });

  it('leaves no abort listener on the caller signal and no timer after the run', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const controller = new AbortController();
      const model = scriptedModel([ask(['c1', 'double', { a: 1 }]), answer]);
      const result = await runAgent({
        model,
        tools: [doubleTool()],
        prompt: 'hi',
        signal: controller.signal,
        timeoutMs: 60_000,
      });
      expect(result.status).toBe('completed');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
