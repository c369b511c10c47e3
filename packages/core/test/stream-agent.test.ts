// streamAgent: the run's events and text as async iterables.
import type { RunEvent } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { streamAgent } from '../src/index';
import { addTool, call, deferred } from './helpers';

describe('streamAgent', () => {
  it('yields every event (run_end last) and the streamed text; result resolves like runAgent', async () => {
    const stream = streamAgent({
      model: scriptedModel(
        [{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })] }, { content: 'The sum is 3.' }],
        { stream: true },
      ),
      tools: [addTool()],
      prompt: 'add',
    });
    const types: string[] = [];
    for await (const event of stream.events) types.push(event.type);
    let text = '';
    for await (const delta of stream.text) text += delta;
    expect(text).toBe('The sum is 3.');
    expect(types[0]).toBe('run_start');
    expect(types.at(-1)).toBe('run_end');
    expect(types).toContain('text_delta');
    expect((await stream.result).answer).toBe('The sum is 3.');
  });

  it('breaking out of a loop does not cancel the run; the other iterable still gets everything', async () => {
    const gate = deferred();
    const executed: string[] = [];
    const slow = addTool({
      execute: async () => {
        await gate.promise;
        executed.push('ran');
        return 'ok';
      },
    });
    const stream = streamAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'add', { a: 1, b: 2 })] }, { content: 'done' }], {
        stream: true,
      }),
      tools: [slow],
      prompt: 'x',
    });
    for await (const event of stream.events) if (event.type === 'tool_start') break;
    gate.resolve();
    const result = await stream.result;
    expect(result.status).toBe('completed');
    expect(executed).toEqual(['ran']);
    const texts: string[] = [];
    for await (const delta of stream.text) texts.push(delta);
    expect(texts.join('')).toBe('done');
    expect(() => stream.events[Symbol.asyncIterator]()).toThrow('can be iterated once');
  });

  it('invalid options: result rejects with the ConfigError and both loops throw it', async () => {
    const stream = streamAgent({ model: scriptedModel([]), prompt: 'x', maxSteps: 0 });
    await expect(stream.result).rejects.toThrow('Invalid option maxSteps');
    await expect(
      (async () => {
        for await (const _ of stream.events) void _;
      })(),
    ).rejects.toThrow('Invalid option maxSteps');
    await expect(
      (async () => {
        for await (const _ of stream.text) void _;
      })(),
    ).rejects.toThrow('Invalid option maxSteps');
  });

  it("keeps the caller's own observers and honours stream: false", async () => {
    const seen: RunEvent[] = [];
    const stream = streamAgent({
      model: scriptedModel([{ content: 'plain' }], { stream: true }),
      prompt: 'x',
      stream: false,
      onEvent: (event) => void seen.push(event),
    });
    const texts: string[] = [];
    for await (const delta of stream.text) texts.push(delta);
    expect(texts).toEqual([]);
    expect((await stream.result).answer).toBe('plain');
    expect(seen.map((event) => event.type)).toEqual(['run_start', 'model_start', 'model_end', 'run_end']);
  });
});
