import { afterEach, describe, expect, it } from 'vitest';
import { fakeAnthropicServer } from '../src/fake-anthropic-server';
import type { FakeProviderServer } from '../src/fake-provider-server';

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function post(body: unknown): Promise<Response> {
  return fetch(`${server!.baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => ({
      event: /^event: (.*)$/m.exec(frame)?.[1] ?? '',
      data: JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null'),
    }));
}

const toolResponse = {
  content: 'Hi.',
  toolCalls: [{ id: 'toolu_1', name: 'add', arguments: { a: 1 } }],
  usage: { inputTokens: 9, outputTokens: 4 },
};

describe('fakeAnthropicServer', () => {
  it('answers JSON like the Messages API', async () => {
    server = await fakeAnthropicServer([toolResponse]);
    expect(server.baseURL).toBe(server.url);
    const message = await (await post({ model: 'claude-x', max_tokens: 10, messages: [] })).json();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'Hi.' },
        { type: 'tool_use', id: 'toolu_1', name: 'add', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 9, output_tokens: 4 },
    });
  });

  it('streams the real event names in order, with input_json_delta for tool input', async () => {
    server = await fakeAnthropicServer([toolResponse]);
    const frames = events(await (await post({ model: 'c', max_tokens: 10, messages: [], stream: true })).text());
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(frames.every((frame) => frame.data.type === frame.event)).toBe(true);
    expect(frames[5]?.data).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'add', input: {} },
    });
    const json = frames
      .filter((frame) => (frame.data.delta as { type?: string } | undefined)?.type === 'input_json_delta')
      .map((frame) => (frame.data.delta as { partial_json: string }).partial_json)
      .join('');
    expect(json).toBe('{"a":1}');
    expect(frames[11]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 4 },
    });
  });

  it('sends an error event mid-stream, and the same failure as HTTP 529 without streaming', async () => {
    const step = { type: 'stream_error', errorType: 'overloaded_error', before: { content: 'part' } } as const;
    server = await fakeAnthropicServer([step, step]);
    const frames = events(await (await post({ stream: true })).text());
    expect(frames.at(-1)).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const plain = await post({});
    expect(plain.status).toBe(529);
    expect(await plain.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('uses Anthropic error bodies and request ids', async () => {
    server = await fakeAnthropicServer([{ type: 'http_error', status: 401, message: 'invalid x-api-key' }]);
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('request-id')).toMatch(/^req_fake\d+$/);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
  });
});

describe('fakeAnthropicServer limits', () => {
  it('answers 413 to a body over 16 MiB without recording it', async () => {
    server = await fakeAnthropicServer([{ content: 'never' }]);
    const response = await post({ messages: 'x'.repeat(16 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
    expect(server.requests).toEqual([]);
  });
});
