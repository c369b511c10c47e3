import type { AssistantMessage, Message, ModelResponse } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { bodyOf, collect, modelRequest, serve, weatherTool } from './helpers';

/** A reasoning item as the Responses API returns it with `include: ['reasoning.encrypted_content']`. */
const reasoningItem = {
  id: 'rs_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: '**Checking the weather**\n\nThe user wants Paris.' }],
  encrypted_content: 'gAAAAABor0BxvB0cOnbO-4s9-8cM0mIXeUvq6JK1G2f8iD3D7aBc==',
};
const functionCall = {
  id: 'fc_68af40313f9c8193a1e6c1f5b3fdc3c805438e46b5f69a3b',
  type: 'function_call',
  status: 'completed',
  arguments: '{"city":"Paris"}',
  call_id: 'call_Kq1',
  name: 'get_weather',
};

function responseBody(output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model: 'gpt-5-mini',
    output,
    usage: {
      input_tokens: 300,
      input_tokens_details: { cached_tokens: 256 },
      output_tokens: 120,
      output_tokens_details: { reasoning_tokens: 96 },
      total_tokens: 420,
    },
    ...extra,
  };
}

function sequenced(events: Record<string, unknown>[]) {
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

const streamed = sequenced([
  { type: 'response.created', response: responseBody([], { status: 'in_progress', usage: null }) },
  {
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: reasoningItem.id, type: 'reasoning', summary: [] },
  },
  {
    type: 'response.reasoning_summary_text.delta',
    item_id: reasoningItem.id,
    output_index: 0,
    summary_index: 0,
    delta: '**Checking the weather**',
  },
  { type: 'response.output_item.done', output_index: 0, item: reasoningItem },
  {
    type: 'response.output_item.added',
    output_index: 1,
    item: { ...functionCall, status: 'in_progress', arguments: '' },
  },
  {
    type: 'response.function_call_arguments.delta',
    item_id: functionCall.id,
    output_index: 1,
    delta: '{"city":"Paris"}',
  },
  {
    type: 'response.function_call_arguments.done',
    item_id: functionCall.id,
    output_index: 1,
    arguments: '{"city":"Paris"}',
  },
  { type: 'response.output_item.done', output_index: 1, item: functionCall },
  { type: 'response.completed', response: responseBody([reasoningItem, functionCall]) },
]);

function assistantOf(response: ModelResponse): AssistantMessage {
  return {
    role: 'assistant',
    content: response.content,
    ...(response.toolCalls ? { toolCalls: response.toolCalls } : {}),
    ...(response.providerData === undefined ? {} : { providerData: response.providerData }),
  };
}

const question: Message = { role: 'user', content: 'Weather in Paris?' };
const result: Message = { role: 'tool', callId: 'call_Kq1', name: 'get_weather', content: 'Sunny', isError: false };

