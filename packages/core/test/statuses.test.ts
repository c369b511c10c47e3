import { ProviderError } from '@bridle/protocol';
import { expectValidTranscript, faultyModel, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { addTool, call, recorder, untilAborted } from './helpers';

const addCall = (id: string) => call(id, 'add', { a: 1, b: 2 });

describe('runAgent statuses', () => {
  it('completed: a final answer after a tool round trip', async () => {
    const add = addTool();
    const model = scriptedModel([{ content: 'let me add', toolCalls: [addCall('c1')] }, { content: '3' }]);
    const result = await runAgent({ model, tools: [add], prompt: 'What is 1 + 2?' });
    expect(result).toMatchObject({ status: 'completed', answer: '3', steps: 2, toolCalls: 1 });
    expect(result.error).toBeUndefined();
    expect(result.messages).toEqual([
      { role: 'user', content: 'What is 1 + 2?' },
      { role: 'assistant', content: 'let me add', toolCalls: [addCall('c1')] },
      { role: 'tool', callId: 'c1', name: 'add', content: '3', isError: false },
      { role: 'assistant', content: '3' },
    ]);
    expect(add.calls).toEqual([{ a: 1, b: 2 }]);
    expect(model.requests[1]?.messages).toHaveLength(3);
    expect(result.runId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('step_limit: the batch of the last allowed step still runs, then the run stops', async () => {
    const add = addTool();
    const model = scriptedModel(() => ({ content: '', toolCalls: [addCall('c1')] }));
    const result = await runAgent({ model, tools: [add], prompt: 'loop', maxSteps: 2 });
    expect(result).toMatchObject({ status: 'step_limit', steps: 2, toolCalls: 2 });
    expect(result.answer).toBeUndefined();
    expect(result.error).toBe('Stopped after maxSteps (2) model calls without a final answer.');
    expect(model.requests).toHaveLength(2);
    expect(add.calls).toHaveLength(2);
    // The model reused c1 in its second batch: the run renamed it (call ids are unique within a run).
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'c1-2' });
    expectValidTranscript(result.messages);
  });

  it('tool_limit: a batch larger than the remaining budget is rejected whole and not appended', async () => {
    const add = addTool();
    const model = scriptedModel([
      { content: '', toolCalls: [addCall('a1'), addCall('a2')] },
      { content: 'two more', toolCalls: [addCall('b1'), addCall('b2')] },
    ]);
    const events = recorder();
    const result = await runAgent({ model, tools: [add], prompt: 'go', maxToolCalls: 3, onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'tool_limit', steps: 2, toolCalls: 2 });
    expect(result.error).toBe(
      'The model asked for 2 tool calls but only 1 of maxToolCalls (3) remain; the batch was not run.',
    );
    expect(add.calls).toHaveLength(2);
    expect(result.messages).toHaveLength(4);
    expect(result.messages.some((message) => message.content === 'two more')).toBe(false);
    expect(events.ofType('tool_start')).toHaveLength(2);
  });

  it('tool_limit with maxToolCalls 0: no tool runs at all', async () => {
    const add = addTool();
    const model = scriptedModel([{ content: '', toolCalls: [addCall('a1')] }]);
    const result = await runAgent({ model, tools: [add], prompt: 'go', maxToolCalls: 0 });
    expect(result).toMatchObject({ status: 'tool_limit', steps: 1, toolCalls: 0 });
    expect(result.messages).toEqual([{ role: 'user', content: 'go' }]);
    expect(add.calls).toEqual([]);
  });

  it('a batch exactly the size of the remaining budget runs', async () => {
    const model = scriptedModel([{ content: '', toolCalls: [addCall('a1'), addCall('a2')] }, { content: 'done' }]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', maxToolCalls: 2 });
    expect(result).toMatchObject({ status: 'completed', toolCalls: 2 });
  });

  it('timeout: the deadline reaches the in-flight model call through its signal', async () => {
    let seen: AbortSignal | undefined;
    const model = scriptedModel([
      (request) => {
        seen = request.signal;
        return untilAborted(request.signal);
      },
    ]);
    const result = await runAgent({ model, prompt: 'slow', timeoutMs: 5 });
    expect(result).toMatchObject({ status: 'timeout', steps: 0, toolCalls: 0 });
    expect(result.error).toBe('The run timed out after 5 ms (timeoutMs).');
    expect(seen?.aborted).toBe(true);
    expect((seen as AbortSignal).reason.name).toBe('TimeoutError');
    expect(result.messages).toEqual([{ role: 'user', content: 'slow' }]);
  });

  it('aborted: the caller signal reaches the in-flight model call', async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      (request) => {
        setTimeout(() => controller.abort(new Error('user pressed ctrl-c')), 1);
        return untilAborted(request.signal);
      },
    ]);
    const result = await runAgent({ model, prompt: 'wait', signal: controller.signal });
    expect(result).toMatchObject({ status: 'aborted', steps: 0, error: 'The run was aborted by its signal.' });
    expect(model.requests[0]!.signal.reason.message).toBe('user pressed ctrl-c');
  });

  it('aborted before the start: no model call', async () => {
    const model = scriptedModel([{ content: 'never' }]);
    const events = recorder();
    const result = await runAgent({ model, prompt: 'x', signal: AbortSignal.abort(), onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'aborted', steps: 0 });
    expect(model.requests).toHaveLength(0);
    expect(events.types()).toEqual(['run_start', 'run_end']);
  });

  it('an empty toolCalls array is a final answer, stored without toolCalls', async () => {
    const result = await runAgent({ model: scriptedModel([{ content: 'done', toolCalls: [] }]), prompt: 'x' });
    expect(result).toMatchObject({ status: 'completed', answer: 'done', steps: 1, toolCalls: 0 });
    expect(result.messages[1]).toEqual({ role: 'assistant', content: 'done' });
  });

  it('model_error: a thrown model error, not appended', async () => {
    const model = scriptedModel([new Error('boom')]);
    const result = await runAgent({ model, prompt: 'x' });
    expect(result).toMatchObject({ status: 'model_error', steps: 0, error: 'boom' });
    expect(result.messages).toEqual([{ role: 'user', content: 'x' }]);
  });

  it('model_error: an invalid model response is not appended', async () => {
    const model = faultyModel(scriptedModel([]), {
      0: { type: 'malformed', value: { content: 'x', toolCalls: 'nope' } },
    });
    const result = await runAgent({ model, prompt: 'x' });
    expect(result.status).toBe('model_error');
    expect(result.error).toMatch(/^Invalid model response: toolCalls must be an array when present/);
    expect(result.messages).toHaveLength(1);
  });

  it('model_error: duplicate call ids in one response', async () => {
    const model = scriptedModel([{ content: '', toolCalls: [addCall('same'), addCall('same')] }]);
    const add = addTool();
    const result = await runAgent({ model, tools: [add], prompt: 'x' });
    expect(result.status).toBe('model_error');
    expect(result.error).toContain('"same" is used by an earlier call');
    expect(add.calls).toEqual([]);
  });

  it('model_error: a non-retryable ProviderError is not retried', async () => {
    const model = faultyModel(scriptedModel([{ content: 'never' }]), { 0: { type: 'provider_error', code: 'auth' } });
    const events = recorder();
    const result = await runAgent({ model, prompt: 'x', onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'model_error', error: 'faultyModel: scripted auth on call 1' });
    expect(model.requests).toHaveLength(1);
    expect(events.ofType('model_error')).toEqual([
      expect.objectContaining({ step: 1, attempt: 1, code: 'auth', retryable: false, willRetry: false }),
    ]);
  });

  it('context_limit: the newest group does not fit maxContextChars', async () => {
    const model = scriptedModel([{ content: 'never' }]);
    const result = await runAgent({ model, prompt: 'x'.repeat(500), context: { maxContextChars: 100 } });
    expect(result.status).toBe('context_limit');
    expect(result.error).toBeTypeOf('string');
    expect(model.requests).toHaveLength(0);
  });

  it('context_limit after tool results grow past the budget', async () => {
    const big = { ...addTool(), execute: () => 'y'.repeat(400) };
    const model = scriptedModel([{ content: '', toolCalls: [addCall('c1')] }, { content: 'never' }]);
    const result = await runAgent({ model, tools: [big], prompt: 'x', context: { maxContextChars: 300 } });
    expect(result).toMatchObject({ status: 'context_limit', steps: 1, toolCalls: 1 });
    expectValidTranscript(result.messages);
  });

  it('maxContextChars drops old groups but keeps the first user message', async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [addCall('c1')] },
      { content: '', toolCalls: [addCall('c2')] },
      { content: '', toolCalls: [addCall('c3')] },
      { content: 'done' },
    ]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'first', context: { maxContextChars: 400 } });
    expect(result.status).toBe('completed');
    const last = model.requests[3]?.messages ?? [];
    expect(last[0]).toEqual({ role: 'user', content: 'first' });
    expect(last.length).toBeLessThan(result.messages.length - 1);
    expect(JSON.stringify(last).length).toBeLessThanOrEqual(400);
    expectValidTranscript(last);
  });

  it('continues a transcript given as messages, without mutating it', async () => {
    const history = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: 'hello' },
      { role: 'user' as const, content: 'again' },
    ];
    const frozen = structuredClone(history);
    const model = scriptedModel([{ content: 'sure' }]);
    const result = await runAgent({ model, messages: history, system: 'be brief' });
    expect(result.messages).toHaveLength(4);
    expect(history).toEqual(frozen);
    expect(model.requests[0]?.system).toBe('be brief');
    expect(model.requests[0]?.messages).toEqual(history);
  });

  it('usage is summed over the model calls', async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [addCall('c1')], usage: { inputTokens: 10, outputTokens: 2 } },
      { content: 'ok', usage: { inputTokens: 15, outputTokens: 3 } },
    ]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'x' });
    expect(result.usage).toEqual({ inputTokens: 25, outputTokens: 5 });
  });

  it('a retried ProviderError does not count as a step', async () => {
    const model = faultyModel(scriptedModel([{ content: 'ok' }]), {
      0: { type: 'provider_error', code: 'server' },
    });
    const result = await runAgent({ model, prompt: 'x', retry: { baseDelayMs: 0 } });
    expect(result).toMatchObject({ status: 'completed', steps: 1, answer: 'ok' });
    expect(model.requests).toHaveLength(2);
  });

  it('model_error after retries are exhausted', async () => {
    const model = faultyModel(scriptedModel([]), () => ({ type: 'provider_error', code: 'rate_limited' }));
    const events = recorder();
    const result = await runAgent({
      model,
      prompt: 'x',
      retry: { maxRetries: 2, baseDelayMs: 0 },
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('model_error');
    expect(result.error).toBe('faultyModel: scripted rate_limited on call 3 (gave up after 3 attempts)');
    expect(model.requests).toHaveLength(3);
    expect(events.ofType('model_error').map((event) => [event.attempt, event.willRetry])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(events.ofType('model_start').map((event) => event.attempt)).toEqual([1, 2, 3]);
  });

  it('ProviderError with retryable false overrides the code default', async () => {
    const error = new ProviderError({ code: 'server', message: 'down for good', provider: 'x', retryable: false });
    const result = await runAgent({ model: scriptedModel([error]), prompt: 'x' });
    expect(result).toMatchObject({ status: 'model_error', error: 'down for good' });
  });
});
