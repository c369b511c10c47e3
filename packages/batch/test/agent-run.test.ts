import type { Tool } from '@bridle/protocol';
import { faultyModel, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runBatch } from '../src/index';

const echo = scriptedModel((request) => {
  const first = request.messages[0];
  return {
    content: `echo: ${first?.role === 'user' ? first.content : '?'}`,
    usage: { inputTokens: 3, outputTokens: 2 },
  };
});

function tool(name: string, readOnly: boolean, calls: string[]): Tool {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    readOnly,
    execute: () => {
      calls.push(name);
      return 'ok';
    },
  };
}

/** A model that asks for `toolName` on its first call of every run, then (on the next call) fails or answers. */
function toolThenFail(toolName: string) {
  return scriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'user') return { content: '', toolCalls: [{ id: 'c1', name: toolName, arguments: {} }] };
    throw new Error('provider fell over after the tool');
  });
}

describe('runBatch with the default runAgent runner', () => {
  it('runs each item through runAgent with its own prompt, id and overrides', async () => {
    const results = await runBatch(
      [
        { id: 'x', prompt: 'one' },
        { messages: [{ role: 'user', content: 'two' }] },
        { prompt: 'three', system: 'be brief' },
      ],
      { agent: { model: echo, system: 'shared' } },
    );
    expect(results.map((r) => [r.id, r.status, r.answer, r.attempts, r.steps])).toEqual([
      ['x', 'completed', 'echo: one', 1, 1],
      ['1', 'completed', 'echo: two', 1, 1],
      ['2', 'completed', 'echo: three', 1, 1],
    ]);
    expect(results[0]!.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
    expect(typeof results[0]!.runId).toBe('string');
    const systems = echo.requests.slice(-3).map((request) => request.system);
    expect(systems.sort()).toEqual(['be brief', 'shared', 'shared']);
  });

  it('ends an item without prompt or messages as error, naming it, without retrying', async () => {
    const results = await runBatch([{ id: 'bad' } as never, { prompt: 'p', messages: [] }], {
      agent: { model: echo },
      retry: { baseDelayMs: 0 },
    });
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['error', 1],
      ['error', 1],
    ]);
    expect(results[0]!.error).toBe(
      'batch item 0 (id "bad"): needs exactly one of a string "prompt" or a "messages" array; got prompt undefined and messages undefined.',
    );
  });

  it('retries a model_error from a faulty model with a fresh run', async () => {
    const model = faultyModel(echo, { 0: { type: 'throw', message: 'first call breaks' } });
    const [result] = await runBatch([{ prompt: 'again' }], {
      agent: { model, retry: { maxRetries: 0 } },
      retry: { maxRetries: 1, baseDelayMs: 0 },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'echo: again', attempts: 2 });
    expect(model.requests.length).toBe(2);
  });

  it('retries after a read-only tool ran, but not after a tool with side effects', async () => {
    const calls: string[] = [];
    const tools = [tool('look', true, calls), tool('write', false, calls)];
    const events: string[] = [];
    const results = await runBatch([{ prompt: 'a' }], {
      agent: { model: toolThenFail('look'), tools, retry: { maxRetries: 0 } },
      retry: { maxRetries: 2, baseDelayMs: 0 },
      onEvent: (event, item) => {
        if (event.type === 'tool_start') events.push(`${item.attempt}:${event.name}`);
      },
    });
    expect(results[0]).toMatchObject({ status: 'model_error', attempts: 3 });
    expect(events).toEqual(['1:look', '2:look', '3:look']);

    const [sideEffect] = await runBatch([{ prompt: 'b' }], {
      agent: { model: toolThenFail('write'), tools, retry: { maxRetries: 0 } },
      retry: { maxRetries: 2, baseDelayMs: 0 },
    });
    expect(sideEffect).toMatchObject({ status: 'model_error', attempts: 1, toolCalls: 1 });
    expect(calls).toEqual(['look', 'look', 'look', 'write']);
  });

  it('forwards events to agent.onEvent as well as to the batch', async () => {
    const own: string[] = [];
    const batch: string[] = [];
    await runBatch([{ prompt: 'x' }], {
      agent: { model: echo, onEvent: (event) => own.push(event.type) },
      onEvent: (event) => batch.push(event.type),
    });
    expect(own).toEqual(['run_start', 'model_start', 'model_end', 'run_end']);
    expect(batch).toEqual(own);
  });

  it('aborting the batch aborts a running agent, whose transcript stays valid', async () => {
    const controller = new AbortController();
    const model = faultyModel(echo, { 0: { type: 'hang' } });
    const batch = runBatch([{ prompt: 'wait' }, { prompt: 'never' }], {
      agent: { model },
      concurrency: 1,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'model_start') controller.abort();
      },
    });
    const results = await batch;
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['aborted', 1],
      ['aborted', 0],
    ]);
  });
});
