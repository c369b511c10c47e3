// Issue 14 leftovers, through the loop: which model answered (fallback's `response.model`), a final answer cut by
// the output limit (`finishReason: 'length'`), and `usage.costUsd` counting toward `budget.maxCostUsd`.
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { resumeRun, runAgent, streamAgent } from '../src/index';
import { addTool, call, recorder } from './helpers';
import { memoryJournal } from './test-stores';

describe('which model answered', () => {
  it("a response's model reaches model_end.model, run_end.model and result.model", async () => {
    const model = scriptedModel(
      [
        { content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })], model: 'test:primary' },
        { content: 'three', model: 'test:secondary' },
      ],
      { id: 'fallback(test:primary, test:secondary)' },
    );
    const events = recorder();
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'completed', answer: 'three', model: 'test:secondary' });
    expect(events.ofType('model_end').map((event) => event.model)).toEqual(['test:primary', 'test:secondary']);
  });

  it('model ids with credentials (user info, query keys of a URL) are journaled, observed and returned without them', async () => {
    const secret = 'openai-compatible:http://user:hunter2@llm.internal:8080/v1?api-key=sk-secret#llama3.2';
    const model = scriptedModel([{ content: 'hi', model: secret }], {
      id: `fallback(${secret}, openai:gpt-4o-mini)`,
    });
    const events = recorder();
    const store = memoryJournal();
    const result = await runAgent({ model, prompt: 'go', onEvent: events.onEvent, store, runId: 'r1' });
    const clean = 'openai-compatible:http://llm.internal:8080/v1#llama3.2';
    expect(result.model).toBe(clean);
    expect(events.ofType('run_start')[0]?.model).toBe(`fallback(${clean}, openai:gpt-4o-mini)`);
    expect(events.ofType('model_end')[0]?.model).toBe(clean);
    const journaled = JSON.stringify((await store.readRun('r1'))?.events);
    expect(journaled).toContain('llm.internal:8080');
    expect(journaled).not.toMatch(/hunter2|sk-secret|user:/);
    const resumed = await resumeRun({ model, store, runId: 'r1' });
    expect(resumed.model).toBe(clean);
  });

  it('without one (a plain model answered), neither the result nor model_end names a model', async () => {
    const model = scriptedModel([{ content: 'hi' }], { id: 'test:only' });
    const events = recorder();
    const result = await runAgent({ model, prompt: 'go', onEvent: events.onEvent });
    expect(result).not.toHaveProperty('model');
    expect(events.ofType('model_end')[0]).not.toHaveProperty('model');
    // Not on run_end: model ids may hold a base URL, and the events travel further than the result.
    expect(events.ofType('run_end')[0]).not.toHaveProperty('model');
  });

  it('no response, no model: a run that ends before any model call has none', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await runAgent({ model: scriptedModel([]), prompt: 'go', signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(result).not.toHaveProperty('model');
  });

  it('a journaled run that ended returns the same model and finish reason when resumed', async () => {
    const store = memoryJournal();
    const model = scriptedModel([{ content: 'cut', model: 'test:b', finishReason: 'length' }], { id: 'test:a' });
    const first = await runAgent({ model, prompt: 'go', store, runId: 'r1' });
    const again = await resumeRun({ model: scriptedModel([]), store, runId: 'r1' });
    expect(first).toMatchObject({ model: 'test:b', finishReason: 'length' });
    expect(again).toEqual(first);
  });
});

describe("finishReason 'length'", () => {
  it('a final answer cut by the output limit completes, and the result and events say it was cut', async () => {
    const model = scriptedModel([{ content: 'The answer is', finishReason: 'length' }]);
    const events = recorder();
    const result = await runAgent({ model, prompt: 'go', onEvent: events.onEvent });
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is', finishReason: 'length' });
    expect(events.ofType('model_end')[0]?.finishReason).toBe('length');
    expect(events.ofType('run_end')[0]?.finishReason).toBe('length');
  });

  it('streamAgent says it too, in its events and its result', async () => {
    const model = scriptedModel([{ content: 'The answer is', finishReason: 'length' }]);
    const stream = streamAgent({ model, prompt: 'go', stream: true });
    const ends: unknown[] = [];
    for await (const event of stream.events) if (event.type === 'run_end') ends.push(event.finishReason);
    expect(ends).toEqual(['length']);
    expect(await stream.result).toMatchObject({ status: 'completed', finishReason: 'length' });
  });

  it("the result's finishReason is the last response's: a tool step's reason does not linger", async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })], finishReason: 'tool_calls' },
      { content: 'three', finishReason: 'stop' },
    ]);
    expect((await runAgent({ model, tools: [addTool()], prompt: 'go' })).finishReason).toBe('stop');
    const silent = scriptedModel([{ content: 'three' }]);
    expect(await runAgent({ model: silent, prompt: 'go' })).not.toHaveProperty('finishReason');
  });
});

describe('costUsd and the budget', () => {
  it('usage.costUsd of each response counts toward budget.maxCostUsd (tokens alone never stop the run)', async () => {
    const step = (id: string) => ({
      content: '',
      toolCalls: [call(id, 'add', { a: 1, b: 1 })],
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.5 },
    });
    const model = scriptedModel([step('c1'), step('c2'), step('c3'), { content: 'done' }]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', budget: { maxCostUsd: 1 } });
    expect(result).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect(result.usage.costUsd).toBe(1);
    expect(result.error).toBe('The run cost $1, reaching budget.maxCostUsd ($1); stopped before model call 3.');
    expect(model.requests).toHaveLength(2);
  });
});
