import { ProviderError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { bodyOf, collect, modelRequest, rejection, serve, weatherTool } from './helpers';

/** Real Responses API shapes (platform.openai.com API reference), replayed by the fake server's raw steps. */
const usage = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 1024 },
  output_tokens: 300,
  output_tokens_details: { reasoning_tokens: 256 },
  total_tokens: 1500,
};

const reasoningItem = {
  id: 'rs_1',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'The user wants a greeting.' }],
  encrypted_content: null,
};

function outputText(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
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
    usage,
    ...extra,
  };
}

/** SSE events with sequence numbers. */
function sequenced(events: Record<string, unknown>[]) {
  return events.map((event, sequence_number) => ({ ...event, sequence_number }));
}

const model = (baseURL: string) => openai({ model: 'gpt-test', apiKey: 'k', baseURL, api: 'responses' });
const ask = () => modelRequest([{ role: 'user', content: 'Hi' }], { tools: [weatherTool] });

describe('Responses API wire shapes', () => {
  it('skips reasoning items, joins several output_text parts and message items, keeps refusals as text, and maps cached/reasoning usage', async () => {
    const server = await serve([
      {
        type: 'raw',
        json: responseBody([
          reasoningItem,
          {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [outputText('Hello'), outputText(', world.')],
          },
          {
            id: 'msg_2',
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'refusal', refusal: ' I cannot do more.' }],
          },
        ]),
      },
    ]);
    expect(await model(server.baseURL).generate(ask())).toEqual({
      content: 'Hello, world. I cannot do more.',
      usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1024, reasoningTokens: 256 },
      // A refusal part makes the finish reason content_filter; a reasoning item without encrypted_content is not kept.
      finishReason: 'content_filter',
      providerData: { openai: { model: 'gpt-test', api: 'responses', status: 'completed' } },
    });
  });

  it('streams only answer text: reasoning summary and reasoning text deltas are skipped, refusal deltas kept', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: sequenced([
          { type: 'response.created', response: responseBody([], { status: 'in_progress', usage: null }) },
          { type: 'response.output_item.added', output_index: 0, item: { ...reasoningItem, summary: [] } },
          {
            type: 'response.reasoning_summary_part.added',
            item_id: 'rs_1',
            output_index: 0,
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          },
          {
            type: 'response.reasoning_summary_text.delta',
            item_id: 'rs_1',
            output_index: 0,
            summary_index: 0,
            delta: 'Thinking',
          },
          {
            type: 'response.reasoning_text.delta',
            item_id: 'rs_1',
            output_index: 0,
            content_index: 0,
            delta: 'raw thought',
          },
          { type: 'response.output_item.done', output_index: 0, item: reasoningItem },
          {
            type: 'response.output_item.added',
            output_index: 1,
            item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
          },
          {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 1,
            content_index: 0,
            delta: 'Hello',
            logprobs: [],
          },
          {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 1,
            content_index: 1,
            delta: ', world.',
            logprobs: [],
          },
          { type: 'response.refusal.delta', item_id: 'msg_2', output_index: 2, content_index: 0, delta: ' No more.' },
          { type: 'response.completed', response: responseBody([]) },
        ]),
      },
    ]);
    expect(await collect(model(server.baseURL).stream!(ask()))).toEqual([
      { type: 'text_delta', text: 'Hello' },
      { type: 'text_delta', text: ', world.' },
      { type: 'text_delta', text: ' No more.' },
      {
        type: 'response',
        response: {
          content: 'Hello, world. No more.',
          usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1024, reasoningTokens: 256 },
          finishReason: 'content_filter',
          providerData: { openai: { model: 'gpt-test', api: 'responses', status: 'completed' } },
        },
      },
    ]);
  });

  it('uses call_id (not the item id) as the tool call id, and sends it back with the result', async () => {
    const call = {
      id: 'fc_item_9',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_9',
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
    };
    const server = await serve([
      { type: 'raw', json: responseBody([reasoningItem, call]) },
      {
        type: 'raw',
        events: sequenced([
          {
            type: 'response.output_item.added',
            output_index: 0,
            item: { ...call, status: 'in_progress', arguments: '' },
          },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_item_9', output_index: 0, delta: '{"city":' },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_item_9', output_index: 0, delta: '"Oslo"}' },
          {
            type: 'response.function_call_arguments.done',
            item_id: 'fc_item_9',
            output_index: 0,
            arguments: '{"city":"Oslo"}',
          },
          { type: 'response.output_item.done', output_index: 0, item: call },
          { type: 'response.completed', response: responseBody([call]) },
        ]),
      },
      { content: 'Cold.' },
    ]);
    const expected = [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' } }];
    expect((await model(server.baseURL).generate(ask())).toolCalls).toEqual(expected);
    const parts = await collect(model(server.baseURL).stream!(ask()));
    expect(parts).toEqual([
      {
        type: 'response',
        response: {
          content: '',
          toolCalls: expected,
          usage: expect.any(Object),
          finishReason: 'tool_calls',
          providerData: { openai: { model: 'gpt-test', api: 'responses', status: 'completed' } },
        },
      },
    ]);

    await model(server.baseURL).generate(
      modelRequest([
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '', toolCalls: expected },
        { role: 'tool', callId: 'call_9', name: 'get_weather', content: '-3 C', isError: false },
      ]),
    );
    expect(bodyOf(server, 2).input).toEqual([
      { role: 'user', content: 'Hi' },
      { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_9', output: '-3 C' },
    ]);
  });
});

