import { ProviderError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { collect, modelRequest, rejection, serve, weatherTool } from './helpers';

const ask = () => modelRequest([{ role: 'user', content: 'Hi' }], { tools: [weatherTool] });

function chatCompletion(finish_reason: string, message: Record<string, unknown> = { role: 'assistant', content: 'x' }) {
  return {
    id: 'chatcmpl_1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message, finish_reason, logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  };
}

function responseBody(output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: 'gpt-test',
    output,
    usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    ...extra,
  };
}

const sequenced = (events: Record<string, unknown>[]) =>
  events.map((event, sequence_number) => ({ ...event, sequence_number }));

describe('openai finish reasons', () => {
  it('maps every Chat finish_reason and keeps the raw one in providerData', async () => {
    const table: [string, string][] = [
      ['stop', 'stop'],
      ['length', 'length'],
      ['content_filter', 'content_filter'],
      ['function_call', 'tool_calls'],
      ['something_new', 'other'],
    ];
    const server = await serve(table.map(([reason]) => ({ type: 'raw' as const, json: chatCompletion(reason) })));
    const model = openai({ model: 'm', apiKey: 'k', baseURL: server.baseURL, api: 'chat' });
    for (const [finishReason, mapped] of table) {
      expect(await model.generate(ask())).toMatchObject({
        finishReason: mapped,
        providerData: { 'openai-compatible': { model: 'm', api: 'chat', finishReason } },
      });
    }
  });

  it('maps Responses outcomes: completed, incomplete for max_output_tokens or content_filter', async () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hi', annotations: [] }],
    };
    const server = await serve([
      { type: 'raw', json: responseBody([message]) },
      {
        type: 'raw',
        json: responseBody([message], { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }),
      },
      { type: 'response', response: { content: 'Partial' }, stopReason: 'max_output_tokens' },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'k', baseURL: server.baseURL, api: 'responses' });
    expect((await model.generate(ask())).finishReason).toBe('stop');
    expect(await model.generate(ask())).toMatchObject({
      finishReason: 'content_filter',
      providerData: { openai: { status: 'incomplete', incompleteReason: 'content_filter' } },
    });
    expect((await collect(model.stream!(ask()))).at(-1)).toMatchObject({ response: { finishReason: 'length' } });
  });

  it.each(['chat', 'responses'] as const)(
    'never hands on a tool call cut by the output limit (%s, streamed or not)',
    async (api) => {
      const cut = { id: 'call_1', name: 'get_weather', arguments: '{"city": "Pa' };
      const stopReason = api === 'chat' ? 'length' : 'max_output_tokens';
      const step = { type: 'response' as const, response: { content: '', toolCalls: [cut] }, stopReason };
      const server = await serve([step, step]);
      const model = openai({ model: 'gpt-test', apiKey: 'k', baseURL: server.baseURL, api });
      const label = api === 'chat' ? 'finish_reason: length' : 'incomplete: max_output_tokens';
      for (const error of [await rejection(model.generate(ask())), await rejection(collect(model.stream!(ask())))]) {
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ code: 'bad_request', retryable: false });
        expect((error as Error).message).toBe(
          `${api === 'chat' ? 'openai-compatible' : 'openai'} request failed: the output token limit (${label}) cut the answer in the middle of a tool call (get_weather); the call was not run. Raise maxOutputTokens (reasoning models spend output tokens on reasoning first).`,
        );
      }
    },
  );
});

describe('openai against servers seen in the wild', () => {
  it('reads an output_text part whose text is null as nothing, never "null"', async () => {
    const nullPart = { type: 'output_text', text: null, annotations: [] };
    const server = await serve([
      {
        type: 'raw',
        json: responseBody([
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [nullPart, { type: 'output_text', text: 'Hi', annotations: [] }],
          },
        ]),
      },
      {
        type: 'raw',
        events: sequenced([
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: null },
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' },
          {
            type: 'response.completed',
            response: responseBody([{ id: 'msg_1', type: 'message', role: 'assistant', content: [nullPart] }]),
          },
        ]),
      },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'k', baseURL: server.baseURL, api: 'responses' });
    expect((await model.generate(ask())).content).toBe('Hi');
    expect(await collect(model.stream!(ask()))).toEqual([
      { type: 'text_delta', text: 'Hi' },
      { type: 'response', response: expect.objectContaining({ content: 'Hi', finishReason: 'stop' }) },
    ]);
  });

  it('runs a streamed tool call that only arrives inside response.completed, and takes its text from there too', async () => {
    const call = {
      id: 'fc_1',
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":"Paris"}',
      call_id: 'call_1',
      name: 'get_weather',
    };
    const text = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
    };
    const server = await serve([
      {
        type: 'raw',
        events: sequenced([
          { type: 'response.created', response: responseBody([], { status: 'in_progress' }) },
          { type: 'response.completed', response: responseBody([text, call]) },
        ]),
      },
    ]);
    const model = openai({ model: 'gpt-test', apiKey: 'k', baseURL: server.baseURL, api: 'responses' });
    expect(await collect(model.stream!(ask()))).toEqual([
      { type: 'text_delta', text: 'Checking.' },
      {
        type: 'response',
        response: expect.objectContaining({
          content: 'Checking.',
          toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
          finishReason: 'tool_calls',
        }),
      },
    ]);
  });

  it.each(['chat', 'responses'] as const)(
    'names the URL it tried when it cannot connect, in a message that ends in one period (%s)',
    async (api) => {
      const server = await serve([]);
      const baseURL = server.baseURL;
      await server.close();
      const model = openai({ model: 'gpt-test', apiKey: 'k', baseURL, api });
      const path = api === 'chat' ? 'chat/completions' : 'responses';
      for (const error of [await rejection(model.generate(ask())), await rejection(collect(model.stream!(ask())))]) {
        expect(error).toMatchObject({ code: 'network', retryable: true });
        const message = (error as Error).message;
        expect(
          message.startsWith(
            `${api === 'chat' ? 'openai-compatible' : 'openai'} request failed: Connection error (${baseURL}/${path}: `,
          ),
        ).toBe(true);
        expect(message).toContain('ECONNREFUSED');
        expect(message.endsWith('). Check the network and the base URL.')).toBe(true);
        expect(message).not.toContain('..');
      }
    },
  );
});
