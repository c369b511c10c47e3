import { ProviderError } from '@bridle/protocol';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openai } from '../src/index';
import { collect, modelRequest, rejection, serve, weatherTool } from './helpers';

/** Real Chat Completions shapes (OpenAI's API reference, and what Ollama, vLLM and llama.cpp send). */
function completion(message: Record<string, unknown>, finish_reason: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    ...extra,
  };
}

function chunk(
  delta: Record<string, unknown> | undefined,
  finish_reason: string | null = null,
  extra: Record<string, unknown> = {},
) {
  const choices = delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason }];
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra };
}

const model = (baseURL: string) => openai({ model: 'm', apiKey: 'k', baseURL, api: 'chat' });
const ask = () => modelRequest([{ role: 'user', content: 'Hi' }], { tools: [weatherTool] });
const paris = { id: 'call_p', name: 'get_weather', arguments: { city: 'Paris' } };
const oslo = { id: 'call_o', name: 'get_weather', arguments: { city: 'Oslo' } };

describe('Chat Completions stop reasons and refusals', () => {
  it('keeps the text of an answer cut by finish_reason length, with and without streaming', async () => {
    const server = await serve([
      { type: 'raw', json: completion({ content: 'The answer is lo' }, 'length') },
      {
        type: 'raw',
        events: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'The answer is lo' }),
          chunk({}, 'length'),
          '[DONE]',
        ],
      },
    ]);
    const providerData = { 'openai-compatible': { model: 'm', api: 'chat', finishReason: 'length' } };
    expect(await model(server.baseURL).generate(ask())).toEqual({
      content: 'The answer is lo',
      usage: { inputTokens: 10, outputTokens: 5 },
      finishReason: 'length',
      providerData,
    });
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      type: 'response',
      response: { content: 'The answer is lo', finishReason: 'length', providerData },
    });
  });

  it('fails with a non-retryable bad_request when length or content_filter left nothing', async () => {
    const server = await serve([
      { type: 'raw', json: completion({ content: null }, 'length') },
      { type: 'raw', events: [chunk({ role: 'assistant', content: '' }), chunk({}, 'length'), '[DONE]'] },
      { type: 'raw', json: completion({ content: null }, 'content_filter') },
    ]);
    const cut =
      'openai-compatible request failed: the answer was cut off by the output token limit (finish_reason: length) before any text or tool call. Raise maxOutputTokens (reasoning models spend output tokens on reasoning first).';
    for (const call of [
      () => model(server.baseURL).generate(ask()),
      () => collect(model(server.baseURL).stream!(ask())),
    ]) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ code: 'bad_request', retryable: false, message: cut });
    }
    expect(await rejection(model(server.baseURL).generate(ask()))).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('content filter stopped the answer (finish_reason: content_filter)'),
    });
  });

  it('takes the refusal field as the answer text, beside null or empty content', async () => {
    const server = await serve([
      { type: 'raw', json: completion({ content: null, refusal: "I can't help with that." }, 'stop') },
      {
        type: 'raw',
        events: [
          chunk({ role: 'assistant', content: '', refusal: null }),
          chunk({ content: '', refusal: "I can't" }),
          chunk({ refusal: ' help.' }),
          chunk({}, 'stop'),
        ],
      },
    ]);
    expect((await model(server.baseURL).generate(ask())).content).toBe("I can't help with that.");
    expect(await collect(model(server.baseURL).stream!(ask()))).toEqual([
      { type: 'text_delta', text: "I can't" },
      { type: 'text_delta', text: ' help.' },
      { type: 'response', response: expect.objectContaining({ content: "I can't help.", finishReason: 'stop' }) },
    ]);
  });

  it('joins the text parts of content sent as an array of parts, skipping thinking parts (Mistral)', async () => {
    const content = [
      { type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] },
      { type: 'text', text: 'Forty-two.' },
    ];
    const server = await serve([{ type: 'raw', json: completion({ content }, 'stop') }]);
    expect((await model(server.baseURL).generate(ask())).content).toBe('Forty-two.');
  });
});