describe('Responses API incomplete answers', () => {
  it('keeps the text of an answer cut by max_output_tokens, with and without streaming', async () => {
    const step = {
      type: 'response',
      response: { content: 'The answer is lo' },
      stopReason: 'max_output_tokens',
    } as const;
    const server = await serve([step, step]);
    expect(await model(server.baseURL).generate(ask())).toMatchObject({
      content: 'The answer is lo',
      finishReason: 'length',
      providerData: { openai: { status: 'incomplete', incompleteReason: 'max_output_tokens' } },
    });
    const parts = await collect(model(server.baseURL).stream!(ask()));
    expect(parts.at(-1)).toEqual({
      type: 'response',
      response: expect.objectContaining({ content: 'The answer is lo', finishReason: 'length' }),
    });
  });

  it('fails with a non-retryable bad_request naming the limit when reasoning used every output token', async () => {
    const body = responseBody([reasoningItem], {
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const server = await serve([
      { type: 'raw', json: body },
      {
        type: 'raw',
        events: sequenced([
          { type: 'response.output_item.done', output_index: 0, item: reasoningItem },
          { type: 'response.incomplete', response: body },
        ]),
      },
    ]);
    for (const call of [
      () => model(server.baseURL).generate(ask()),
      () => collect(model(server.baseURL).stream!(ask())),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ code: 'bad_request', retryable: false, provider: 'openai' });
      expect((error as Error).message).toBe(
        'openai request failed: the answer was cut off by the output token limit (incomplete: max_output_tokens) before any text or tool call. Raise maxOutputTokens (reasoning models spend output tokens on reasoning first).',
      );
    }
  });

  it('fails with a non-retryable bad_request when the content filter left nothing', async () => {
    const body = responseBody([], { status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    const server = await serve([{ type: 'raw', json: body }]);
    const error = await rejection(model(server.baseURL).generate(ask()));
    expect(error).toMatchObject({ code: 'bad_request', retryable: false });
    expect((error as Error).message).toBe(
      "openai request failed: the provider's content filter stopped the answer (incomplete: content_filter) before any text or tool call. Rephrase the request; retrying it unchanged will likely be filtered again.",
    );
  });
});

describe('Responses API failures inside a 200 answer', () => {
  it('maps response.failed to its code (server_error is retryable)', async () => {
    const failed = responseBody([], {
      status: 'failed',
      error: { code: 'server_error', message: 'The model crashed.' },
    });
    const server = await serve([
      {
        type: 'raw',
        events: sequenced([
          { type: 'response.created', response: responseBody([], { status: 'in_progress' }) },
          { type: 'response.failed', response: failed },
        ]),
      },
      { type: 'raw', json: failed },
    ]);
    for (const call of [
      () => collect(model(server.baseURL).stream!(ask())),
      () => model(server.baseURL).generate(ask()),
    ]) {
      expect(await rejection(call())).toMatchObject({
        code: 'server',
        retryable: true,
        message: expect.stringContaining('server_error: The model crashed.'),
      });
    }
  });

  it('maps a failed response without an error object to a retryable server error', async () => {
    const server = await serve([{ type: 'raw', json: responseBody([], { status: 'failed', error: null }) }]);
    expect(await rejection(model(server.baseURL).generate(ask()))).toMatchObject({ code: 'server', retryable: true });
  });

  it('maps flat and nested error events, by type and code (context window overflow is context_length)', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: [
          { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null, sequence_number: 1 },
        ],
      },
      {
        type: 'raw',
        events: [
          {
            type: 'error',
            sequence_number: 2,
            error: {
              type: 'invalid_request_error',
              code: 'context_length_exceeded',
              message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
              param: 'input',
            },
          },
        ],
      },
      {
        type: 'raw',
        events: [
          {
            type: 'error',
            sequence_number: 1,
            error: { type: 'server_error', code: null, message: 'An error occurred while processing your request.' },
          },
        ],
      },
    ]);
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push(((await rejection(collect(model(server.baseURL).stream!(ask())))) as ProviderError).code);
    expect(codes).toEqual(['rate_limited', 'context_length', 'server']);
  });
});
