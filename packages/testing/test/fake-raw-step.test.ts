import { afterEach, describe, expect, it } from 'vitest';
import { fakeAnthropicServer } from '../src/fake-anthropic-server';
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
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const refusalJson = {
  object: 'response',
  status: 'completed',
  output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'No.' }] }],
};

describe('raw steps', () => {
  it('send their json verbatim with HTTP 200 to a request that does not stream', async () => {
    server = await fakeOpenAIServer([{ type: 'raw', json: refusalJson }]);
    const response = await post('/responses', { model: 'x', input: [] });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(refusalJson);
    expect(server.requests).toHaveLength(1);
  });

  it('stream their events named by type (Responses, Anthropic) or unnamed (Chat), strings verbatim', async () => {
    const events = [{ type: 'response.created', n: 1 }, { type: 'response.completed' }];
    server = await fakeOpenAIServer([
      { type: 'raw', events },
      { type: 'raw', events: [{ choices: [] }, '[DONE]'] },
    ]);
    expect(await (await post('/responses', { stream: true })).text()).toBe(
      'event: response.created\ndata: {"type":"response.created","n":1}\n\n' +
        'event: response.completed\ndata: {"type":"response.completed"}\n\n',
    );
    expect(await (await post('/chat/completions', { stream: true })).text()).toBe(
      'data: {"choices":[]}\n\ndata: [DONE]\n\n',
    );
    await server.close();

    server = await fakeAnthropicServer([{ type: 'raw', events: [{ type: 'ping' }] }]);
    const response = await post('/v1/messages', { stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it('answer 500 naming the missing form when the step does not fit the request', async () => {
    server = await fakeOpenAIServer([
      { type: 'raw', json: refusalJson },
      { type: 'raw', events: [] },
    ]);
    const streamed = await post('/responses', { stream: true });
    expect(streamed.status).toBe(500);
    expect(((await streamed.json()) as { error: { message: string } }).error.message).toBe(
      'fakeOpenAIServer: the raw step has no events for a streaming request',
    );
    const plain = await post('/chat/completions', {});
    expect(((await plain.json()) as { error: { message: string } }).error.message).toBe(
      'fakeOpenAIServer: the raw step has no json for a request that does not stream',
    );
  });
});

describe('stopReason on the Responses API', () => {
  it('makes an incomplete response with incomplete_details, and ends the stream with response.incomplete', async () => {
    const step = { type: 'response', response: { content: 'Cut' }, stopReason: 'max_output_tokens' } as const;
    server = await fakeOpenAIServer([step, step]);
    expect(await (await post('/responses', {})).json()).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Cut' }] }],
    });
    const frames = (await (await post('/responses', { stream: true })).text()).trim().split('\n\n');
    const last = JSON.parse(frames.at(-1)!.split('\ndata: ')[1]!);
    expect(last).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
  });
});