describe('Chat Completions tool calls from OpenAI-compatible servers', () => {
  it('takes usage from the last chunk with empty choices, after the finish_reason chunk', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: [
          chunk({ role: 'assistant', content: 'Hi' }, null, { usage: null }),
          chunk({}, 'stop', { usage: null }),
          chunk(undefined, null, {
            usage: {
              prompt_tokens: 7,
              completion_tokens: 1,
              total_tokens: 8,
              prompt_tokens_details: { cached_tokens: 0 },
              completion_tokens_details: { reasoning_tokens: 0 },
            },
          }),
          '[DONE]',
        ],
      },
    ]);
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      type: 'response',
      response: { content: 'Hi', usage: { inputTokens: 7, outputTokens: 1 } },
    });
  });

  it('assembles whole calls sent one per delta, and separates calls that all say index 0 but carry new ids (Ollama)', async () => {
    const whole = (call: typeof paris, index: number) => ({
      index,
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    });
    const server = await serve([
      {
        type: 'raw',
        events: [
          chunk({ role: 'assistant', content: null, tool_calls: [whole(paris, 0), whole(oslo, 1)] }),
          chunk({}, 'tool_calls'),
        ],
      },
      {
        type: 'raw',
        events: [
          chunk({ role: 'assistant', content: '', tool_calls: [whole(paris, 0)] }),
          chunk({ tool_calls: [whole(oslo, 0)] }),
          chunk({}, 'stop'),
        ],
      },
    ]);
    for (let i = 0; i < 2; i++) {
      expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
        type: 'response',
        response: { content: '', toolCalls: [paris, oslo] },
      });
    }
  });

  it('assembles calls whose deltas have no index, no id on later pieces, or no id at all', async () => {
    const server = await serve([
      {
        type: 'raw',
        events: [
          chunk({
            tool_calls: [{ id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }],
          }),
          chunk({ tool_calls: [{ function: { arguments: '"Paris"}' } }] }),
          chunk({
            tool_calls: [
              { id: 'call_o', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          }),
          chunk({}, 'tool_calls'),
        ],
      },
      {
        type: 'raw',
        events: [
          chunk({
            tool_calls: [
              { index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 1, type: 'function', function: { name: 'get_time', arguments: '' } }] }),
          chunk({}, 'tool_calls'),
        ],
      },
    ]);
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      type: 'response',
      response: { content: '', toolCalls: [paris, oslo] },
    });
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      type: 'response',
      response: {
        content: '',
        toolCalls: [
          { id: 'call_0', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_1', name: 'get_time', arguments: {} },
        ],
      },
    });
  });

  it('accepts arguments sent as an object instead of a JSON string, with and without streaming', async () => {
    const server = await serve([
      {
        type: 'raw',
        json: completion(
          {
            content: null,
            tool_calls: [
              { id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
            ],
          },
          'tool_calls',
        ),
      },
      {
        type: 'raw',
        events: [
          chunk({
            tool_calls: [
              {
                index: 0,
                id: 'call_p',
                type: 'function',
                function: { name: 'get_weather', arguments: { city: 'Paris' } },
              },
            ],
          }),
          chunk({}, 'tool_calls'),
        ],
      },
    ]);
    expect((await model(server.baseURL).generate(ask())).toolCalls).toEqual([paris]);
    expect((await collect(model(server.baseURL).stream!(ask()))).at(-1)).toMatchObject({
      type: 'response',
      response: { content: '', toolCalls: [paris] },
    });
  });

  it('gives calls without ids or with repeated ids distinct ids, without streaming too', async () => {
    const call = (id: string | undefined, city: string) => ({
      ...(id === undefined ? {} : { id }),
      type: 'function',
      function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
    });
    const server = await serve([
      {
        type: 'raw',
        json: completion({ content: null, tool_calls: [call(undefined, 'Paris'), call('', 'Oslo')] }, 'tool_calls'),
      },
      {
        type: 'raw',
        json: completion(
          { content: null, tool_calls: [call('call_x', 'Paris'), call('call_x', 'Oslo')] },
          'tool_calls',
        ),
      },
    ]);
    expect((await model(server.baseURL).generate(ask())).toolCalls?.map((c) => c.id)).toEqual(['call_0', 'call_1']);
    expect((await model(server.baseURL).generate(ask())).toolCalls?.map((c) => c.id)).toEqual(['call_x', 'call_x_1']);
  });
});

describe('Chat Completions request bodies', () => {
  it('caps output with max_completion_tokens on OpenAI itself (reasoning models reject max_tokens)', async () => {
    const server = await serve([{ content: 'ok' }]);
    const official = 'https://api.openai.com/v1';
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: official,
      fetch: (url, init) => fetch(String(url).replace(official, server.baseURL), init),
    });
    const model = openai({ model: 'o4-mini', client, api: 'chat', maxOutputTokens: 64 });

    await model.generate(modelRequest([{ role: 'user', content: 'Hi' }]));

    expect(model.id).toBe('openai:o4-mini');
    expect(server.requests[0]?.body).toEqual({
      max_completion_tokens: 64,
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});
