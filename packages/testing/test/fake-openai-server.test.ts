import { ProviderError } from '@bridle/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeOpenAIServer } from '../src/fake-openai-server';
import type { FakeProviderServer } from '../src/fake-provider-server';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server!.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify(body),
  });
}

function sseData(text: string): { event?: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? '';
      return event === undefined ? { data } : { event, data };
    });
}

const toolResponse = {
  content: 'Hi.',
  toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 1, b: 2 } }],
  usage: { inputTokens: 5, outputTokens: 7 },
};

describe('fakeOpenAIServer', () => {
  it('listens on 127.0.0.1 with a /v1 baseURL and lists models', async () => {
    server = await fakeOpenAIServer([], { models: ['m1', 'm2'] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.baseURL).toBe(`${server.url}/v1`);
    const list = (await (await fetch(`${server.baseURL}/models`)).json()) as { object: string; data: { id: string }[] };
    expect(list.object).toBe('list');
    expect(list.data.map((model) => model.id)).toEqual(['m1', 'm2']);
    expect(server.requests).toEqual([]);
  });

  it('records model calls with parsed bodies and headers', async () => {
    server = await fakeOpenAIServer([{ content: 'a' }]);
    await post('/chat/completions', { model: 'x', messages: [] });
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/v1/chat/completions',
        body: { model: 'x', messages: [] },
        headers: expect.objectContaining({ authorization: 'Bearer k' }),
      }),
    ]);
  });

  it('renders a Responses stream with the real event names and order', async () => {
    server = await fakeOpenAIServer([toolResponse]);
    const frames = sseData(await (await post('/responses', { model: 'x', input: [], stream: true })).text());
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const sequence = frames.map((frame) => JSON.parse(frame.data).sequence_number);
    expect(sequence).toEqual(frames.map((_, index) => index));
    const completed = JSON.parse(frames.at(-1)!.data).response;
    expect(completed).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'add', arguments: '{"a":1,"b":2}' },
      ],
      usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
    });
  });

  it('renders a Chat Completions stream with tool_calls deltas, a usage chunk when asked, and [DONE]', async () => {
    server = await fakeOpenAIServer([toolResponse]);
    const body = { model: 'x', messages: [], stream: true, stream_options: { include_usage: true } };
    const frames = sseData(await (await post('/chat/completions', body)).text());
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data));
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]).filter(Boolean)).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'add', arguments: '' } },
      { index: 0, function: { arguments: '{"a":' } },
      { index: 0, function: { arguments: '1,"b"' } },
      { index: 0, function: { arguments: ':2}' } },
    ]);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    });
  });

  it('answers a Chat Completions JSON request like the API', async () => {
    server = await fakeOpenAIServer([toolResponse]);
    const completion = await (await post('/chat/completions', { model: 'gpt-x', messages: [] })).json();
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-x',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Hi.',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":2}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 7 },
    });
  });

  it('turns ProviderErrors into wire errors, with Retry-After for rate limits', async () => {
    server = await fakeOpenAIServer([
      new ProviderError({ code: 'rate_limited', message: 'slow down', provider: 'x', retryAfterMs: 1500 }),
      new ProviderError({ code: 'context_length', message: 'x', provider: 'x' }),
    ]);
    const limited = await post('/responses', {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({
      error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    const tooLong = await post('/responses', {});
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ error: { code: 'context_length_exceeded' } });
  });

  it('says when the script is exhausted, and 404s unknown routes', async () => {
    server = await fakeOpenAIServer([{ content: 'only one' }]);
    await post('/responses', {});
    const second = await post('/responses', {});
    expect(second.status).toBe(400);
    expect(((await second.json()) as { error: { message: string } }).error.message).toBe(
      'fakeOpenAIServer: no response scripted for call 2 (the script has 1 step)',
    );
    expect((await post('/embeddings', {})).status).toBe(404);
  });

  it('calls a script function with the parsed request and the call index', async () => {
    server = await fakeOpenAIServer((request, index) => ({
      content: `${index}:${(request.body as { model: string }).model}`,
    }));
    await post('/chat/completions', { model: 'a', messages: [] });
    const second = await (await post('/chat/completions', { model: 'b', messages: [] })).json();
    expect((second as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('1:b');
  });

  it('closes while a request hangs', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    const pending = post('/responses', {}).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
    server = undefined;
  });
});