describe('openai reasoning options', () => {
  it('refuses an unknown effort or summary, and a blank prompt cache key', () => {
    const error = (fn: () => unknown) => {
      try {
        fn();
      } catch (caught) {
        expect(ConfigError.isInstance(caught)).toBe(true);
        return (caught as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(error(() => openai({ model: 'gpt-5', apiKey: 'k', reasoning: { effort: 'max' as never } }))).toBe(
      'openai: reasoning.effort must be one of none, minimal, low, medium, high, xhigh, got "max".',
    );
    expect(error(() => openai({ model: 'gpt-5', apiKey: 'k', reasoning: { summary: 'long' as never } }))).toContain(
      'reasoning.summary must be one of auto, concise, detailed',
    );
    expect(error(() => openai({ model: 'gpt-5', apiKey: 'k', reasoning: 'high' as never }))).toContain(
      "reasoning must be an object like { effort: 'low' }",
    );
    expect(error(() => openai({ model: 'gpt-5', apiKey: 'k', promptCacheKey: ' ' }))).toContain(
      'promptCacheKey must be a non-empty string',
    );
  });

  it('sends reasoning, include and prompt_cache_key on Responses; reasoning_effort and prompt_cache_key on Chat', async () => {
    const server = await serve([{ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' }]);
    const ask = modelRequest([{ role: 'user', content: 'Hi' }]);
    const options = { apiKey: 'k', baseURL: server.baseURL, promptCacheKey: 'tenant-42' } as const;
    await openai({
      ...options,
      model: 'gpt-4.1',
      api: 'responses',
      reasoning: { effort: 'low', summary: 'auto' },
    }).generate(ask);
    await openai({ ...options, model: 'gpt-5-mini', api: 'responses' }).generate(ask);
    await openai({ model: 'gpt-4.1', api: 'responses', apiKey: 'k', baseURL: server.baseURL }).generate(ask);
    await openai({ ...options, model: 'o4-mini', api: 'chat', reasoning: { effort: 'high' } }).generate(ask);
    expect(bodyOf(server, 0)).toEqual({
      store: false,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'tenant-42',
      model: 'gpt-4.1',
      input: [{ role: 'user', content: 'Hi' }],
    });
    // A reasoning model asks for its encrypted reasoning by default; another model does not.
    expect(bodyOf(server, 1)).toMatchObject({ include: ['reasoning.encrypted_content'] });
    expect(bodyOf(server, 2).include).toBeUndefined();
    expect(bodyOf(server, 3)).toEqual({
      reasoning_effort: 'high',
      prompt_cache_key: 'tenant-42',
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});

describe.each(['generate', 'stream'] as const)('openai Responses reasoning round trip (%s)', (mode) => {
  async function call(model: ReturnType<typeof openai>, messages: Message[]): Promise<ModelResponse> {
    const request = modelRequest(messages, { tools: [weatherTool] });
    if (mode === 'generate') return model.generate(request);
    const last = (await collect(model.stream!(request))).at(-1);
    if (last?.type !== 'response') throw new Error('no response part');
    return last.response;
  }

  it('keeps the reasoning item in providerData and sends it back byte-for-byte before the function call', async () => {
    const first =
      mode === 'generate'
        ? { type: 'raw' as const, json: responseBody([reasoningItem, functionCall]) }
        : { type: 'raw' as const, events: streamed };
    const server = await serve([first, { content: 'Sunny in Paris.' }]);
    const model = openai({
      model: 'gpt-5-mini',
      apiKey: 'k',
      baseURL: server.baseURL,
      api: 'responses',
      reasoning: { effort: 'medium' },
    });

    const response = await call(model, [question]);
    expect(response).toEqual({
      content: '',
      toolCalls: [{ id: 'call_Kq1', name: 'get_weather', arguments: { city: 'Paris' } }],
      usage: { inputTokens: 300, outputTokens: 120, cacheReadTokens: 256, reasoningTokens: 96 },
      finishReason: 'tool_calls',
      providerData: {
        openai: { model: 'gpt-5-mini', api: 'responses', status: 'completed', reasoning: [reasoningItem] },
      },
    });
    await call(model, [question, assistantOf(response), result]);

    const input = bodyOf(server, 1).input as unknown[];
    expect(JSON.stringify(input[1])).toBe(JSON.stringify(reasoningItem));
    expect(input).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      reasoningItem,
      { type: 'function_call', call_id: 'call_Kq1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_Kq1', output: 'Sunny' },
    ]);
    expect(bodyOf(server, 1)).toMatchObject({
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'medium' },
    });
  });

  it("never sends another model's, another provider's or an unreplayable reasoning item", async () => {
    const server = await serve([{ content: 'ok' }]);
    const model = openai({ model: 'gpt-5-mini', apiKey: 'k', baseURL: server.baseURL, api: 'responses' });
    const toolCalls = [{ id: 'call_Kq1', name: 'get_weather', arguments: { city: 'Paris' } }];
    await call(model, [
      question,
      {
        role: 'assistant',
        content: '',
        toolCalls,
        providerData: { openai: { model: 'gpt-5', api: 'responses', reasoning: [reasoningItem] } },
      },
      result,
      { role: 'user', content: 'And now?' },
      {
        role: 'assistant',
        content: 'Thinking about it.',
        providerData: {
          anthropic: {
            model: 'gpt-5-mini',
            stopReason: 'end_turn',
            thinking: [{ type: 'thinking', thinking: 'x', signature: 's' }],
          },
          openai: { model: 'gpt-5-mini', api: 'responses', reasoning: [{ ...reasoningItem, encrypted_content: null }] },
        },
      },
      { role: 'user', content: 'Well?' },
    ]);
    const body = JSON.stringify(bodyOf(server, 0));
    expect(body).not.toContain('rs_68af');
    expect(body).not.toContain('signature');
    expect(body).not.toContain('thinking');
  });
});
