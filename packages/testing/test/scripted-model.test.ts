import type { ModelRequest, ModelStreamPart } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../src/index';

const request = (content = 'hi', signal = new AbortController().signal): ModelRequest => ({
  messages: [{ role: 'user', content }],
  tools: [],
  signal,
});

describe('scriptedModel', () => {
  it('plays a list of responses in order and records requests', async () => {
    const model = scriptedModel([
      { content: 'one' },
      { content: '', toolCalls: [{ id: 'c1', name: 't', arguments: {} }] },
    ]);
    expect(await model.generate(request('a'))).toEqual({ content: 'one' });
    expect(await model.generate(request('b'))).toEqual({
      content: '',
      toolCalls: [{ id: 'c1', name: 't', arguments: {} }],
    });
    expect(model.requests.map((r) => r.messages[0]?.content)).toEqual(['a', 'b']);
    expect(model.id).toBe('scripted:model');
  });

  it('says when the script is exhausted', async () => {
    const model = scriptedModel([{ content: 'only' }]);
    await model.generate(request());
    await expect(model.generate(request())).rejects.toThrow(
      'scriptedModel: no response scripted for call 2 (the script has 1)',
    );
  });

  it('throws scripted errors and calls scripted functions with the request and index', async () => {
    const model = scriptedModel([new Error('boom'), (req, index) => ({ content: `${req.messages.length}:${index}` })]);
    await expect(model.generate(request())).rejects.toThrow('boom');
    expect(await model.generate(request())).toEqual({ content: '1:1' });
  });

  it('accepts one function for every call', async () => {
    const model = scriptedModel((_req, index) => ({ content: `call ${index}` }));
    expect((await model.generate(request())).content).toBe('call 0');
    expect((await model.generate(request())).content).toBe('call 1');
  });

  it('returns copies, so callers cannot change the script', async () => {
    const step = { content: 'x', toolCalls: [{ id: 'a', name: 't', arguments: { n: 1 } }] };
    const model = scriptedModel([step, step]);
    const first = await model.generate(request());
    (first.toolCalls![0]!.arguments as { n: number }).n = 2;
    expect((await model.generate(request())).toolCalls![0]!.arguments).toEqual({ n: 1 });
  });

  it('snapshots the messages of each request', async () => {
    const model = scriptedModel([{ content: 'a' }]);
    const messages = [{ role: 'user' as const, content: 'hi' }];
    await model.generate({ messages, tools: [], signal: new AbortController().signal });
    messages.push({ role: 'user', content: 'later' });
    expect(model.requests[0]!.messages).toHaveLength(1);
  });

  it('rejects with the abort reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(scriptedModel([{ content: 'x' }]).generate(request('x', controller.signal))).rejects.toThrow('stop');
  });

  it('streams word-sized deltas then the response when asked to', async () => {
    const model = scriptedModel([{ content: 'Hello there  world' }], { stream: true, id: 'scripted:s' });
    const parts: ModelStreamPart[] = [];
    for await (const part of model.stream!(request())) parts.push(part);
    expect(parts).toEqual([
      { type: 'text_delta', text: 'Hello ' },
      { type: 'text_delta', text: 'there  ' },
      { type: 'text_delta', text: 'world' },
      { type: 'response', response: { content: 'Hello there  world' } },
    ]);
    expect(model.id).toBe('scripted:s');
    expect(scriptedModel([]).stream).toBeUndefined();
  });
});
