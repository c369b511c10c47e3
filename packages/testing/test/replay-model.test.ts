import type { ModelRequest, RunEvent } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { replayModel } from '../src/index';

const request = (): ModelRequest => ({
  messages: [{ role: 'user', content: 'go' }],
  tools: [],
  signal: new AbortController().signal,
});

const base = { runId: 'r1', timestamp: '2025-01-01T00:00:00.000Z' };
const events: RunEvent[] = [
  { ...base, sequence: 0, type: 'run_start', model: 'openai:gpt-4o-mini', prompt: 'go' },
  { ...base, sequence: 1, type: 'model_start', step: 1, attempt: 1 },
  {
    ...base,
    sequence: 2,
    type: 'model_end',
    step: 1,
    durationMs: 5,
    usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.5 },
    toolCalls: 1,
    content: 'thinking',
    finishReason: 'tool_calls',
    response: { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1 } }], providerData: { items: ['x'] } },
  },
  {
    ...base,
    runId: 'child',
    parentRunId: 'r1',
    sequence: 0,
    type: 'model_end',
    step: 1,
    durationMs: 1,
    usage: { inputTokens: 1, outputTokens: 1 },
    toolCalls: 0,
    content: 'child',
  },
  {
    ...base,
    sequence: 3,
    type: 'model_end',
    step: 2,
    durationMs: 5,
    usage: { inputTokens: 4, outputTokens: 2 },
    toolCalls: 0,
    content: 'done',
    finishReason: 'stop',
  },
];

describe('replayModel', () => {
  it("serves the run's own recorded responses in order, with tool calls, usage, finish reason and provider data", async () => {
    const model = replayModel(events);
    expect(model.id).toBe('replay:openai:gpt-4o-mini');
    expect(await model.generate(request())).toEqual({
      content: 'thinking',
      usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.5 },
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 1 } }],
      providerData: { items: ['x'] },
    });
    expect(await model.generate(request())).toEqual({
      content: 'done',
      usage: { inputTokens: 4, outputTokens: 2 },
      finishReason: 'stop',
    });
    expect(model.requests).toHaveLength(2);
  });

  it('throws naming the step when asked for more than the recording has', async () => {
    const model = replayModel(events);
    await model.generate(request());
    await model.generate(request());
    await expect(model.generate(request())).rejects.toThrow(
      'replayModel: the run asked for step 3 (model call 3), but the recording has only 2 model responses',
    );
    await expect(replayModel([]).generate(request())).rejects.toThrow('asked for step 1 (model call 1)');
  });

  it('hands out copies, and refuses what is not an event list', async () => {
    const model = replayModel(events);
    const first = await model.generate(request());
    (first.toolCalls?.[0]?.arguments as { a: number }).a = 99;
    expect(model.responses[0]?.toolCalls?.[0]?.arguments).toEqual({ a: 1 });
    expect(() => replayModel('x' as never)).toThrow('expected the array of a recorded run');
  });
});
