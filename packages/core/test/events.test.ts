import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { addTool, call, recorder } from './helpers';

describe('events', () => {
  it('a run emits its lifecycle in order with increasing sequence and one run_end, last', async () => {
    const events = recorder();
    const model = scriptedModel([
      { content: 'adding', toolCalls: [call('c1', 'add', { a: 1, b: 2 })], usage: { inputTokens: 5, outputTokens: 1 } },
      { content: '3', usage: { inputTokens: 7, outputTokens: 1 } },
    ]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'sum', system: 'sys', onEvent: events.onEvent });
    expect(events.types()).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'model_start',
      'model_end',
      'run_end',
    ]);
    expect(events.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const event of events.events) {
      expect(event.runId).toBe(result.runId);
      expect(new Date(event.timestamp).toISOString()).toBe(event.timestamp);
    }
    expect(events.events[0]).toMatchObject({
      type: 'run_start',
      model: 'scripted:model',
      system: 'sys',
      prompt: 'sum',
    });
    expect(events.ofType('model_end')).toEqual([
      expect.objectContaining({ step: 1, toolCalls: 1, content: 'adding', usage: { inputTokens: 5, outputTokens: 1 } }),
      expect.objectContaining({ step: 2, toolCalls: 0, content: '3' }),
    ]);
    expect(events.ofType('run_end')).toEqual([
      expect.objectContaining({
        status: 'completed',
        steps: 2,
        toolCalls: 1,
        answer: '3',
        usage: { inputTokens: 12, outputTokens: 2 },
      }),
    ]);
    expect(events.ofType('run_end')[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a throwing observer changes nothing; onObserverError hears about it; several observers all run', async () => {
    const heard: string[] = [];
    const second = recorder();
    const model = scriptedModel([{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 1 })] }, { content: 'ok' }]);
    const result = await runAgent({
      model,
      tools: [addTool()],
      prompt: 'x',
      onEvent: [
        (event) => {
          throw new Error(`observer broke on ${event.type}`);
        },
        second.onEvent,
      ],
      onObserverError: (error, event) => {
        heard.push(`${(error as Error).message}|${event.type}`);
        throw new Error('the error hook throws too');
      },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'ok' });
    expect(second.types()).toHaveLength(8);
    expect(heard[0]).toBe('observer broke on run_start|run_start');
    expect(heard).toHaveLength(8);
  });

  it('run_end carries the error of a failed run', async () => {
    const events = recorder();
    await runAgent({ model: scriptedModel([new Error('gone')]), prompt: 'x', onEvent: events.onEvent });
    expect(events.types()).toEqual(['run_start', 'model_start', 'model_error', 'run_end']);
    expect(events.ofType('run_end')[0]).toMatchObject({ status: 'model_error', error: 'gone', steps: 0 });
    expect(events.ofType('model_error')[0]).toMatchObject({ retryable: false, willRetry: false, error: 'gone' });
  });
});

describe('streaming', () => {
  it('uses model.stream and emits text_delta events with the step', async () => {
    const events = recorder();
    const model = scriptedModel(
      [{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 1 })] }, { content: 'two is the answer' }],
      { stream: true },
    );
    const result = await runAgent({ model, tools: [addTool()], prompt: 'x', stream: true, onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'completed', answer: 'two is the answer' });
    const deltas = events.ofType('text_delta');
    expect(deltas.map((event) => event.text).join('')).toBe('two is the answer');
    expect(new Set(deltas.map((event) => event.step))).toEqual(new Set([2]));
    const types = events.types();
    expect(types.indexOf('text_delta')).toBeGreaterThan(types.lastIndexOf('model_start'));
    expect(types.lastIndexOf('text_delta')).toBeLessThan(types.lastIndexOf('model_end'));
  });

  it('without stream: true, or without model.stream, generate is used and no deltas are emitted', async () => {
    const events = recorder();
    await runAgent({
      model: scriptedModel([{ content: 'a b' }], { stream: true }),
      prompt: 'x',
      onEvent: events.onEvent,
    });
    await runAgent({ model: scriptedModel([{ content: 'a b' }]), prompt: 'x', stream: true, onEvent: events.onEvent });
    expect(events.ofType('text_delta')).toEqual([]);
  });

  it('a stream that ends without a response part, or yields junk, is a model_error', async () => {
    const empty = { id: 'm', generate: async () => ({ content: '' }), async *stream() {} };
    expect(await runAgent({ model: empty, prompt: 'x', stream: true })).toMatchObject({
      status: 'model_error',
      error: 'The model stream ended without a final { type: "response" } part.',
    });
    const junk = {
      id: 'm',
      generate: async () => ({ content: '' }),
      async *stream() {
        yield { type: 'mystery' } as never;
      },
    };
    const result = await runAgent({ model: junk, prompt: 'x', stream: true });
    expect(result.status).toBe('model_error');
    expect(result.error).toMatch(/^The model stream yielded an invalid part/);
  });

  it('an invalid response part is a model_error', async () => {
    const model = {
      id: 'm',
      generate: async () => ({ content: '' }),
      async *stream() {
        yield { type: 'response' as const, response: { content: 7 } as never };
      },
    };
    const result = await runAgent({ model, prompt: 'x', stream: true });
    expect(result.status).toBe('model_error');
    expect(result.error).toMatch(/^Invalid model response: content must be a string/);
  });
});
